// The demo account of a development server (the e2e server runs in development on a fresh database): the sign-in
// page's "Use the demo account" signs in, and the account's weeks of use fill History, Reporting, API Keys and
// Batch Upload. The test only reads, so it runs beside the person lookup test, which spends the demo's credits.
import { expect, test } from "./fixtures";

test("'Use the demo account' signs in to an account with weeks of use", async ({ page }) => {
  await page.goto("/login");
  await page.getByRole("button", { name: "Use the demo account" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await test.step("History: dashboard and API calls, refused ones too", async () => {
    await page.goto("/history");
    await expect(page.getByRole("cell", { name: "CRM integration" }).first()).toBeVisible();
    await expect(page.getByRole("cell", { name: "Dashboard" }).first()).toBeVisible();
    await expect(page.getByRole("cell", { name: /open-houses\.csv/ })).toBeVisible();
  });

  await test.step("API Keys: the key made weeks ago, at the plan's cap", async () => {
    await page.goto("/api-keys");
    const row = page.getByTestId("api-key-row").filter({ hasText: "CRM integration" });
    await expect(row).toContainText("60/min");
    await expect(row).not.toContainText("on your plan");
  });

  await test.step("Batch Upload: a finished job", async () => {
    await page.goto("/batch-upload");
    const job = page.getByTestId("job-row").filter({ hasText: "open-houses.csv" });
    await expect(job).toContainText(/completed/i);
    await expect(job.getByTestId("job-processed")).toContainText("12");
  });

  await test.step("Reporting: requests on many of the last 30 days", async () => {
    const stats = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/usage/stats" && r.status() === 200);
    await page.goto("/reporting");
    await stats;
    // The chart's screen-reader table: one row per day, its second cell the requests of that day.
    const cells = page.getByTestId("usage-chart-data").locator("tbody tr td:nth-child(2)");
    await expect(cells.first()).toBeAttached();
    const busy = (await cells.allTextContents()).map(Number).filter((n) => n > 0);
    expect(busy.length).toBeGreaterThanOrEqual(12);
  });
});
