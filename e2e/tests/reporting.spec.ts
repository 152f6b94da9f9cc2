import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import {
  callPublic,
  createKey,
  dashboardLookup,
  DEMO_FORMATTED,
  DEMO_HOME,
  NOWHERE_HOME,
  openSignedIn,
  registerByApi,
} from "./public-api";

const BUCKETS = ["Fast (<300ms)", "Normal (300-500ms)", "Slow (>500ms)"];

function statsRead(page: Page, days: number) {
  return page.waitForResponse((r) => {
    const url = new URL(r.url());
    return url.pathname === "/api/usage/stats" && url.searchParams.get("days") === String(days) && r.status() === 200;
  });
}

/** The figures of the chart's screen-reader table: one row per day of the period. */
async function chartDays(page: Page): Promise<number[]> {
  const cells = page.getByTestId("usage-chart-data").locator("tbody tr td:nth-child(2)");
  return (await cells.allTextContents()).map(Number);
}

test("Reporting shows the account's real figures and the period selector reads 7, 30 or 90 days", async ({
  page,
  request,
}) => {
  const session = await registerByApi(request, "reporting", "Remy Reporter");
  const key = await createKey(request, session.token, "Reporter", 60);
  // Four successes and one not-found: 5 calls, 80% success.
  for (let i = 0; i < 3; i++) expect((await callPublic(request, key.keyValue, DEMO_HOME)).status()).toBe(200);
  expect((await callPublic(request, key.keyValue, NOWHERE_HOME)).status()).toBe(404);
  expect((await dashboardLookup(request, session.token, DEMO_HOME)).status()).toBe(200);

  const firstRead = statsRead(page, 30);
  await openSignedIn(page, session.token, "/reporting");
  await firstRead;
  await expect(page.getByRole("heading", { level: 1, name: "Reporting" })).toBeVisible();
  await expect(page.getByTestId("credits-balance")).toContainText("96 credits");

  await test.step("the four cards", async () => {
    await expect(page.getByTestId("stat-calls-value")).toHaveText("5");
    await expect(page.getByTestId("stat-calls-note")).toHaveText("No activity last month");
    await expect(page.getByTestId("stat-success-rate-value")).toHaveText("80.0%");
    await expect(page.getByTestId("stat-success-rate-note")).toHaveText("Good");
    await expect(page.getByTestId("stat-avg-time-value")).toHaveText(/^(<1|\d[\d,]*) ms$/);
    await expect(page.getByTestId("stat-avg-time-note")).toHaveText(/^p50 (<1|\d[\d,]*) ms · p95 (<1|\d[\d,]*) ms$/);
    await expect(page.getByTestId("stat-keys-value")).toHaveText("1");
    await expect(page.getByTestId("stat-keys-note")).toHaveText("Ready for use");
  });

  await test.step("the usage chart covers the 30 days", async () => {
    const chart = page.getByTestId("usage-chart");
    await expect(chart.getByText("API Usage (Last 30 Days)")).toBeVisible();
    await expect(chart).toContainText("5 calls, by day (UTC)");
    await expect(chart.locator(".recharts-line")).toBeVisible();
    const days = await chartDays(page);
    expect(days).toHaveLength(30);
    expect(days.reduce((a, b) => a + b, 0)).toBe(5);
  });

  await test.step("the response-time doughnut lists its buckets", async () => {
    const chart = page.getByTestId("response-times-chart");
    await expect(chart.locator(".recharts-pie")).toBeVisible();
    const legend = chart.getByTestId("response-times-legend");
    let total = 0;
    for (const [i, key] of ["fast", "normal", "slow"].entries()) {
      const item = legend.getByTestId(`response-times-${key}`);
      await expect(item).toContainText(BUCKETS[i]);
      await expect(item).toContainText(/\)\d+\(\d+%\)$/); // "Fast (<300ms)5(100%)": label, count, share
      total += Number((await item.locator("span").nth(2).textContent()) ?? "NaN");
    }
    expect(total).toBe(5);
  });

  await test.step("recent activity lists the calls, newest first", async () => {
    const items = page.getByTestId("activity-item");
    await expect(items).toHaveCount(5);
    await expect(items.nth(0)).toContainText(DEMO_FORMATTED);
    await expect(items.nth(0)).toContainText("Dashboard • Response: 200");
    await expect(items.nth(0)).toContainText("just now");
    await expect(items.nth(1)).toContainText("Reporter • Response: 404");
    await expect(items.nth(1)).toContainText("Error");
    await expect(items.nth(2)).toContainText("Reporter • Response: 200");
  });

  await test.step("the period selector reads the chosen period from the server", async () => {
    const period = page.getByLabel("Period");
    await expect(period).toHaveText("Last 30 days");
    const choose = async (label: string, days: number) => {
      await period.click();
      await page.getByRole("option", { name: label }).click();
      await expect(period).toHaveText(label);
      await expect(page.getByTestId("usage-chart").getByText(`API Usage (Last ${days} Days)`)).toBeVisible();
      await expect.poll(() => chartDays(page)).toHaveLength(days);
      expect((await chartDays(page)).reduce((a, b) => a + b, 0)).toBe(5);
      await expect(page.getByTestId("stat-success-rate-value")).toHaveText("80.0%");
    };
    for (const [label, days] of [["Last 7 days", 7], ["Last 90 days", 90]] as const) {
      const read = statsRead(page, days);
      await choose(label, days);
      const body = (await (await read).json()) as { days: number; totalRequests: number; successfulRequests: number };
      expect(body).toMatchObject({ days, totalRequests: 5, successfulRequests: 4 });
    }
    // Back to the default period, read when the screen opened.
    await choose("Last 30 days", 30);
  });

  await test.step("View all opens the history and New API Key the keys", async () => {
    await page.getByTestId("recent-activity").getByRole("link", { name: "View all" }).click();
    await expect(page).toHaveURL(/\/history$/);
    await expect(page.getByTestId("history-row")).toHaveCount(5);
    await page.goBack();
    await page.getByRole("button", { name: "New API Key" }).click();
    await expect(page).toHaveURL(/\/api-keys$/);
  });
});

test("Reporting of a brand-new account says there is nothing yet", async ({ page, request }) => {
  const session = await registerByApi(request, "reporting-empty", "Nell New");
  await openSignedIn(page, session.token, "/reporting");
  await expect(page.getByTestId("stat-calls-value")).toHaveText("0");
  await expect(page.getByTestId("stat-calls-note")).toHaveText("No activity yet");
  await expect(page.getByTestId("stat-success-rate-value")).toHaveText("-");
  await expect(page.getByTestId("stat-keys-value")).toHaveText("0");
  await expect(page.getByTestId("stat-keys-note")).toHaveText("Create one to use the API");
  await expect(page.getByTestId("response-times-empty")).toContainText("No requests in this period");
  await expect(page.getByTestId("recent-activity")).toContainText("No activity yet");
  // Every day of the period is listed, with no calls.
  const days = await chartDays(page);
  expect(days).toHaveLength(30);
  expect(days.every((d) => d === 0)).toBe(true);
});
