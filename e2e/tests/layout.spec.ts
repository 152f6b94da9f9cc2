// Layout checks of issue 13 that a route walk does not reach: the batch job-details dialog shows every result
// column on a desktop, and the price-history chart's axis labels are readable on a phone and on a desktop.
import type { Page } from "@playwright/test";
import { DEMO_ROWS, jobById, nowhere } from "./batch";
import { expect, test } from "./fixtures";
import { openSignedIn, registerByApi } from "./public-api";

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

test.describe("at 1440x900", () => {
  test.use({ viewport: DESKTOP });

  test("the job-details dialog shows every result column, Confidence and Error included", async ({ page, request }) => {
    const session = await registerByApi(request, "layout-job", "Lea Layout");
    const miss = nowhere(301);
    const properties = [
      ...DEMO_ROWS.slice(0, 2).map((r) => ({ address: r.street, city: r.city, state: r.state, zip: r.zip })),
      { address: miss.street, city: miss.city, state: miss.state, zip: miss.zip },
      { address: "PO Box 12", city: "Seattle", state: "WA", zip: "98103" },
    ];
    const res = await request.post("/api/jobs", {
      headers: { Authorization: `Bearer ${session.token}` },
      data: { type: "batch", fileName: "layout-check.json", inputData: { properties } },
    });
    expect(res.status(), await res.text()).toBe(201);
    const { id } = (await res.json()) as { id: number };
    await expect.poll(async () => (await jobById(request, session.token, id)).status, { timeout: 30_000 }).toBe("completed");

    await openSignedIn(page, session.token, "/batch-upload");
    await page.getByTestId("job-row").first().getByRole("button", { name: "View details" }).click();
    const dialog = page.getByTestId("job-details");
    const table = dialog.getByTestId("results-table");
    await expect(table.getByTestId("result-row")).toHaveCount(4);
    // Long error sentences are part of the test: they must wrap, not push the last columns out of view.
    await expect(table.getByTestId("result-reason").first()).toBeVisible();

    const box = await table.evaluate((t) => {
      const scroller = t.parentElement as HTMLElement;
      const s = scroller.getBoundingClientRect();
      const heads = [...t.querySelectorAll("th")].map((th) => {
        const r = th.getBoundingClientRect();
        return { label: th.textContent?.trim() ?? "", left: r.left, right: r.right };
      });
      return { left: s.left, right: s.right, scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth, heads };
    });
    // Nothing to scroll to: the whole table is in its box.
    expect(box.scrollWidth).toBeLessThanOrEqual(box.clientWidth);
    for (const label of ["Confidence", "Match Code", "Error"]) {
      const head = box.heads.find((h) => h.label === label);
      expect(head, `column ${label}`).toBeDefined();
      expect(head!.right, `column ${label} ends inside the dialog`).toBeLessThanOrEqual(box.right + 0.5);
      expect(head!.left).toBeGreaterThanOrEqual(box.left - 0.5);
    }
    // And the page behind the dialog does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(DESKTOP.width);
  });
});

/** The rendered size, in CSS pixels, of each axis label of the price-history chart. */
async function chartLabelSizes(page: Page): Promise<number[]> {
  const chart = page.getByTestId("valuation-result").getByTestId("price-history");
  await expect(chart.locator("svg")).toBeVisible();
  return chart.locator("svg text").evaluateAll((texts) =>
    texts.map((t) => {
      const scale = (t as SVGTextElement).getScreenCTM()?.a ?? 1;
      return parseFloat(getComputedStyle(t).fontSize) * scale;
    }),
  );
}

for (const [name, viewport] of [
  ["a phone (390x844)", PHONE],
  ["a desktop (1440x900)", DESKTOP],
] as const) {
  test.describe(`on ${name}`, () => {
    test.use({ viewport });

    test("the price-history chart's axis labels are at least 11 px and the page does not scroll sideways", async ({
      page,
      request,
    }) => {
      const session = await registerByApi(request, "layout-chart", "Cai Chart");
      await openSignedIn(page, session.token, "/property-lookup");
      const home = DEMO_ROWS[0];
      await page.getByLabel("Street Address").fill(home.street);
      await page.getByLabel("City").fill(home.city);
      await page.getByLabel("State").click();
      await page.getByRole("option", { name: "Washington", exact: true }).click();
      await page.getByLabel("ZIP Code").fill(home.zip);
      await page.getByRole("button", { name: "Get Property Valuation" }).click();
      await expect(page.getByTestId("valuation-result")).toBeVisible();

      const sizes = await chartLabelSizes(page);
      expect(sizes.length).toBeGreaterThan(0);
      for (const px of sizes) expect(px).toBeGreaterThanOrEqual(11);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    });
  });
}
