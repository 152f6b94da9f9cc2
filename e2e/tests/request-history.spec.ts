import { readFileSync } from "node:fs";
import type { Page, Request } from "@playwright/test";
import { expect, test, toastTitle, toasts } from "./fixtures";
import {
  callPublic,
  createKey,
  creditsOf,
  dashboardLookup,
  DEMO_FORMATTED,
  DEMO_HOME,
  NEIGHBOUR_FORMATTED,
  NEIGHBOUR_HOME,
  NOWHERE_HOME,
  openSignedIn,
  parseCsv,
  registerByApi,
} from "./public-api";

const CSV_HEADER = [
  "Timestamp",
  "Property",
  "Valuation",
  "Status",
  "Status Code",
  "Response Time (ms)",
  "API Key",
  "Endpoint",
  "Service",
  "Credits Used",
  "Request ID",
];

/** A key name a spreadsheet would run as a formula if the export did not protect it. */
const FORMULA_KEY = '=HYPERLINK("http://evil.example/","Click")';
const FIELD_KEY = "Field app";

/** Waits for the history read with exactly these filter parameters (page 1). */
function historyRequest(page: Page, filters: { search?: string; apiKey?: string; status?: string }) {
  return page.waitForRequest((r: Request) => {
    const url = new URL(r.url());
    if (url.pathname !== "/api/usage/history" || url.searchParams.get("limit") !== "50") return false;
    const p = url.searchParams;
    return (
      p.get("page") === "1" &&
      p.get("search") === (filters.search ?? null) &&
      p.get("apiKey") === (filters.apiKey ?? null) &&
      p.get("status") === (filters.status ?? null)
    );
  });
}

async function choose(page: Page, label: string, option: string) {
  await page.getByLabel(label, { exact: true }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

test("Request History filters on the server, shows details, retries failed lookups and exports safe CSV", async ({
  page,
  request,
}) => {
  const session = await registerByApi(request, "history", "Hana History");
  const field = await createKey(request, session.token, FIELD_KEY, 60);
  const formula = await createKey(request, session.token, FORMULA_KEY, 60);

  // Five calls, oldest first: three with the field key (one of them not found), one with the formula key and one
  // from the dashboard.
  for (const [key, home, status] of [
    [field.keyValue, DEMO_HOME, 200],
    [field.keyValue, NEIGHBOUR_HOME, 200],
    [field.keyValue, NOWHERE_HOME, 404],
    [formula.keyValue, DEMO_HOME, 200],
  ] as const) {
    expect((await callPublic(request, key, home)).status()).toBe(status);
  }
  expect((await dashboardLookup(request, session.token, NEIGHBOUR_HOME)).status()).toBe(200);

  await openSignedIn(page, session.token, "/history");
  await expect(page.getByRole("heading", { level: 1, name: "Request History" })).toBeVisible();
  await expect(page.getByTestId("credits-balance")).toContainText("96 credits");
  const rows = page.getByTestId("history-row");
  const pagination = page.getByTestId("history-pagination");
  await expect(rows).toHaveCount(5);
  await expect(pagination).toContainText("Showing 1–5 of 5");
  await expect(rows.nth(0)).toContainText(NEIGHBOUR_FORMATTED);
  await expect(rows.nth(0)).toContainText("Dashboard");
  await expect(rows.nth(1)).toContainText(FORMULA_KEY);
  await expect(rows.nth(2)).toContainText("Error404");
  // Only the failed lookup can be retried.
  await expect(page.getByTestId("history-table").getByRole("button", { name: "Retry" })).toHaveCount(1);
  await expect(rows.nth(2).getByRole("button", { name: "Retry" })).toBeVisible();

  await test.step("search by address text", async () => {
    const read = historyRequest(page, { search: "7010" });
    await page.getByLabel("Search Address").fill("7010");
    await page.getByRole("button", { name: "Search" }).click();
    await read;
    await expect(rows).toHaveCount(2);
    await expect(pagination).toContainText("Showing 1–2 of 2");
    for (const row of await rows.all()) await expect(row).toContainText(NEIGHBOUR_FORMATTED);
  });

  await test.step("narrow to one key", async () => {
    const read = historyRequest(page, { search: "7010", apiKey: FIELD_KEY });
    await choose(page, "API Key", FIELD_KEY);
    await page.getByRole("button", { name: "Search" }).click();
    await read;
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(NEIGHBOUR_FORMATTED);
    await expect(rows.first()).toContainText(FIELD_KEY);
  });

  await test.step("dashboard calls only", async () => {
    const read = historyRequest(page, { apiKey: "dashboard" });
    await page.getByLabel("Search Address").fill("");
    await choose(page, "API Key", "Dashboard");
    await page.getByRole("button", { name: "Search" }).click();
    await read;
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("Dashboard");
    await expect(rows.first()).toContainText(NEIGHBOUR_FORMATTED);
  });

  await test.step("successful calls only: none can be retried", async () => {
    const read = historyRequest(page, { status: "success" });
    await choose(page, "API Key", "All Keys");
    await choose(page, "Status", "Success");
    await page.getByRole("button", { name: "Search" }).click();
    await read;
    await expect(rows).toHaveCount(4);
    await expect(page.getByTestId("history-table").getByRole("button", { name: "Retry" })).toHaveCount(0);
  });

  await test.step("failed calls: retrying the not-found lookup fails again and is recorded, at no cost", async () => {
    const read = historyRequest(page, { status: "error" });
    await choose(page, "Status", "Error");
    await page.getByRole("button", { name: "Search" }).click();
    await read;
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("Error404");
    await expect(rows.first()).toContainText(FIELD_KEY);
    await expect(rows.first()).toContainText("100 Biscayne Blvd");

    await rows.first().getByRole("button", { name: "Retry" }).click();
    await expect(toastTitle(page, "Lookup Failed")).toBeVisible();
    await expect(toasts(page)).toContainText("We have no sales near 33101");
    // The retry went through the dashboard and is a new row of the filtered history.
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText("Dashboard");
    await expect(rows.first()).toContainText("Error404");
    expect(await creditsOf(request, session.token)).toBe(96);
  });

  await test.step("the details dialog shows every recorded field", async () => {
    await choose(page, "Status", "All");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(rows).toHaveCount(6);
    const formulaRow = rows.filter({ hasText: FORMULA_KEY });
    await formulaRow.getByRole("button", { name: "View details" }).click();
    const details = page.getByRole("dialog", { name: "Request details" });
    await expect(details).toBeVisible();
    await expect(details).toContainText(DEMO_FORMATTED);
    await expect(details).toContainText("GET /api/v1/property/valuation");
    await expect(details).toContainText("Property valuation");
    await expect(details).toContainText(FORMULA_KEY);
    await expect(details).toContainText("Success200");
    await expect(details.getByTestId("history-request-data")).toContainText('"address": "7006 Maple Rd"');
    await expect(details.getByTestId("history-request-data")).toContainText('"zip": "98103"');
    await page.keyboard.press("Escape");
    await expect(details).toBeHidden();
  });

  await test.step("the CSV export holds the rows shown, with formula-like cells protected", async () => {
    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^usage-history-\d+\.csv$/);
    await expect(toastTitle(page, "Export Started")).toBeVisible();
    await expect(toasts(page)).toContainText("6 requests saved as usage-history-");

    const text = readFileSync(await download.path(), "utf8");
    const [header, ...data] = parseCsv(text);
    expect(header).toEqual(CSV_HEADER);
    expect(data).toHaveLength(6);
    const col = (name: string) => CSV_HEADER.indexOf(name);
    const formulaLine = data.find((r) => r[col("API Key")].includes("HYPERLINK"));
    expect(formulaLine, "the formula key's row").toBeTruthy();
    // The apostrophe makes a spreadsheet show the text instead of running it.
    expect(formulaLine![col("API Key")]).toBe(`'${FORMULA_KEY}`);
    expect(formulaLine![col("Property")]).toBe(DEMO_FORMATTED);
    expect(formulaLine![col("Status")]).toBe("Success");
    expect(formulaLine![col("Status Code")]).toBe("200");
    expect(formulaLine![col("Endpoint")]).toBe("GET /api/v1/property/valuation");
    expect(formulaLine![col("Credits Used")]).toBe("1");
    for (const row of data) {
      for (const cell of row) expect(cell, "no cell may start like a formula").not.toMatch(/^[=+@\t\r]/);
    }
    const failed = data.filter((r) => r[col("Status Code")] === "404");
    expect(failed).toHaveLength(2);
    for (const r of failed) {
      expect(r[col("Status")]).toBe("Error");
      expect(r[col("Credits Used")]).toBe("0");
      expect(r[col("Valuation")]).toBe("");
    }
    expect(data.filter((r) => r[col("API Key")] === "Dashboard")).toHaveLength(2);
  });

  await test.step("a search with no match offers to clear the filters", async () => {
    await page.getByLabel("Search Address").fill("No Such Street");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page.getByText("No matching requests")).toBeVisible();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(rows).toHaveCount(6);
    await expect(page.getByLabel("Search Address")).toHaveValue("");
  });
});

test("Request History pages through more than 50 requests", async ({ page, request }) => {
  const session = await registerByApi(request, "pages", "Pat Pages");
  for (let batch = 0; batch < 11; batch++) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => dashboardLookup(request, session.token)));
    expect(answers.map((r) => r.status())).toEqual(Array(5).fill(200));
  }

  await openSignedIn(page, session.token, "/history");
  const rows = page.getByTestId("history-row");
  const nav = page.getByRole("navigation", { name: "History pages" });
  await expect(rows).toHaveCount(50);
  await expect(nav).toContainText("Showing 1–50 of 55");
  await expect(nav.getByRole("button", { name: "Page 1" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("button", { name: "Previous page" })).toBeDisabled();

  await nav.getByRole("button", { name: "Next page" }).click();
  await expect(nav).toContainText("Showing 51–55 of 55");
  await expect(rows).toHaveCount(5);
  await expect(nav.getByRole("button", { name: "Page 2" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("button", { name: "Next page" })).toBeDisabled();

  await nav.getByRole("button", { name: "Page 1" }).click();
  await expect(nav).toContainText("Showing 1–50 of 55");
  await expect(rows).toHaveCount(50);
});
