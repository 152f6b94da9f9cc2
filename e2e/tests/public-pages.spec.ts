import { expect, test } from "./fixtures";

test("landing page", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Property Valuation Made Simple" })).toBeVisible();
  for (const feature of ["Instant Valuations", "Batch Processing", "Analytics Dashboard", "Enterprise Security",
    "Developer Friendly", "99.9% Uptime"]) {
    await expect(page.getByRole("heading", { name: feature })).toBeVisible();
  }
  await expect(page.getByText("/api/v1/property/valuation").first()).toBeVisible();
  await expect(page.getByText("estimatedValue").first()).toBeVisible();
  await page.getByRole("link", { name: "Start Free Trial" }).click();
  await expect(page).toHaveURL(/\/register$/);
  await page.goto("/");
  await page.getByRole("link", { name: "Sign In" }).first().click();
  await expect(page).toHaveURL(/\/login$/);
});

test("pricing page", async ({ page }) => {
  await page.goto("/pricing");
  for (const [plan, price, credits] of [["Basic", "$30", "1,000"], ["Professional", "$125", "5,000"],
    ["Enterprise", "$200", "10,000"]]) {
    const card = page.getByRole("article", { name: plan });
    await expect(card).toContainText(price);
    await expect(card).toContainText(credits);
  }
  await expect(page.getByRole("article", { name: "Professional" })).toContainText("Most Popular");
  await expect(page.getByRole("table")).toBeVisible();
  await expect(page.getByText("$0.03").first()).toBeVisible();
});

for (const [path, heading] of [["/about", /about|mission/i], ["/help-center", /help/i]] as const) {
  test(`${path} page`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await page.getByRole("link", { name: "Back to Home" }).first().click();
    await expect(page).toHaveURL(/\/$/);
  });
}

for (const path of ["/privacy", "/terms"]) {
  test(`${path} page`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByText("Last updated: January 21, 2025")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to Home" }).first()).toBeVisible();
  });
}

test("contact page shows its channels and offices and checks required fields", async ({ page }) => {
  await page.goto("/contact-us");
  await expect(page.getByRole("heading", { level: 1, name: "Contact Us" })).toBeVisible();
  await expect(page.getByText("Get in touch with our team")).toBeVisible();
  await expect(page.getByRole("heading", { name: /San Francisco/ })).toContainText("HQ");
  await expect(page.getByRole("heading", { name: /New York/ })).toBeVisible();
  await page.getByRole("button", { name: "Send Message" }).click();
  await expect(page.getByText(/first name is required/i)).toBeVisible();
  await page.getByRole("link", { name: "Visit Help Center" }).click();
  await expect(page).toHaveURL(/\/help-center$/);
});

test("API documentation is served from the contract, bundled with no external origin", async ({ page }) => {
  const external: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith("http://127.0.0.1") && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) {
      external.push(r.url());
    }
  });
  await page.goto("/docs");
  await expect(page.getByText("/api/auth/register").first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText("/api/contact").first()).toBeVisible();
  expect(external).toEqual([]);
});

test("unknown routes show the not-found screen in the public frame, with links a visitor would use", async ({ page }) => {
  await page.goto("/no/such/page");
  await expect(page.getByRole("heading", { level: 1, name: "We can't find that page" })).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();
  await expect(page.getByRole("contentinfo")).toBeVisible();
  const next = page.getByRole("navigation", { name: "Where to go next" });
  await expect(next.getByRole("link", { name: "Home" })).toHaveAttribute("href", "/");
  await expect(next.getByRole("link", { name: "Help Center" })).toHaveAttribute("href", "/help-center");
  await expect(next.getByRole("link", { name: "Dashboard" })).toHaveCount(0);
});
