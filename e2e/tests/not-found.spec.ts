import { expect, test } from "./fixtures";

// Issue 26 point 5: an unknown address is a real 404 (status and screen), the app's pages answer 200, what a person
// would type for a page redirects to it, the API keeps its JSON 404, and crawlers get robots.txt and a sitemap.
// (internal/server/spa_test.go holds the server's side of each in detail.)

test("an unknown address answers 404 with the not-found screen", async ({ page }) => {
  for (const path of ["/no-such-page", "/pricing/extra", "/dashboard/history"]) {
    const res = await page.goto(path);
    expect(res?.status(), `status of ${path}`).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "We can't find that page" })).toBeVisible();
    await expect(page.getByText(path, { exact: true })).toBeVisible();
  }
  // The way back works from there.
  await page.getByRole("link", { name: "Home" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Property Valuation Made Simple" })).toBeVisible();
});

test("the app's pages answer 200", async ({ page }) => {
  for (const [path, heading] of [
    ["/", "Property Valuation Made Simple"],
    ["/pricing", /pricing/i],
    ["/help-center", /help/i],
  ] as const) {
    const res = await page.goto(path);
    expect(res?.status(), `status of ${path}`).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  }
  // A signed-in screen is a page too: its address answers 200, and the app sends a visitor with no session to sign in.
  const res = await page.goto("/settings");
  expect(res?.status()).toBe(200);
  await expect(page).toHaveURL(/\/login$/);
});

test("what a person would type redirects to the page", async ({ page }) => {
  for (const [from, to, heading] of [
    ["/contact", "/contact-us", "Contact Us"],
    ["/help", "/help-center", /help/i],
    ["/signup", "/register", /create/i],
    ["/Pricing/", "/pricing", /pricing/i],
  ] as const) {
    const res = await page.goto(from);
    expect(res?.status(), `final status from ${from}`).toBe(200);
    expect(res?.request().redirectedFrom()?.url(), `${from} was redirected`).toMatch(new RegExp(`${from}$`));
    expect(new URL(page.url()).pathname).toBe(to);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  }
});

test("the API keeps its JSON 404; robots.txt and sitemap.xml are served", async ({ request, baseURL }) => {
  const api = await request.get("/api/no-such-endpoint");
  expect(api.status()).toBe(404);
  expect(await api.json()).toMatchObject({ code: "not_found" });

  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  const text = await robots.text();
  expect(text).toContain("Disallow: /api/\n");
  expect(text).toContain("Disallow: /dashboard\n");
  expect(text).toContain(`Sitemap: ${baseURL}/sitemap.xml`);

  const sitemap = await request.get("/sitemap.xml");
  expect(sitemap.status()).toBe(200);
  expect(sitemap.headers()["content-type"]).toContain("xml");
  const locs = [...(await sitemap.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  expect(locs).toContain(`${baseURL}/`);
  expect(locs).toContain(`${baseURL}/pricing`);
  expect(locs).not.toContain(`${baseURL}/dashboard`);
  // Every listed page is a page.
  for (const loc of locs) expect((await request.get(loc)).status(), loc).toBe(200);
});
