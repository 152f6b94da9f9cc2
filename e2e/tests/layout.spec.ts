// Layout checks of issue 13 that a route walk does not reach: the batch job-details dialog shows every result
// column on a desktop, and the price-history chart's axis labels are readable on a phone and on a desktop. And of
// issue 25: a table wider than its box on a phone says so (a fade, "Scroll →", a named scroll region), and the
// signed-in header on a phone shows the brand.
import type { Locator, Page } from "@playwright/test";
import { DEMO_ROWS, jobById, nowhere } from "./batch";
import { expect, fillLookup, test } from "./fixtures";
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
      await fillLookup(page, { address: home.street, city: home.city, state: "Washington", zip: home.zip });
      await page.getByRole("button", { name: "Get Property Valuation" }).click();
      await expect(page.getByTestId("valuation-result")).toBeVisible();

      const sizes = await chartLabelSizes(page);
      expect(sizes.length).toBeGreaterThan(0);
      for (const px of sizes) expect(px).toBeGreaterThanOrEqual(11);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    });
  });
}

/** The scroll box of a table, its cue and what a screen reader hears of it. Runs in the page. */
async function scrollCue(table: Locator) {
  return table.evaluate((t) => {
    const box = t.parentElement as HTMLElement;
    const wrapper = box.parentElement as HTMLElement;
    const hint = wrapper.querySelector('[data-testid="scroll-hint"]');
    const fade = wrapper.querySelector('[data-testid="scroll-fade-end"]');
    const hintBox = hint?.getBoundingClientRect();
    const boxRect = box.getBoundingClientRect();
    return {
      overflows: box.scrollWidth > box.clientWidth + 1,
      hint: hint?.textContent ?? null,
      hintHidden: hint?.getAttribute("aria-hidden") ?? null,
      hintInside: hintBox ? hintBox.left >= boxRect.left - 0.5 && hintBox.right <= boxRect.right + 0.5 : null,
      fade: fade !== null,
      role: box.getAttribute("role"),
      name: box.getAttribute("aria-label"),
      tabIndex: box.tabIndex,
    };
  });
}

test.describe("tables that scroll inside their box (390x844)", () => {
  test.use({ viewport: PHONE });

  test(`the pricing comparison shows a fade and "Scroll →" until the end, as a named, focusable region`, async ({ page }) => {
    await page.goto("/pricing");
    const t = page.getByRole("table", { name: "Plan comparison" });
    await t.scrollIntoViewIfNeeded();
    await expect.poll(async () => (await scrollCue(t)).hint).toBe("Scroll →");
    const cue = await scrollCue(t);
    expect(cue).toMatchObject({ overflows: true, hintHidden: "true", hintInside: true, fade: true, role: "region",
      name: "Plan comparison, scrolls sideways", tabIndex: 0 });
    await expect(page.getByRole("region", { name: "Plan comparison, scrolls sideways" })).toBeVisible();

    // Scrolled to the end, nothing more to see: the hint goes.
    await t.evaluate((el) => {
      const box = el.parentElement as HTMLElement;
      box.scrollLeft = box.scrollWidth;
    });
    await expect.poll(async () => (await scrollCue(t)).hint).toBeNull();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });

  // The error tables are read row by row: on a phone each status is a card with its labelled parts, nothing to scroll.
  for (const { name, path, table, signIn } of [
    { name: "the API docs' error codes", path: "/api-keys", table: "api-error-codes", signIn: true },
    { name: "the Help Center's status codes", path: "/help-center", table: "", signIn: false },
  ]) {
    test(`${name} turn into cards that hide nothing`, async ({ page, request }) => {
      if (signIn) {
        const session = await registerByApi(request, "layout-scroll", "Sam Scroll");
        await openSignedIn(page, session.token, path);
      } else {
        await page.goto(path);
      }
      const t = table ? page.getByTestId(table) : page.getByRole("table", { name: "HTTP status codes and what to do" });
      await t.scrollIntoViewIfNeeded();
      await expect.poll(async () => (await scrollCue(t)).overflows).toBe(false);
      expect(await scrollCue(t)).toMatchObject({ hint: null, fade: false, role: null });
      const row = t.getByRole("row", { name: /^422 Unprocessable Entity/ });
      await expect(row).toBeVisible();
      const cells = await row.locator("td").evaluateAll((tds) =>
        tds.map((td) => {
          const r = td.getBoundingClientRect();
          return { label: getComputedStyle(td, "::before").content, right: r.right };
        }),
      );
      expect(cells.length).toBe(2);
      for (const c of cells) {
        expect(c.label).not.toBe("none");
        expect(c.right).toBeLessThanOrEqual(PHONE.width);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    });
  }

  test("a table that fits shows no cue (the Help Center's at 1440x900)", async ({ page }) => {
    await page.setViewportSize(DESKTOP);
    await page.goto("/help-center");
    const t = page.getByRole("table", { name: "HTTP status codes and what to do" });
    await t.scrollIntoViewIfNeeded();
    await expect.poll(async () => (await scrollCue(t)).overflows).toBe(false);
    expect(await scrollCue(t)).toMatchObject({ hint: null, fade: false, role: null });
  });
});

test.describe("the signed-in header on a phone (390x844)", () => {
  test.use({ viewport: PHONE });

  test("shows the brand beside the menu button, without sideways scroll or overlap", async ({ page, request }) => {
    const session = await registerByApi(request, "layout-brand", "Bea Brand");
    await openSignedIn(page, session.token, "/dashboard");
    const header = page.locator("header").first();
    const brand = header.getByTestId("header-brand");
    await expect(brand).toBeVisible();
    await expect(brand).toHaveText("Valuator");
    await expect(brand).toHaveAttribute("href", "/dashboard");
    await expect(header.getByTestId("credits-balance")).toBeVisible();
    await expect(header.getByTestId("api-status")).toBeVisible();

    const boxes = await header.evaluate((h) => {
      const rect = (sel: string) => h.querySelector(sel)!.getBoundingClientRect();
      const menu = h.querySelector('button[aria-label="Open menu"]')!.getBoundingClientRect();
      return { menu, brand: rect('[data-testid="header-brand"]'), status: rect('[data-testid="api-status"]'),
        balance: rect('[data-testid="credits-balance"]'), width: window.innerWidth };
    });
    expect(boxes.brand.left).toBeGreaterThanOrEqual(boxes.menu.right);
    expect(boxes.brand.right).toBeLessThanOrEqual(boxes.status.left);
    expect(boxes.balance.right).toBeLessThanOrEqual(boxes.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  });
});
