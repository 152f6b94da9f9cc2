import { readFileSync } from "node:fs";
import { expect, fillLookup, registerThroughUI, test, toastTitle, uniqueEmail } from "./fixtures";
import { checkAtBothSizes } from "./walk";

// The server under test starts on an empty development database, so it generates the demo market (seed 1).
// 7006 Maple Rd, Seattle 98103 is one of its homes with several recorded sales.
const DEMO_HOME = { address: "7006 Maple Road", city: "Seattle", state: "Washington", zip: "98103" };

test("looking up a demo home shows its valuation and costs one credit", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Lee Lookup", email: uniqueEmail("lookup"), password: "password-123" });
  await expect(page.getByTestId("sample-result")).toBeVisible();
  await expect(page.getByTestId("sample-badge")).toHaveText("Sample result");
  await expect(page.getByTestId("credits-balance")).toContainText("100 credits");

  await fillLookup(page, DEMO_HOME);
  await page.getByRole("button", { name: "Get Property Valuation" }).click();

  const result = page.getByTestId("valuation-result");
  await expect(result).toBeVisible();
  await expect(page.getByTestId("sample-result")).toBeHidden();
  await expect(result).toContainText("7006 MAPLE RD");
  await expect(page.getByTestId("demo-badge")).toBeVisible();
  await expect(page.getByTestId("estimated-value")).toHaveText(/^\$\d{1,3}(,\d{3})+$/);
  await expect(page.getByTestId("value-range")).toContainText("$");
  await expect(page.getByTestId("confidence-badge")).toContainText(/\d+%/);
  await expect(page.getByTestId("confidence-badge")).toContainText(/(High|Medium|Low) Confidence/); // the level, from the one mapping
  await expect(page.getByTestId("comparables-table").locator("tbody tr").first()).toBeVisible();
  await expect(page.getByTestId("price-history")).toBeVisible();
  await expect(page.getByTestId("price-history-list").locator("tbody tr")).toHaveCount(3);
  await expect(page.getByTestId("credits-balance")).toContainText("99 credits");
  // Why this value (issue 34): the sales comparison grid, subject beside its best comparables with their adjustments
  // in dollars, and the largest drivers of the model's value, each a signed dollar amount.
  const grid = result.getByTestId("sales-grid");
  await expect(grid).toBeVisible();
  await expect(grid.getByTestId("adjustment").first()).toHaveText(/^([+−]\$[\d,]+|\$0)$/);
  await expect(result.getByTestId("comparables-indicate")).toContainText("$");
  const drivers = result.getByTestId("value-drivers");
  await expect(drivers).toBeVisible();
  // The typical home's value, then the drivers, each signed.
  await expect(drivers.getByTestId("driver-amount").first()).toHaveText(/^\$[\d,]+$/);
  await expect(drivers.getByTestId("driver-amount").nth(1)).toHaveText(/^([+−]\$[\d,]+|\$0)$/);
  // Rent evidence (issue 35): the rentals the rent estimate was made from, and the gross yield it gives.
  await expect(result.getByTestId("gross-yield")).toHaveText(/^\d+(\.\d+)?% a year$/);
  await expect(result.getByTestId("rental-comparables-table").locator("tbody tr").first()).toBeVisible();
  await expect(result.getByTestId("rental-weight").first()).toContainText("of the estimate");
  await checkAtBothSizes(page, "lookup-result-grid");

  // The report downloads as CSV named property-report-<timestamp>.csv and reads cleanly.
  const downloading = page.waitForEvent("download");
  await result.getByRole("button", { name: "Download Report" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^property-report-\d+\.csv$/);
  const csv = readFileSync(await download.path(), "utf8");
  expect(csv).toContain("Estimated Value (USD),");
  expect(csv).toContain("7006 MAPLE RD");
  expect(csv).toContain("Comparable sales");
  await expect(toastTitle(page, "Report Downloaded")).toBeVisible();
});

// The demo market's showcase home (internal/demo: the same house on every day) resold last month far above what its
// records and neighbours say: its estimate follows that sale, and the card says that the comparables disagree.
const SHOWCASE_HOME = { address: "6789 Taylor Dr", city: "Seattle", state: "Washington", zip: "98103" };

test("a home whose own sale disagrees with its comparables is valued with a warning that says by how much", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Dee Sagree", email: uniqueEmail("disagree"), password: "password-123" });
  await fillLookup(page, SHOWCASE_HOME);
  await page.getByRole("button", { name: "Get Property Valuation" }).click();

  const result = page.getByTestId("valuation-result");
  await expect(result).toContainText("6789 TAYLOR DR");
  const warnings = result.getByTestId("valuation-warnings");
  await expect(warnings).toContainText(
    /The evidence disagrees: this estimate is \d+% above what its comparable sales indicate \(\$[\d,]+\), because it leans on the home's own sale of \$[\d,]+ in \w+ \d{4}, and the model alone says \$[\d,]+\./,
  );
  // The figures the warning names are the card's: the comparables' value is the grid's indicated value.
  const indicated = (await result.getByTestId("comparables-indicate").textContent()) ?? "";
  const named = /indicate \((\$[\d,]+)\)/.exec((await warnings.textContent()) ?? "")?.[1];
  expect(named, "the warning names the comparables' value").toBeTruthy();
  expect(indicated).toContain(named!);
  await checkAtBothSizes(page, "lookup-disagreement");
});

test("an address outside the markets loaded says so, names its ZIP code and costs nothing", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Nia Nowhere", email: uniqueEmail("notfound"), password: "password-123" });
  await fillLookup(page, { address: "100 Biscayne Blvd", city: "Miami", state: "Florida", zip: "33101" });
  await page.getByRole("button", { name: "Get Property Valuation" }).click();
  await expect(page.getByTestId("area-not-covered-result")).toBeVisible();
  await expect(page.getByTestId("area-not-covered-message")).toHaveText("We have no sales near 33101");
  await expect(page.getByTestId("area-not-covered-result")).toContainText("No credit was used.");
  await page.reload();
  await expect(page.getByTestId("credits-balance")).toContainText("100 credits");
});

test("the lookup form checks its fields", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Val Idate", email: uniqueEmail("validate"), password: "password-123" });
  await page.getByRole("button", { name: "Get Property Valuation" }).click();
  await expect(page.getByText("Address is required")).toBeVisible();
  await expect(page.getByText("City is required")).toBeVisible();
  await expect(page.getByText("State is required")).toBeVisible();
  await expect(page.getByText("ZIP code must be at least 5 characters")).toBeVisible();
});
