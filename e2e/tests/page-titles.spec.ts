// Every page names itself in the browser's tab (issue 25): "<Page> · Valuator", set centrally from the route table
// (web/src/app/page-titles.ts, whose unit test covers every route). Here, a few pages in the real browser, following
// client-side navigation too.
import { expect, test } from "./fixtures";
import { openSignedIn, registerByApi } from "./public-api";

test("public pages, the not-found page and signed-in screens carry their own titles", async ({ page, request }) => {
  await page.goto("/");
  await expect(page).toHaveTitle("Valuator · Property Valuation API");
  await page.getByRole("link", { name: "Pricing" }).first().click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page).toHaveTitle("Pricing · Valuator");
  await page.goto("/help-center");
  await expect(page).toHaveTitle("Help Center · Valuator");
  await page.goto("/no-such-page");
  await expect(page).toHaveTitle("Page Not Found · Valuator");

  const session = await registerByApi(request, "titles", "Tia Title");
  await openSignedIn(page, session.token, "/billing");
  await expect(page).toHaveTitle("Billing & Credits · Valuator");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API Keys" }).click();
  await expect(page).toHaveTitle("API Keys · Valuator");
});
