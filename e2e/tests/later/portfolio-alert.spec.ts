// A portfolio's monthly revaluation and its alert (issue 40), with time passing on the server's clock: it moves to the
// next month (POST /api/dev/clock) and runs the revaluation at once (POST /api/dev/portfolios/revalue, the hourly
// job's work), so it runs in the "later" project, alone, after every other test (playwright.config.ts).
import { alignClock, expect, test } from "../fixtures";
import { creditsOf, openSignedIn, registerByApi } from "../public-api";
import { JOB_HOMES, portfolioById, usd } from "../portfolios";
import { checkScreen, VIEWPORTS } from "../walk";

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

test.describe.configure({ timeout: 180_000 });

test("a month on, the homes are revalued, and those that moved past the threshold are the alert on screen", async ({ page, request, baseURL }) => {
  const { token } = await registerByApi(request, "portfolio-alert", "Alma Alert");
  const created = await request.post("/api/portfolios", {
    headers: bearer(token),
    data: { name: "Watched homes", alertThreshold: 0.1, properties: JOB_HOMES },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id, homeCount } = (await created.json()) as { id: number; homeCount: number };
  expect(homeCount).toBe(4);
  expect(await creditsOf(request, token)).toBe(96);

  // To the first hour of next month on the server's clock (a few days on: sessions last 30).
  const clock = (await (await request.get("/api/dev/clock")).json()) as { now: string };
  const now = new Date(clock.now);
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1);
  const moved = await request.post("/api/dev/clock", { data: { advance: `${Math.ceil((next - now.getTime()) / 60_000)}m` } });
  expect(moved.status(), await moved.text()).toBe(200);
  const run = await request.post("/api/dev/portfolios/revalue");
  expect(run.status(), await run.text()).toBe(200);
  const report = (await run.json()) as { month: string; valued: number; failed: number };
  expect(report.valued + report.failed).toBeGreaterThanOrEqual(4);
  // Each home revalued once, 1 credit each (other accounts' portfolios are revalued by the same run).
  expect(await creditsOf(request, token)).toBe(92);

  const p = await portfolioById(request, token, id);
  expect(p.history.map((h) => h.month)).toHaveLength(2);
  expect(p.homes.every((h) => h.latest?.month === report.month)).toBe(true);
  const movers = p.homes.filter((h) => h.changeSinceLastMonth && Math.abs(h.changeSinceLastMonth.percent) > 0.1);
  const stayed = p.homes.filter((h) => !movers.includes(h));
  // The demo market's values move by tenths of a percent from one month to the next, so a threshold of 0.1% is
  // crossed by some or all of these four homes; which ones depends on the engine's index (a change to it once
  // moved all four past it), so the alert is checked against the split the API reports, whatever it is: every mover
  // listed, no other home.
  expect(movers.length, `changes: ${p.homes.map((h) => h.changeSinceLastMonth?.percent).join(", ")}`).toBeGreaterThan(0);

  await alignClock(page.context(), baseURL!);
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await openSignedIn(page, token, `/portfolios/${id}`);
    await expect(page.getByTestId("portfolio-value")).toHaveText(usd(p.totals.value));
    await expect(page.getByTestId("value-chart-data").locator("tbody tr")).toHaveCount(2);
    const alert = page.getByTestId("portfolio-alert");
    {
      await expect(alert).toContainText(`Alert: ${movers.length} ${movers.length === 1 ? "home" : "homes"} moved more than 0.1% since last month`);
      for (const m of movers) await expect(alert).toContainText(m.formattedAddress);
      for (const h of stayed) await expect(alert).not.toContainText(h.formattedAddress);
      // Marked, and first in the table.
      await expect(page.getByTestId("mover-badge")).toHaveCount(movers.length);
      const firstRows = page.getByTestId("home-row").locator("th").first();
      await expect(firstRows).toContainText(movers.map((m) => m.formattedAddress).sort((a, b) => {
        const pa = Math.abs(movers.find((x) => x.formattedAddress === a)!.changeSinceLastMonth!.percent);
        const pb = Math.abs(movers.find((x) => x.formattedAddress === b)!.changeSinceLastMonth!.percent);
        return pb - pa;
      })[0]!);
    }
    await checkScreen(page, "portfolio-after-a-month", viewport);
  }
});
