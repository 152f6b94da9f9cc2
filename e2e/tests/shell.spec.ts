import { expect, registerThroughUI, test, uniqueEmail } from "./fixtures";

test("signed-out visitors are sent to sign in from every protected route", async ({ page }) => {
  for (const path of ["/dashboard", "/property-lookup", "/person-lookup", "/batch-upload", "/markets", "/api-keys",
    "/reporting", "/history", "/billing", "/settings", "/portfolios", "/portfolios/1"]) {
    await page.goto(path);
    await expect(page, `visiting ${path}`).toHaveURL(/\/login$/);
  }
  // /sign-in is the same screen as /login.
  await page.goto("/sign-in");
  await expect(page.getByRole("button", { name: "Sign In" })).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("the sidebar highlights the current page and remembers collapsed groups", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Sam Sidebar", email: uniqueEmail("shell"), password: "password-123" });
  const nav = page.getByRole("navigation", { name: /main/i });

  const singleLookup = nav.getByRole("link", { name: "Single Lookup" });
  await expect(singleLookup).toHaveAttribute("aria-current", "page");

  await nav.getByRole("link", { name: "History" }).click();
  await expect(page).toHaveURL(/\/history$/);
  await expect(nav.getByRole("link", { name: "History" })).toHaveAttribute("aria-current", "page");
  await expect(singleLookup).not.toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { level: 1, name: "Request History" })).toBeVisible();

  // Collapse Properties; the choice survives a reload.
  await nav.getByRole("button", { name: "Properties" }).click();
  await expect(nav.getByRole("link", { name: "Batch Upload" })).toBeHidden();
  await page.reload();
  await expect(nav.getByRole("link", { name: "History" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Batch Upload" })).toBeHidden();
  await nav.getByRole("button", { name: "Properties" }).click();
  await expect(nav.getByRole("link", { name: "Batch Upload" })).toBeVisible();

  // Screens of later issues show their page header only.
  for (const [label, title] of [["Reporting", "Reporting"], ["API Keys", "API Keys"], ["Billing", "Billing & Credits"]]) {
    await nav.getByRole("link", { name: label, exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  }
});

test("a session revoked elsewhere signs the browser out", async ({ page, request }) => {
  const email = uniqueEmail("revoked");
  await registerThroughUI(page, { fullName: "Rae Revoked", email, password: "password-123" });
  const token = await page.evaluate(() => localStorage.getItem("token"));
  expect(token).toMatch(/^vs_/);
  // Another device logs this session out (the same as a password reset would).
  const res = await request.post("/api/auth/logout", { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(204);
  await page.reload();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem("token"))).toBeNull();
});
