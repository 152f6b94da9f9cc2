import { readFileSync } from "node:fs";
import type { Download, Page } from "@playwright/test";
import { csvFile, DEMO_ROWS, isZip, jobRow, nowhere } from "./batch";
import { expect, fillLookup, test, toastTitle, toasts } from "./fixtures";
import { creditsOf, openSignedIn, parseCsv, registerByApi } from "./public-api";
import { portfolioById, runDemoJob, usd } from "./portfolios";
import { checkScreen, scan, VIEWPORTS } from "./walk";

// The Portfolios screen (issue 40), against the real server, at a laptop's and a phone's size: a batch job of demo
// homes becomes a portfolio from its results screen (the button says the cost), whose page shows its value, its
// homes and the value over time, exports CSV and XLSX, adds a home for 1 credit and removes one after asking; the
// list shows it. Moving the clock a month for an alert is in later/portfolio-alert.spec.ts (the clock is the whole
// server's).

test.describe.configure({ timeout: 180_000 });

async function downloadFrom(page: Page, click: () => Promise<void>): Promise<{ download: Download; body: Buffer }> {
  const downloading = page.waitForEvent("download");
  await click();
  const download = await downloading;
  expect(await download.failure()).toBeNull();
  return { download, body: readFileSync(await download.path()) };
}

async function closeToast(page: Page): Promise<void> {
  const close = toasts(page).getByRole("button", { name: "Close" });
  if (await close.count()) {
    await close.first().click();
    await expect(close).toHaveCount(0);
  }
}

for (const viewport of VIEWPORTS) {
  test(`at ${viewport.width}x${viewport.height}: a portfolio from a batch job's results, its value, homes and exports`, async ({ page, request }) => {
    await page.setViewportSize(viewport);
    const session = await registerByApi(request, `portfolio-${viewport.name}`, "Pat Portfolio");
    const fileName = `portfolio-homes-${viewport.name}.json`;
    const jobId = await runDemoJob(request, session.token, fileName);
    expect(await creditsOf(request, session.token)).toBe(96);
    const name = `Rentals ${viewport.name}`;
    let portfolioId = 0;

    await test.step("the job's details offer a portfolio of its 4 valued homes, for 4 credits", async () => {
      await openSignedIn(page, session.token, "/batch-upload");
      const row = jobRow(page, fileName);
      await row.getByRole("button", { name: "View details" }).click();
      const details = page.getByRole("dialog", { name: "Job details" });
      const link = details.getByRole("link", { name: "Create portfolio from these results (4 credits)" });
      await expect(link).toBeVisible();
      await link.click();
      await expect(page).toHaveURL(new RegExp(`/portfolios\\?fromJob=${jobId}$`));
    });

    await test.step("the dialog names the job's homes; a bad threshold is shown at its field; then it is made", async () => {
      const dialog = page.getByRole("dialog", { name: "Create portfolio from batch results" });
      await expect(dialog.getByText(`The 4 homes valued by batch job #${jobId}.`, { exact: false })).toBeVisible();
      await dialog.getByLabel("Name").fill(name);
      await dialog.getByLabel("Alert threshold (%)").fill("0.05");
      await dialog.getByRole("button", { name: "Create (4 credits)" }).click();
      await expect(dialog.getByText("Alert threshold must be a percentage from 0.1 to 100")).toBeVisible();
      await expect(dialog.getByLabel("Alert threshold (%)")).toBeFocused();
      await dialog.getByLabel("Alert threshold (%)").fill("0.1");
      await checkScreen(page, "portfolio-create-from-job", viewport);
      await dialog.getByRole("button", { name: "Create (4 credits)" }).click();
      await expect(page).toHaveURL(/\/portfolios\/\d+$/);
      portfolioId = Number(page.url().split("/").pop());
      await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
      expect(await creditsOf(request, session.token)).toBe(92);
    });

    await test.step("its page shows the value, the homes and this month's point of its chart", async () => {
      const p = await portfolioById(request, session.token, portfolioId);
      expect(p).toMatchObject({ homeCount: 4, status: "active", alertThreshold: 0.1 });
      expect(p.totals.value).toBeGreaterThan(0);
      await expect(page.getByTestId("portfolio-value")).toHaveText(usd(p.totals.value));
      const rows = page.getByTestId("home-row");
      await expect(rows).toHaveCount(4);
      for (const r of DEMO_ROWS) await expect(rows.filter({ hasText: r.formatted })).toHaveCount(1);
      // First month: nothing to move from, so no alert and no mover.
      await expect(page.getByTestId("portfolio-alert")).toContainText("No home moved more than 0.1% since last month");
      await expect(page.getByTestId("mover-badge")).toHaveCount(0);
      await expect(page.getByTestId("value-chart-data").locator("tbody tr")).toHaveCount(1);
      await expect(page.getByTestId("value-chart-data")).toContainText(usd(p.history[0]!.value));
      // Sorting by value, highest first.
      if (viewport.width < 640) await page.getByLabel("Sort by").selectOption({ label: "Value (highest first)" });
      else await page.getByRole("button", { name: "Value", exact: true }).click();
      const values = [...p.homes].sort((a, b) => b.latest!.value - a.latest!.value).map((h) => h.formattedAddress);
      await expect(rows.getByRole("rowheader")).toHaveText(values);
      await checkScreen(page, "portfolio", viewport);
      await scan(page, "/portfolios/:id", viewport);
    });

    await test.step("CSV and XLSX exports hold every home", async () => {
      const csv = await downloadFrom(page, () => page.getByRole("button", { name: "Export CSV" }).click());
      expect(csv.download.suggestedFilename()).toMatch(new RegExp(`^portfolio-rentals-${viewport.name}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
      const table = parseCsv(csv.body.toString("utf8")).filter((r) => r.some((c) => c !== ""));
      expect(table[0]!.slice(0, 6)).toEqual(["Address", "City", "State", "ZIP", "Month valued", "Value"]);
      expect(table.slice(1).map((r) => r[0]).sort()).toEqual(DEMO_ROWS.map((r) => r.formatted).sort());
      const xlsx = await downloadFrom(page, () => page.getByRole("button", { name: "Export XLSX" }).click());
      expect(xlsx.download.suggestedFilename()).toMatch(/\.xlsx$/);
      expect(isZip(xlsx.body)).toBe(true);
      expect(xlsx.body.toString("latin1")).toContain(DEMO_ROWS[0].formatted);
    });

    await test.step("a home is added for 1 credit, and removed after asking (Cancel gives focus back)", async () => {
      const form = page.getByRole("form", { name: "Add a home" });
      await form.getByLabel("Address").fill("8244 Kensington Dr");
      await form.getByLabel("City").fill("Atlanta");
      await form.getByLabel("State").fill("GA");
      await form.getByLabel("ZIP").fill("30308");
      await form.getByRole("button", { name: "Add (1 credit)" }).click();
      const added = page.getByTestId("home-row").filter({ hasText: "8244 KENSINGTON DR, ATLANTA, GA 30308" });
      await expect(added).toHaveCount(1);
      expect(await creditsOf(request, session.token)).toBe(91);
      await closeToast(page);

      const remove = added.getByRole("button", { name: "Remove 8244 KENSINGTON DR, ATLANTA, GA 30308" });
      await remove.focus();
      await page.keyboard.press("Enter");
      const confirm = page.getByRole("alertdialog", { name: "Remove home?" });
      await expect(confirm).toBeVisible();
      await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(confirm).toBeHidden();
      await expect(remove).toBeFocused();
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      await expect(confirm.getByRole("button", { name: "Remove Home" })).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(added).toHaveCount(0);
      await expect(page.getByTestId("home-row")).toHaveCount(4);
    });

    await test.step("the list shows it with its homes, value and status", async () => {
      await closeToast(page);
      // The sidebar's entry on a laptop; on a phone the sidebar is a menu, and the page's own link goes back.
      if (viewport.width < 768) await page.getByRole("link", { name: "← Portfolios" }).click();
      else await page.getByRole("navigation", { name: /main/i }).getByRole("link", { name: "Portfolios", exact: true }).click();
      await expect(page).toHaveURL(/\/portfolios$/);
      const row = page.getByTestId("portfolio-row").filter({ hasText: name });
      const p = await portfolioById(request, session.token, portfolioId);
      await expect(row).toContainText(usd(p.totals.value));
      await expect(row.getByTestId("portfolio-status")).toHaveText("Active");
      await checkScreen(page, "portfolios", viewport);
      await scan(page, "/portfolios", viewport);
    });

    await test.step("deleting it asks first, and it is gone", async () => {
      await page.getByTestId("portfolio-row").filter({ hasText: name }).getByRole("link", { name }).click();
      await page.getByRole("button", { name: "Delete Portfolio" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Delete portfolio?" });
      await confirm.getByRole("button", { name: "Delete Portfolio" }).click();
      await expect(page).toHaveURL(/\/portfolios$/);
      await expect(page.getByTestId("portfolios-empty")).toBeVisible();
    });
  });
}

for (const viewport of VIEWPORTS) {
  test(`at ${viewport.width}x${viewport.height}: a spreadsheet becomes a portfolio through the mapping screen, and a looked-up home joins it`, async ({ page, request }) => {
    await page.setViewportSize(viewport);
    const session = await registerByApi(request, `sheet-${viewport.name}`, "Sam Sheet");
    const fileName = `portfolio-sheet-${viewport.name}.csv`;
    const away = nowhere(400);
    const name = `Sheet ${viewport.name}`;
    let portfolioId = 0;

    await test.step("Batch Upload reads the file and maps its columns; 'Create Portfolio Instead' takes it to Portfolios", async () => {
      await openSignedIn(page, session.token, "/batch-upload");
      await page.getByTestId("file-input").setInputFiles(csvFile(fileName, [
        ["Street", "Town", "ST", "Zip"],
        [DEMO_ROWS[0].street, DEMO_ROWS[0].city, DEMO_ROWS[0].state, DEMO_ROWS[0].zip],
        [DEMO_ROWS[1].street, DEMO_ROWS[1].city, DEMO_ROWS[1].state, DEMO_ROWS[1].zip],
        [away.street, away.city, away.state, away.zip],
      ]));
      await expect(page.getByTestId("mapping-row-count")).toHaveText("3 properties");
      const instead = page.getByRole("button", { name: "Create Portfolio Instead" });
      await expect(instead).toBeEnabled();
      await checkScreen(page, "batch-mapping-portfolio", viewport, "the mapping screen with its portfolio button");
      await instead.click();
      await expect(page).toHaveURL(/\/portfolios\?fromUpload=\d+$/);
    });

    await test.step("the dialog names the file and its cost; the row the engine cannot value is listed by its line, free", async () => {
      const dialog = page.getByRole("dialog", { name: "Create portfolio from a spreadsheet" });
      await expect(dialog).toContainText(`The 3 rows of ${fileName}, read with the mapping you confirmed.`);
      await dialog.getByLabel("Name").fill(name);
      await checkScreen(page, "portfolio-create-from-sheet", viewport);
      await dialog.getByRole("button", { name: "Create (up to 3 credits)" }).click();
      await expect(page.getByRole("dialog", { name: "Portfolio created" })).toBeVisible();
      await expect(page.getByTestId("row-failures")).toContainText("Line 4:");
      expect(await creditsOf(request, session.token)).toBe(98);
      await page.getByRole("button", { name: "Open the portfolio" }).click();
      await expect(page).toHaveURL(/\/portfolios\/\d+$/);
      portfolioId = Number(page.url().split("/").pop());
      await expect(page.getByTestId("home-row")).toHaveCount(2);
    });

    await test.step("its settings change by keyboard: a new threshold and a webhook, whose signing secret is then shown", async () => {
      const settings = page.getByRole("button", { name: "Settings" });
      await settings.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Portfolio settings" });
      await expect(dialog.getByLabel("Name")).toBeFocused();
      await dialog.getByLabel("Alert threshold (%)").fill("2");
      await dialog.getByLabel("Webhook URL (optional)").fill("http://127.0.0.1:9/portfolio-hook");
      await checkScreen(page, "portfolio-settings", viewport);
      await page.keyboard.press("Enter");
      await expect(dialog).toBeHidden();
      await expect(settings).toBeFocused();
      await expect(page.locator("p", { hasText: "alerts past 2% a month · created" })).toBeVisible();
      await expect(page.getByTestId("job-webhook")).toContainText("http://127.0.0.1:9/portfolio-hook");
      const p = await portfolioById(request, session.token, portfolioId);
      expect(p).toMatchObject({ alertThreshold: 2, webhookUrl: "http://127.0.0.1:9/portfolio-hook" });
      expect(await creditsOf(request, session.token)).toBe(98);
      await scan(page, "/portfolios/:id (with a webhook)", viewport);
    });

    await test.step("a looked-up home is added to it from the result, for 1 credit; the dialog gives focus back", async () => {
      await closeToast(page);
      await page.goto("/property-lookup");
      const home = DEMO_ROWS[3];
      await fillLookup(page, { address: home.street, city: home.city, state: "Washington", zip: home.zip });
      await page.getByRole("button", { name: "Get Property Valuation" }).click();
      await expect(page.getByTestId("valuation-result")).toContainText(home.formatted.split(",")[0]!);
      expect(await creditsOf(request, session.token)).toBe(97);

      const add = page.getByRole("button", { name: "Add to Portfolio" });
      await add.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Add to Portfolio" });
      await expect(dialog.getByRole("combobox", { name: "Portfolio" })).toContainText(`${name} (2 homes)`);
      await checkScreen(page, "add-to-portfolio", viewport);
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      await expect(add).toBeFocused();

      await add.click();
      await dialog.getByRole("button", { name: "Add (1 credit)" }).click();
      await expect(toastTitle(page, "Added to Portfolio")).toBeVisible();
      expect(await creditsOf(request, session.token)).toBe(96);
      const p = await portfolioById(request, session.token, portfolioId);
      expect(p.homes.map((h) => h.formattedAddress).sort()).toEqual([DEMO_ROWS[0], DEMO_ROWS[1], home].map((r) => r.formatted).sort());
      await closeToast(page);

      // Twice: the portfolio has it already; said in the dialog, nothing charged.
      await add.click();
      await dialog.getByRole("button", { name: "Add (1 credit)" }).click();
      await expect(dialog.getByTestId("add-to-portfolio-refused")).toHaveText("This property is already in the portfolio. Nothing was charged.");
      expect(await creditsOf(request, session.token)).toBe(96);
      await dialog.getByRole("button", { name: "Cancel" }).click();
    });
  });
}
