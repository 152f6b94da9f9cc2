import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import type { Download, Locator, Page } from "@playwright/test";
import {
  chooseType,
  csvFile,
  DEMO_ROWS,
  EXAMPLE_FORMATTED,
  fillQueue,
  isZip,
  jobById,
  jobRow,
  listJobs,
  nowhere,
  statusBadge,
  toCsv,
  typeSelect,
  xlsxWorkbook,
} from "./batch";
import { expect, registerThroughUI, test, toasts, toastTitle, uniqueEmail } from "./fixtures";
import { createKey, creditsOf, openSignedIn, parseCsv, registerByApi } from "./public-api";

// The Batch Upload screen (/batch-upload) and the public batch API, against the real server: the example file's
// journey, a workbook whose columns need mapping by hand, cancel and retry, the file checks, and an upload through
// the public API that shows up in the dashboard's queue. Every test has its own account; jobs run on the server's
// real queue, so completion is waited for by polling the screen.

const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
/** How long a small job may take to finish on a loaded machine (the queue is polled by the screen every 3 s). */
const JOB_DONE = 60_000;
const HINT_PREFIX =
  "Map a Full Address column, or separate Street Address (or Street), City, State and ZIP Code columns. Still missing: ";

test.describe.configure({ timeout: 120_000 });

/** Waits until the row's job has stopped (fails fast on failed or cancelled), then expects it completed. */
async function expectCompleted(row: Locator): Promise<void> {
  await expect(statusBadge(row)).toHaveAttribute("data-status", /^(completed|failed|cancelled)$/, { timeout: JOB_DONE });
  await expect(statusBadge(row)).toHaveAttribute("data-status", "completed");
  await expect(statusBadge(row)).toHaveText("Completed");
}

/** One figure of the details dialog's summary, by its label. */
function summaryItem(dialog: Locator, label: string): Locator {
  return dialog
    .getByTestId("job-summary")
    .locator("div")
    .filter({ has: dialog.page().locator("dt", { hasText: new RegExp(`^${label}$`) }) })
    .locator("dd");
}

/** The cells of the results table's rows: [line, address, status, estimated value, ...]. */
async function resultCells(dialog: Locator): Promise<string[][]> {
  const rows = dialog.getByTestId("result-row");
  const out: string[][] = [];
  for (const row of await rows.all()) out.push((await row.locator("td").allInnerTexts()).map((s) => s.trim()));
  return out;
}

async function downloadFrom(page: Page, click: () => Promise<void>): Promise<{ download: Download; body: Buffer }> {
  const downloading = page.waitForEvent("download");
  await click();
  const download = await downloading;
  expect(await download.failure()).toBeNull();
  return { download, body: readFileSync(await download.path()) };
}

async function openDetails(page: Page, row: Locator): Promise<Locator> {
  await row.getByRole("button", { name: "View details" }).click();
  const dialog = page.getByRole("dialog", { name: "Job details" });
  await expect(dialog).toBeVisible();
  return dialog;
}

async function closeDetails(page: Page, dialog: Locator): Promise<void> {
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
}

/**
 * Closes the toast. It sits over the bottom right of the page, where the Processing Queue's action buttons are, so a
 * row's button is clicked once the toast is out of the way (as a person would close it first).
 */
async function dismissToast(page: Page): Promise<void> {
  const close = toasts(page).getByRole("button", { name: "Close" });
  await close.click();
  await expect(close).toHaveCount(0);
}

/** "$817,000" for 817000. */
function usd(n: number): string {
  return `$${n.toLocaleString("en-US")}`;
}

test("the example file: download it, upload it with its detected mapping, follow the job to its results and files", async ({
  page,
}, testInfo) => {
  let exampleRows: string[][] = [];
  const examplePath = testInfo.outputPath("valuator-batch-example.csv");

  await test.step("sign up and open Batch Upload from the navigation: no jobs yet", async () => {
    await registerThroughUI(page, { fullName: "Bea Batch", email: uniqueEmail("batch-example"), password: "password-123" });
    await expect(page.getByTestId("credits-balance")).toContainText("100 credits");
    await page.getByRole("navigation", { name: /main/i }).getByRole("link", { name: "Batch Upload", exact: true }).click();
    await expect(page).toHaveURL(/\/batch-upload$/);
    await expect(page.getByRole("heading", { level: 1, name: "Batch Upload" })).toBeVisible();
    await expect(page.getByTestId("drop-zone")).toContainText("Drag and drop your file here, or click to browse");
    await expect(page.getByTestId("batch-plan-limit")).toHaveText(
      "Your Free plan: up to 100 properties per upload (Basic: 1,000).",
    );
    await expect(page.getByTestId("jobs-empty")).toContainText("No batch jobs yet");
  });

  await test.step("'Download Examples' saves the five-home example CSV", async () => {
    const { download, body } = await downloadFrom(page, () =>
      page.getByRole("button", { name: "Download Examples" }).click(),
    );
    expect(download.suggestedFilename()).toBe("valuator-batch-example.csv");
    await expect(toastTitle(page, "Download Started")).toBeVisible();
    await expect(toasts(page)).toContainText("Saved as valuator-batch-example.csv");
    exampleRows = parseCsv(body.toString("utf8")).filter((r) => r.some((c) => c !== ""));
    expect(exampleRows[0]).toEqual(["Full Address", "Street Address", "City", "State", "ZIP Code"]);
    expect(exampleRows).toHaveLength(1 + 5);
    await download.saveAs(examplePath);
  });

  await test.step("upload that file through the drop zone: the detected mapping is complete", async () => {
    const choosing = page.waitForEvent("filechooser");
    await page.getByTestId("drop-zone").click();
    const chooser = await choosing;
    expect(chooser.isMultiple()).toBe(false);
    await chooser.setFiles(examplePath);

    const mapping = page.getByTestId("mapping-screen");
    await expect(mapping.getByRole("heading", { name: "Address Field Mapping" })).toBeVisible();
    await expect(page.getByTestId("drop-zone")).toBeHidden();
    await expect(page.getByTestId("mapping-file-name")).toHaveText("valuator-batch-example.csv");
    await expect(page.getByTestId("mapping-row-count")).toHaveText("5 properties");
    await expect(page.getByTestId("mapping-row")).toHaveCount(5);
    const detected: [string, string][] = [
      ["Full Address", "Full Address"],
      ["Street Address", "Street Address"],
      ["City", "City"],
      ["State", "State"],
      ["ZIP Code", "ZIP Code"],
    ];
    for (const [column, type] of detected) {
      await expect(typeSelect(page, column)).toHaveText(type);
      const row = page.getByTestId("mapping-row").filter({ has: page.getByRole("rowheader", { name: column, exact: true }) });
      await expect(row.getByTestId("mapping-detected")).toContainText(type);
      await expect(row.getByTestId("mapping-detected")).toContainText(/\d+%/);
    }
    // The sample values are the file's first rows.
    const fullAddressRow = page.getByTestId("mapping-row").first();
    await expect(fullAddressRow.getByTestId("mapping-samples")).toContainText("7006 Maple Rd, Seattle, WA 98103");
    await expect(page.getByTestId("credits-note")).toHaveText(
      "Each property valued costs 1 credit, up to 5 credits for this file. You have 100 credits.",
    );
    await expect(page.getByTestId("mapping-hint")).toHaveText("The address columns are mapped.");
    await expect(page.getByRole("button", { name: "Confirm Mapping & Process" })).toBeEnabled();
  });

  await test.step("confirm: the job is queued and the screen goes back to the upload step", async () => {
    await page.getByRole("button", { name: "Confirm Mapping & Process" }).click();
    await expect(toastTitle(page, "Upload Successful")).toBeVisible();
    await expect(toasts(page)).toContainText("valuator-batch-example.csv: 5 properties queued for processing.");
    await expect(page.getByTestId("mapping-screen")).toBeHidden();
    await expect(page.getByTestId("drop-zone")).toBeFocused();
    await dismissToast(page);
    await expect(page.getByTestId("job-row")).toHaveCount(1);
  });

  const row = jobRow(page, "valuator-batch-example.csv");
  await test.step("the Processing Queue follows the job until it is completed: 5 / 5", async () => {
    await expectCompleted(row);
    await expect(row.getByTestId("job-processed")).toHaveText("5 / 5");
    await expect(row.getByTestId("job-progress")).toContainText("100%");
    await expect(row.getByRole("progressbar", { name: "Progress of valuator-batch-example.csv" })).toHaveAttribute(
      "aria-valuetext",
      "100%, 5 / 5 properties",
    );
    await expect(row.locator("td").nth(2)).toHaveText("5");
    await expect(row.getByRole("button", { name: "Cancel" })).toHaveCount(0);
    await expect(row.getByRole("button", { name: "Retry" })).toHaveCount(0);
  });

  let shownValues = new Map<string, string>();
  await test.step("the details list every valued address with its estimate", async () => {
    const dialog = await openDetails(page, row);
    await expect(dialog).toContainText("valuator-batch-example.csv");
    await expect(summaryItem(dialog, "Status")).toHaveText("Completed");
    await expect(summaryItem(dialog, "Total Properties")).toHaveText("5");
    await expect(summaryItem(dialog, "Processed")).toHaveText("5");
    await expect(summaryItem(dialog, "Successful")).toHaveText("5");
    await expect(summaryItem(dialog, "Failed")).toHaveText("0");
    await expect(summaryItem(dialog, "Success Rate")).toHaveText("100%");
    await expect(summaryItem(dialog, "Credits Used")).toHaveText("5");
    await expect(summaryItem(dialog, "Source")).toHaveText("Dashboard");
    await expect(dialog.getByTestId("result-row")).toHaveCount(5);
    await expect(dialog.getByTestId("results-pagination")).toContainText("Showing 1–5 of 5");
    await expect(dialog.getByTestId("results-page")).toHaveText("Page 1 of 1");
    await expect(dialog.getByRole("button", { name: "Next page" })).toBeDisabled();
    await expect(dialog.getByRole("button", { name: "Previous page" })).toBeDisabled();

    const cells = await resultCells(dialog);
    expect(cells.map((c) => c[1])).toEqual(EXAMPLE_FORMATTED);
    for (const c of cells) {
      expect(c[2], `status of ${c[1]}`).toBe("Success");
      expect(c[3], `estimated value of ${c[1]}`).toMatch(/^\$\d{1,3}(,\d{3})+$/);
    }
    expect(cells.map((c) => c[0])).toEqual(["2", "3", "4", "5", "6"]); // the file's lines, after the header
    shownValues = new Map(cells.map((c) => [c[1], c[3]]));
    await closeDetails(page, dialog);
  });

  await test.step("Download CSV: a header and one row per property, with the values the table showed", async () => {
    const { download, body } = await downloadFrom(page, () => row.getByRole("button", { name: "Download CSV" }).click());
    expect(download.suggestedFilename()).toMatch(/^batch-\d+-results\.csv$/);
    await expect(toastTitle(page, "Download Started")).toBeVisible();
    await expect(toasts(page)).toContainText(`Saved as ${download.suggestedFilename()}`);
    await dismissToast(page);
    const rows = parseCsv(body.toString("utf8")).filter((r) => r.some((c) => c !== ""));
    const header = rows[0];
    expect(header.slice(0, 5)).toEqual(["Line", "Address", "Full Address", "Status", "Estimated Value"]);
    expect(rows).toHaveLength(1 + 5);
    const col = (name: string) => header.indexOf(name);
    for (const r of rows.slice(1)) {
      expect(r[col("Status")]).toBe("success");
      const value = Number(r[col("Estimated Value")]);
      expect(value).toBeGreaterThan(0);
      expect(shownValues.get(r[col("Full Address")]), r[col("Full Address")]).toBe(usd(value));
    }
  });

  await test.step("Download XLSX: a real workbook", async () => {
    const { download, body } = await downloadFrom(page, () => row.getByRole("button", { name: "Download XLSX" }).click());
    expect(download.suggestedFilename()).toMatch(/^batch-\d+-results\.xlsx$/);
    expect(body.length).toBeGreaterThan(100);
    expect(isZip(body), "starts with the zip signature PK\\x03\\x04").toBe(true);
    await expect(toastTitle(page, "Download Started")).toBeVisible();
  });

  await test.step("the five valued homes cost five credits", async () => {
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Batch Upload" })).toBeVisible();
    await expect(page.getByTestId("credits-balance")).toContainText("95 credits");
    // The queue is read again after the reload: the job is still there.
    await expect(statusBadge(jobRow(page, "valuator-batch-example.csv"))).toHaveText("Completed");
  });
});

test("a workbook with unusual column names: map the missing column by hand, then the job completes", async ({
  page,
  request,
}) => {
  const session = await registerByApi(request, "batch-xlsx", "Xia Workbook");
  const fileName = "Spring listings.xlsx";
  const [maple, spring, denver] = DEMO_ROWS;
  const miami = nowhere();
  const workbook = xlsxWorkbook([
    ["Property", "Town/Village", "Region", "PLZ", "Asking Price", "Notes"],
    [maple.street, maple.city, maple.state, Number(maple.zip), 850000, "Corner lot & garden"],
    [spring.street, spring.city, spring.state, Number(spring.zip), 1250000, "New roof"],
    [denver.street, denver.city, denver.state, Number(denver.zip), 525000, "Needs paint"],
    [miami.street, miami.city, miami.state, Number(miami.zip), 1900000, "Waterfront"],
  ]);

  await openSignedIn(page, session.token, "/batch-upload");
  await expect(page.getByTestId("jobs-empty")).toBeVisible();
  await page.getByTestId("file-input").setInputFiles({ name: fileName, mimeType: XLSX_TYPE, buffer: workbook });

  const confirm = page.getByRole("button", { name: "Confirm Mapping & Process" });
  const hint = page.getByTestId("mapping-hint");

  await test.step("the ZIP column is not recognised: Confirm is disabled and the hint says what is missing", async () => {
    await expect(page.getByRole("heading", { name: "Address Field Mapping" })).toBeVisible();
    await expect(page.getByTestId("mapping-file-name")).toHaveText(fileName);
    await expect(page.getByTestId("mapping-row-count")).toHaveText("4 properties");
    await expect(typeSelect(page, "Property")).toHaveText("Street Address");
    await expect(typeSelect(page, "Town/Village")).toHaveText("City");
    await expect(typeSelect(page, "Region")).toHaveText("State");
    for (const column of ["PLZ", "Asking Price", "Notes"]) await expect(typeSelect(page, column)).toHaveText("Ignore");
    const plz = page.getByTestId("mapping-row").filter({ has: page.getByRole("rowheader", { name: "PLZ", exact: true }) });
    await expect(plz.getByTestId("mapping-detected")).toContainText("Unknown");
    // Numbers of the sheet are read as the sheet shows them.
    await expect(plz.getByTestId("mapping-samples")).toContainText("98103");
    await expect(plz.getByTestId("mapping-samples").getByRole("listitem")).toHaveCount(3);

    await expect(confirm).toBeDisabled();
    await expect(hint).toBeVisible();
    await expect(hint).toHaveText(`${HINT_PREFIX}ZIP Code.`);
    await expect(confirm).toHaveAccessibleDescription(`${HINT_PREFIX}ZIP Code.`);
    await expect(page.getByTestId("credits-note")).toHaveCount(0);
  });

  await test.step("a type given to another column is taken from the column that had it", async () => {
    await chooseType(page, "Notes", "City");
    await expect(typeSelect(page, "Notes")).toHaveText("City");
    await expect(typeSelect(page, "Town/Village")).toHaveText("Ignore");
    await expect(hint).toHaveText(`${HINT_PREFIX}ZIP Code.`); // City is still mapped, to Notes now

    await chooseType(page, "Town/Village", "City");
    await expect(typeSelect(page, "Town/Village")).toHaveText("City");
    await expect(typeSelect(page, "Notes")).toHaveText("Ignore");

    await chooseType(page, "Region", "Ignore");
    await expect(hint).toHaveText(`${HINT_PREFIX}State, ZIP Code.`);
    await chooseType(page, "Region", "State");
    await expect(hint).toHaveText(`${HINT_PREFIX}ZIP Code.`);
    await expect(confirm).toBeDisabled();
  });

  await test.step("mapping PLZ as the ZIP code makes the mapping valid", async () => {
    await chooseType(page, "PLZ", "ZIP Code");
    await expect(typeSelect(page, "PLZ")).toHaveText("ZIP Code");
    await expect(confirm).toBeEnabled();
    await expect(hint).toHaveText("The address columns are mapped.");
    await expect(hint).toHaveClass(/sr-only/);
    await expect(page.getByTestId("credits-note")).toContainText("up to 4 credits for this file. You have 100 credits.");
  });

  await test.step("confirm sends the corrected mapping; the job completes", async () => {
    const creating = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === "/api/jobs");
    await confirm.click();
    const body = (await creating).postDataJSON() as { uploadId: number; mapping: Record<string, string> };
    expect(body.uploadId).toBeGreaterThan(0);
    expect(body.mapping).toEqual({
      Property: "address",
      "Town/Village": "city",
      Region: "state",
      PLZ: "zip",
      "Asking Price": "ignore",
      Notes: "ignore",
    });
    await expect(toastTitle(page, "Upload Successful")).toBeVisible();
    await expect(toasts(page)).toContainText(`${fileName}: 4 properties queued for processing.`);
    await dismissToast(page);
    const row = jobRow(page, fileName);
    await expectCompleted(row);
    await expect(row.getByTestId("job-processed")).toHaveText("4 / 4");
  });

  await test.step("the details show three valued homes and one not found; the status filter narrows the rows", async () => {
    const dialog = await openDetails(page, jobRow(page, fileName));
    await expect(summaryItem(dialog, "Successful")).toHaveText("3");
    await expect(summaryItem(dialog, "Failed")).toHaveText("1");
    await expect(summaryItem(dialog, "Success Rate")).toHaveText("75%");
    await expect(summaryItem(dialog, "Credits Used")).toHaveText("3");
    await expect(dialog.getByTestId("result-row")).toHaveCount(4);

    const filter = dialog.getByRole("combobox", { name: "Status" });
    await filter.click();
    await page.getByRole("option", { name: "Failed", exact: true }).click();
    await expect(dialog.getByTestId("result-row")).toHaveCount(1);
    await expect(dialog.getByTestId("results-pagination")).toContainText("Showing 1–1 of 1");
    const [failed] = await resultCells(dialog);
    expect(failed[0]).toBe("5");
    expect(failed[1]).toContain("100 Biscayne Blvd");
    expect(failed[2]).toBe("Failed");
    expect(failed[3]).toBe("—");
    expect(failed[13]).toContain("Outside our markets"); // the reason
    expect(failed[13]).toContain("We have no sales near 33132");

    await filter.click();
    await page.getByRole("option", { name: "Success", exact: true }).click();
    await expect(dialog.getByTestId("result-row")).toHaveCount(3);
    const valued = await resultCells(dialog);
    expect(valued.map((c) => c[1])).toEqual([maple.formatted, spring.formatted, denver.formatted]);
    for (const c of valued) expect(c[3]).toMatch(/^\$\d{1,3}(,\d{3})+$/);
    await closeDetails(page, dialog);
  });

  await test.step("only the three valued homes were charged", async () => {
    await page.reload();
    await expect(page.getByTestId("credits-balance")).toContainText("97 credits");
  });
});

test("cancel a queued job from the queue, then retry it: it completes, and its 55 rows page by 50", async ({
  page,
  request,
}) => {
  const session = await registerByApi(request, "batch-cancel", "Cal Cancel");
  // Another account's jobs keep the valuation queue busy for a few seconds (they cost nothing: no row values).
  const neighbour = await registerByApi(request, "batch-queue-filler", "Queue Filler");
  const fileName = "cancel-me.csv";
  const homes = DEMO_ROWS.slice(0, 3);
  const rows: (string | number)[][] = [["Address", "City", "State", "ZIP"]];
  for (const h of homes) rows.push([h.street, h.city, h.state, h.zip]);
  for (let i = 0; i < 52; i++) {
    const n = nowhere(300 + i);
    rows.push([n.street, n.city, n.state, n.zip]);
  }

  await openSignedIn(page, session.token, "/batch-upload");
  await page.getByTestId("file-input").setInputFiles(csvFile(fileName, rows));
  await expect(page.getByTestId("mapping-row-count")).toHaveText("55 properties");
  const confirm = page.getByRole("button", { name: "Confirm Mapping & Process" });
  await expect(confirm).toBeEnabled();

  const row = jobRow(page, fileName);
  let jobId = 0;
  await test.step("confirm behind a busy queue: the job waits, pending, and Cancel stops it", async () => {
    await fillQueue(request, neighbour.token, 80);
    const created = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/api/jobs");
    await confirm.click();
    const res = await created;
    expect(res.status()).toBe(201);
    jobId = ((await res.json()) as { id: number }).id;
    await expect(toastTitle(page, "Upload Successful")).toBeVisible();
    await dismissToast(page);
    await expect(statusBadge(row)).toHaveText("Pending");
    await expect(row.getByTestId("job-progress")).toContainText("Waiting to start");
    await expect(row.getByRole("button", { name: "Retry" })).toHaveCount(0);

    await row.getByRole("button", { name: "Cancel" }).click();
    await expect(toastTitle(page, "Job Cancelled")).toBeVisible();
    await expect(toasts(page)).toContainText(`${fileName} was cancelled.`);
    await dismissToast(page);
    await expect(statusBadge(row)).toHaveText("Cancelled");
    await expect(row.getByRole("button", { name: "Cancel" })).toHaveCount(0);
    await expect(row.getByRole("button", { name: "Retry" })).toBeVisible();
    // Nothing valued, nothing to download.
    await expect(row.getByRole("button", { name: "Download CSV" })).toHaveCount(0);

    const job = await jobById(request, session.token, jobId);
    expect(job).toMatchObject({ status: "cancelled", processedProperties: 0, creditsUsed: 0 });
    expect(await creditsOf(request, session.token)).toBe(100);
    // The queue keeps showing it cancelled when it is read again (it is polled every 3 s).
    await page.waitForResponse((r) => new URL(r.url()).pathname === "/api/jobs" && r.request().method() === "GET");
    await expect(statusBadge(row)).toHaveText("Cancelled");
  });

  await test.step("a cancelled job cannot be cancelled again", async () => {
    const res = await request.post(`/api/jobs/${jobId}/cancel`, { headers: { Authorization: `Bearer ${session.token}` } });
    expect(res.status()).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe("job_not_cancellable");
  });

  await test.step("Retry queues it again and it completes: 55 / 55, three valued", async () => {
    await row.getByRole("button", { name: "Retry" }).click();
    await expect(toastTitle(page, "Job Restarted")).toBeVisible();
    await expect(toasts(page)).toContainText(`${fileName} is queued again.`);
    await dismissToast(page);
    await expectCompleted(row);
    await expect(row.getByTestId("job-processed")).toHaveText("55 / 55");
    await expect(row.getByRole("button", { name: "Retry" })).toHaveCount(0);
    await expect(row.getByRole("button", { name: "Download CSV" })).toBeVisible();
    expect(await jobById(request, session.token, jobId)).toMatchObject({
      status: "completed",
      processedProperties: 55,
      successfulProperties: 3,
      failedProperties: 52,
      creditsUsed: 3,
    });
  });

  await test.step("the details page the 55 rows 50 at a time", async () => {
    const dialog = await openDetails(page, row);
    await expect(summaryItem(dialog, "Successful")).toHaveText("3");
    await expect(summaryItem(dialog, "Failed")).toHaveText("52");
    await expect(dialog.getByTestId("result-row")).toHaveCount(50);
    await expect(dialog.getByTestId("results-pagination")).toContainText("Showing 1–50 of 55");
    await expect(dialog.getByTestId("results-page")).toHaveText("Page 1 of 2");
    await expect(dialog.getByRole("button", { name: "Previous page" })).toBeDisabled();
    const first = await resultCells(dialog);
    expect(first.slice(0, 3).map((c) => c[1])).toEqual(homes.map((h) => h.formatted));

    await dialog.getByRole("button", { name: "Next page" }).click();
    await expect(dialog.getByTestId("results-page")).toHaveText("Page 2 of 2");
    await expect(dialog.getByTestId("results-pagination")).toContainText("Showing 51–55 of 55");
    await expect(dialog.getByTestId("result-row")).toHaveCount(5);
    await expect(dialog.getByRole("button", { name: "Next page" })).toBeDisabled();
    const second = await resultCells(dialog);
    expect(second.map((c) => c[0])).toEqual(["52", "53", "54", "55", "56"]);
    for (const c of second) expect(c[2]).toBe("Failed");

    await dialog.getByRole("button", { name: "Previous page" }).click();
    await expect(dialog.getByTestId("results-page")).toHaveText("Page 1 of 2");
    await expect(dialog.getByTestId("result-row")).toHaveCount(50);

    // A filter starts again at page 1.
    await dialog.getByRole("combobox", { name: "Status" }).click();
    await page.getByRole("option", { name: "Failed", exact: true }).click();
    await expect(dialog.getByTestId("results-pagination")).toContainText("Showing 1–50 of 52");
    await dialog.getByRole("button", { name: "Next page" }).click();
    await expect(dialog.getByTestId("results-pagination")).toContainText("Showing 51–52 of 52");
    await expect(dialog.getByTestId("result-row")).toHaveCount(2);
    await closeDetails(page, dialog);
  });

  await test.step("only the three valued homes were charged", async () => {
    await page.reload();
    await expect(page.getByTestId("credits-balance")).toContainText("97 credits");
  });
});

test("the file checks: wrong type, too large, empty, header only, over the plan's limit; Back to Upload", async ({
  page,
  request,
}, testInfo) => {
  const session = await registerByApi(request, "batch-checks", "Val Checks");
  const previews: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/jobs/preview") previews.push(r.url());
  });
  await openSignedIn(page, session.token, "/batch-upload");
  await expect(page.getByTestId("jobs-empty")).toBeVisible();
  const input = page.getByTestId("file-input");

  await test.step("a PDF is refused on the spot: 'Invalid File Type'", async () => {
    await input.setInputFiles({ name: "listing.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4\n%âãÏÓ\n") });
    await expect(toastTitle(page, "Invalid File Type")).toBeVisible();
    await expect(toasts(page)).toContainText("Please upload a CSV or Excel file");
    expect(previews).toEqual([]);
    await expect(page.getByTestId("mapping-screen")).toHaveCount(0);
  });

  await test.step("a file over 50MB is refused on the spot: 'File Too Large'", async () => {
    const big = testInfo.outputPath("huge.csv");
    writeFileSync(big, "Address,City,State,ZIP\r\n");
    truncateSync(big, 50 * 1024 * 1024 + 1); // sparse: costs no disk
    await input.setInputFiles(big);
    await expect(toastTitle(page, "File Too Large")).toBeVisible();
    await expect(toasts(page)).toContainText("Please upload a file smaller than 50MB");
    expect(previews).toEqual([]);
  });

  await test.step("a .csv that is not text reaches the server: 415 'Invalid File Type'", async () => {
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/jobs/preview");
    const exe = Buffer.concat([Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00]), Buffer.from("This program cannot be run in DOS mode.")]);
    await input.setInputFiles({ name: "renamed.csv", mimeType: "text/csv", buffer: exe });
    expect((await answered).status()).toBe(415);
    await expect(toastTitle(page, "Invalid File Type")).toBeVisible();
    await expect(toasts(page)).toContainText("Please upload a CSV or Excel file");
    await expect(page.getByTestId("mapping-screen")).toHaveCount(0);
  });

  await test.step("an empty CSV: the server's 'CSV file is empty'", async () => {
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/jobs/preview");
    await input.setInputFiles({ name: "empty.csv", mimeType: "text/csv", buffer: Buffer.alloc(0) });
    expect((await answered).status()).toBe(400);
    await expect(toastTitle(page, "Empty File")).toBeVisible();
    await expect(toasts(page)).toContainText("CSV file is empty");
    await expect(page.getByTestId("mapping-screen")).toHaveCount(0);
  });

  await test.step("a CSV with a header and no rows: 'Empty File'", async () => {
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/jobs/preview");
    await input.setInputFiles(csvFile("header-only.csv", [["Address", "City", "State", "ZIP"]]));
    expect((await answered).status()).toBe(400);
    await expect(toastTitle(page, "Empty File")).toBeVisible();
    await expect(toasts(page)).toContainText("The uploaded file contains no data rows");
    await expect(page.getByTestId("mapping-screen")).toHaveCount(0);
  });

  await test.step("101 rows on the Free plan: the server stops reading at the plan's limit, 'Too Many Properties'", async () => {
    const rows: string[][] = [["Full Address"]];
    for (let i = 0; i < 101; i++) rows.push([`${100 + i} Biscayne Blvd, Miami, FL 33132`]);
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/jobs/preview");
    await input.setInputFiles(csvFile("too-many.csv", rows));
    expect((await answered).status()).toBe(400);
    await expect(toastTitle(page, "Too Many Properties")).toBeVisible();
    await expect(toasts(page)).toContainText(
      "Your Free plan allows up to 100 properties per upload; this file has more than 100 rows. Split the file or upgrade your plan.",
    );
    await expect(page.getByTestId("mapping-screen")).toHaveCount(0);
  });

  await test.step("Back to Upload returns to the drop zone without creating a job", async () => {
    await input.setInputFiles(csvFile("one.csv", [["Full Address"], ["7006 Maple Rd, Seattle, WA 98103"]]));
    await expect(page.getByTestId("mapping-row-count")).toHaveText("1 property");
    await page.getByRole("button", { name: "Back to Upload" }).click();
    await expect(page.getByTestId("mapping-screen")).toHaveCount(0);
    await expect(page.getByTestId("drop-zone")).toBeFocused();
    await expect(page.getByTestId("jobs-empty")).toBeVisible();
    expect(await listJobs(request, session.token)).toEqual([]);
    // The same file can be chosen again at once.
    await input.setInputFiles(csvFile("one.csv", [["Full Address"], ["7006 Maple Rd, Seattle, WA 98103"]]));
    await expect(page.getByTestId("mapping-row-count")).toHaveText("1 property");
    await expect(page.getByRole("button", { name: "Confirm Mapping & Process" })).toBeEnabled();
  });
});

test("the public batch API: idempotent upload with an API key, status, download, and the job in the dashboard queue", async ({
  page,
  request,
}) => {
  const session = await registerByApi(request, "batch-public", "Pat Public");
  const key = await createKey(request, session.token, "Nightly import", 60);
  const headers = { "x-api-key": key.keyValue };
  const fileName = "nightly.csv";
  const homes = DEMO_ROWS.slice(0, 3);
  const miami = nowhere();
  const csv = toCsv([
    ["Address", "City", "State", "ZIP"],
    ...homes.map((h) => [h.street, h.city, h.state, h.zip]),
    [miami.street, miami.city, miami.state, miami.zip],
  ]);
  const file = { name: fileName, mimeType: "text/csv", buffer: Buffer.from(csv) };
  const idempotencyKey = `nightly-${Date.now()}-${Math.random().toString(36).slice(2)}`;

  interface Status {
    jobId: number;
    status: string;
    progress: { total: number; processed: number; successful: number; failed: number };
    results: { line: number; fullAddress: string; status: string; estimatedValue: number | null; error: string }[];
    downloadUrl: string;
  }

  let jobId = 0;
  await test.step("without a key the upload is refused", async () => {
    const res = await request.post("/api/batch/upload", { multipart: { file } });
    expect(res.status()).toBe(401);
  });

  await test.step("upload with an Idempotency-Key: 202 with the job", async () => {
    const res = await request.post("/api/batch/upload", {
      headers: { ...headers, "Idempotency-Key": idempotencyKey },
      multipart: { file },
    });
    expect(res.status(), await res.text()).toBe(202);
    const body = (await res.json()) as Status;
    expect(body.jobId).toBeGreaterThan(0);
    expect(body.progress.total).toBe(4);
    expect(["pending", "processing", "completed"]).toContain(body.status);
    expect(body.downloadUrl).toBe(`/api/batch/download/${body.jobId}`);
    jobId = body.jobId;
  });

  await test.step("the same upload again answers 200 with the same job; another file with that key is a 409", async () => {
    const again = await request.post("/api/batch/upload", {
      headers: { ...headers, "Idempotency-Key": idempotencyKey },
      multipart: { file },
    });
    expect(again.status(), await again.text()).toBe(200);
    expect(((await again.json()) as Status).jobId).toBe(jobId);

    const other = await request.post("/api/batch/upload", {
      headers: { ...headers, "Idempotency-Key": idempotencyKey },
      multipart: { file: { name: "other.csv", mimeType: "text/csv", buffer: Buffer.from(toCsv([["Full Address"], [`${homes[0].formatted}`]])) } },
    });
    expect(other.status()).toBe(409);
    expect(((await other.json()) as { code: string }).code).toBe("idempotency_key_reused");
    // Only one job was created.
    expect((await listJobs(request, session.token)).map((j) => j.id)).toEqual([jobId]);
  });

  await test.step("the status is polled until completed, with each row's result", async () => {
    await expect
      .poll(
        async () => {
          const res = await request.get(`/api/batch/status/${jobId}`, { headers });
          expect(res.status()).toBe(200);
          return ((await res.json()) as Status).status;
        },
        { timeout: JOB_DONE, intervals: [250, 500, 1000] },
      )
      .toBe("completed");
    const res = await request.get(`/api/batch/status/${jobId}`, { headers });
    const body = (await res.json()) as Status;
    expect(body.progress).toEqual({ total: 4, processed: 4, successful: 3, failed: 1 });
    expect(body.results.map((r) => r.fullAddress).slice(0, 3)).toEqual(homes.map((h) => h.formatted));
    expect(body.results.map((r) => r.status)).toEqual(["success", "success", "success", "failed"]);
    for (const r of body.results.slice(0, 3)) expect(r.estimatedValue).toBeGreaterThan(0);
    expect(body.results[3].estimatedValue).toBeNull();
    expect(body.results[3].error).not.toBe("");
  });

  await test.step("the results download as CSV", async () => {
    const res = await request.get(`/api/batch/download/${jobId}`, { headers });
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("text/csv");
    expect(res.headers()["content-disposition"]).toContain(`batch-${jobId}-results.csv`);
    const rows = parseCsv(await res.text()).filter((r) => r.some((c) => c !== ""));
    expect(rows[0].slice(0, 5)).toEqual(["Line", "Address", "Full Address", "Status", "Estimated Value"]);
    expect(rows).toHaveLength(1 + 4);
    expect(rows.slice(1).map((r) => r[3])).toEqual(["success", "success", "success", "failed"]);
    // Another account's key cannot read it.
    const stranger = await registerByApi(request, "batch-stranger", "Stan Stranger");
    const strangerKey = await createKey(request, stranger.token, "Stranger", 60);
    const denied = await request.get(`/api/batch/status/${jobId}`, { headers: { "x-api-key": strangerKey.keyValue } });
    expect(denied.status()).toBe(404);
  });

  await test.step("the dashboard's Processing Queue shows the job with its key as the source", async () => {
    await openSignedIn(page, session.token, "/batch-upload");
    const row = jobRow(page, fileName);
    await expect(row).toBeVisible();
    await expect(row).toContainText("API key: Nightly import");
    await expect(statusBadge(row)).toHaveText("Completed");
    await expect(row.getByTestId("job-processed")).toHaveText("4 / 4");
    const dialog = await openDetails(page, row);
    await expect(summaryItem(dialog, "Source")).toHaveText("API key: Nightly import");
    await expect(summaryItem(dialog, "Credits Used")).toHaveText("3");
    await expect(dialog.getByTestId("result-row")).toHaveCount(4);
    await closeDetails(page, dialog);
    await expect(page.getByTestId("credits-balance")).toContainText("97 credits");
  });
});

test("the public batch API takes a column mapping for headers it cannot detect", async ({ request }) => {
  const session = await registerByApi(request, "batch-mapping", "Max Mapping");
  const key = await createKey(request, session.token, "Mapper", 60);
  const headers = { "x-api-key": key.keyValue };
  const [maple] = DEMO_ROWS;
  const file = csvFile("odd-columns.csv", [
    ["Site", "Town", "Region", "PLZ"],
    [maple.street, maple.city, maple.state, maple.zip],
  ]);

  // Without a mapping the detected one lacks the ZIP code: 400, with what was detected to correct.
  const refused = await request.post("/api/batch/upload", { headers, multipart: { file } });
  expect(refused.status()).toBe(400);
  const err = (await refused.json()) as { code: string; field: string; detectedMapping: Record<string, string> };
  expect(err).toMatchObject({ code: "invalid_mapping", field: "mapping" });
  expect(err.detectedMapping).toMatchObject({ Site: "address", Town: "city", Region: "state", PLZ: "ignore" });

  const mapping = JSON.stringify({ ...err.detectedMapping, PLZ: "zip" });
  const res = await request.post("/api/batch/upload", { headers, multipart: { file, mapping } });
  expect(res.status(), await res.text()).toBe(202);
  const { jobId } = (await res.json()) as { jobId: number };
  await expect
    .poll(async () => ((await (await request.get(`/api/batch/status/${jobId}`, { headers })).json()) as { status: string }).status, {
      timeout: JOB_DONE,
      intervals: [250, 500, 1000],
    })
    .toBe("completed");
  const status = (await (await request.get(`/api/batch/status/${jobId}`, { headers })).json()) as {
    progress: { successful: number };
    results: { fullAddress: string; status: string }[];
  };
  expect(status.progress.successful).toBe(1);
  expect(status.results[0]).toMatchObject({ fullAddress: maple.formatted, status: "success" });
  expect(await creditsOf(request, session.token)).toBe(99);
});
