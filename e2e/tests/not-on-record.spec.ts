import type { APIRequestContext } from "@playwright/test";
import { expect, registerThroughUI, test, toastTitle, uniqueEmail } from "./fixtures";
import { jobById } from "./batch";
import { createKey, creditsOf, registerByApi, VALUATION_PATH } from "./public-api";
import { checkAtBothSizes } from "./walk";

// Known, estimated or refused (DESIGN.md section 5): a home on record is valued from its record; a home that is
// not on record only from the facts the caller gives (property type and square feet at least), otherwise a free
// 404 that says what to add; input that is not an address is a free 400 naming the field. The demo market (seed 1)
// has homes in Seattle's 98103, so a made-up street there has a market to be valued in.

const FAKE = { city: "Seattle", state: "WA", zip: "98103" };
const NEEDS_FACTS =
  "No property on record at this address. To value it anyway, add its propertyType and squareFeet " +
  "(optionally bedrooms, bathrooms, yearBuilt, lotSize).";

function publicCall(request: APIRequestContext, key: string, params: Record<string, string | number>) {
  const q = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return request.get(`${VALUATION_PATH}?${q.toString()}`, { headers: { "x-api-key": key } });
}

test("the public API refuses made-up streets for free and values them from the facts given", async ({ request }) => {
  const session = await registerByApi(request, "fakes", "Fay Fakes");
  const key = await createKey(request, session.token, "Fakes", 100);

  await test.step("made-up streets without facts: 404 saying what to add, not charged", async () => {
    for (const street of ["1 Nowhere Lane", "99999 Fake St", "55 Imaginary Blvd"]) {
      const res = await publicCall(request, key.keyValue, { address: street, ...FAKE });
      expect(res.status(), street).toBe(404);
      expect(await res.json()).toMatchObject({
        error: NEEDS_FACTS,
        code: "property_not_found",
        field: "propertyType",
        fields: { propertyType: expect.any(String), squareFeet: expect.any(String) },
      });
    }
    expect(await creditsOf(request, session.token)).toBe(100);
  });

  await test.step("not an address: 400 naming the field, not charged", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ address: "=1+2", ...FAKE }, "address"],
      [{ address: "Maple Rd' OR '1'='1", ...FAKE }, "address"],
      [{ address: "Main St", ...FAKE }, "address"],
      [{ address: "1 Main St", city: "Seattle", state: "WA", zip: "00000" }, "zip"],
      [{ address: "1 Main St", city: "Seattle", state: "FL", zip: "98103" }, "zip"],
      [{ address: "1 Main St", city: "Seattle", state: "XX", zip: "98103" }, "state"],
    ];
    for (const [params, field] of cases) {
      const res = await publicCall(request, key.keyValue, params);
      expect(res.status(), params.address).toBe(400);
      expect(await res.json()).toMatchObject({ field });
    }
    expect(await creditsOf(request, session.token)).toBe(100);
  });

  await test.step("with property type and square feet: valued at the ZIP centre, details exactly those", async () => {
    const res = await publicCall(request, key.keyValue, {
      address: "1 Nowhere Lane",
      ...FAKE,
      propertyType: "Townhouse",
      squareFeet: 1400,
    });
    expect(res.status(), await res.text()).toBe(200);
    const { data } = (await res.json()) as {
      data: { property: { matchCode: string; isDemo: boolean }; valuation: { estimatedValue: number }; details: unknown };
    };
    // Valued from the demo market's sales, so a demo answer although no demo record is its own.
    expect(data.property).toMatchObject({ matchCode: "not_on_record", isDemo: true });
    expect(data.valuation.estimatedValue).toBeGreaterThan(0);
    expect(data.details).toEqual({
      bedrooms: null,
      bathrooms: null,
      squareFeet: 1400,
      livingArea: 1400,
      yearBuilt: null,
      propertyType: "Townhouse",
      lotSize: null,
      lotSizeSqFt: null,
      imageUrl: null,
      homeStatus: null,
    });
    expect(await creditsOf(request, session.token)).toBe(99);
  });

  await test.step("a fact far outside the records: 422 outside_records naming it and the range on record, not charged", async () => {
    const res = await publicCall(request, key.keyValue, {
      address: "1 Nowhere Lane",
      ...FAKE,
      propertyType: "Single Family",
      squareFeet: 100_000,
    });
    expect(res.status(), await res.text()).toBe(422);
    const body = (await res.json()) as { code: string; field: string; recordRange: { field: string; min: number; max: number; area: string } };
    expect(body).toMatchObject({ code: "outside_records", field: "squareFeet", recordRange: { field: "squareFeet", area: "98103" } });
    expect(body.recordRange.max).toBeLessThan(100_000 / 1.25);
    expect(await creditsOf(request, session.token)).toBe(99);
  });
});

test("the lookup screen asks for the details of a home not on record, then values it from them", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Nell Nowhere", email: uniqueEmail("notonrecord"), password: "password-123" });
  await page.getByLabel("Street Address").fill("1 Nowhere Lane");
  await page.getByLabel("City").fill("Seattle");
  await page.getByLabel("State", { exact: true }).click();
  await page.getByRole("option", { name: "Washington", exact: true }).click();
  await page.getByLabel("ZIP Code").fill("98103");
  await page.getByRole("button", { name: "Get Property Valuation" }).click();

  const empty = page.getByTestId("not-found-result");
  await expect(empty).toBeVisible();
  await expect(empty.getByRole("heading", { name: "Not on record" })).toBeVisible();
  await expect(empty.getByTestId("not-found-message")).toHaveText(
    "No property on record at this address. To value it anyway, add its property type and square feet " +
      "(optionally bedrooms, bathrooms, year built, lot size).",
  );
  await expect(toastTitle(page, "Lookup Failed")).toBeVisible();
  await expect(page.getByLabel("Property Type")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Square Feet")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("credits-balance")).toContainText("100 credits");

  await page.getByLabel("Property Type").click();
  await page.getByRole("option", { name: "Single Family", exact: true }).click();
  await page.getByLabel("Square Feet").fill("1,800");
  await page.getByRole("button", { name: "Get Property Valuation" }).click();

  const result = page.getByTestId("valuation-result");
  await expect(result).toBeVisible();
  await expect(result).toContainText("1 NOWHERE LN, SEATTLE, WA 98103");
  await expect(result.getByTestId("match-note")).toContainText("Not on record");
  // The value comes from the demo market's sales: the answer says so.
  await expect(result.getByTestId("demo-badge")).toBeVisible();
  const stat = (label: string) => result.locator("dt", { hasText: label }).locator("xpath=..");
  await expect(stat("Property Type")).toContainText("Single Family");
  await expect(stat("Square Feet")).toContainText("1,800");
  for (const label of ["Bedrooms", "Bathrooms", "Year Built", "Lot Size"]) await expect(stat(label)).toContainText("—");
  await expect(page.getByTestId("credits-balance")).toContainText("99 credits");
  // The confidence is explained by its FSD, and the date valued as of is today's market.
  await expect(result.getByTestId("confidence-meaning")).toContainText(/sell within ±\d+% of our estimate \(FSD 0\.\d\d\)/);
  await expect(result.getByTestId("valuation-date")).toContainText("as of");

  // A 100,000 sq ft house among homes of a few thousand: the records cannot speak for it, so it is refused, free,
  // with what they hold (a value would be the largest home's price), and the field is marked.
  await page.getByLabel("Square Feet").fill("100,000");
  await page.getByRole("button", { name: "Get Property Valuation" }).click();
  const refused = page.getByTestId("outside-records-result");
  await expect(refused.getByRole("heading", { name: "Outside our records" })).toBeVisible();
  await expect(refused).toContainText(/the largest single-family home on record near 98103 has [\d,]+ sq ft, and 100,000 sq ft were given/);
  await expect(refused).toContainText("No credit was used.");
  await expect(page.getByLabel("Square Feet")).toHaveAttribute("aria-invalid", "true");
  await checkAtBothSizes(page, "lookup-outside-records");
  await expect(page.getByTestId("credits-balance")).toContainText("99 credits");
});

test("a batch of made-up streets costs nothing; a mixed one costs only its valued rows", async ({ request }) => {
  const session = await registerByApi(request, "fakebatch", "Fred Fakebatch");
  const headers = { Authorization: `Bearer ${session.token}` };
  const waitDone = async (id: number) => {
    await expect
      .poll(async () => (await jobById(request, session.token, id)).status, { timeout: 60_000 })
      .toBe("completed");
    return jobById(request, session.token, id);
  };

  const fakes = Array.from({ length: 100 }, (_, i) =>
    i % 4 === 3
      ? { address: "=1+2", ...FAKE }
      : { address: `${100 + i} ${["Nowhere Lane", "Fake St", "Imaginary Blvd"][i % 3]}`, ...FAKE },
  );
  let res = await request.post("/api/jobs", {
    headers,
    data: { type: "batch", fileName: "fakes.json", inputData: { properties: fakes } },
  });
  expect(res.status(), await res.text()).toBe(201);
  let job = await waitDone(((await res.json()) as { id: number }).id);
  expect(job).toMatchObject({ totalProperties: 100, successfulProperties: 0, failedProperties: 100, creditsUsed: 0 });
  expect(await creditsOf(request, session.token)).toBe(100);
  const results = await request.get(`/api/jobs/${job.id}/results?limit=100`, { headers });
  const rows = ((await results.json()) as { data: { status: string; reason: string; error: string }[] }).data;
  expect(rows).toHaveLength(100);
  for (const row of rows) {
    expect(row.status).toBe("failed");
    expect(["not_found", "invalid"]).toContain(row.reason);
    expect(row.error).not.toBe("");
  }
  expect(rows.filter((r) => r.reason === "invalid")).toHaveLength(25);

  res = await request.post("/api/jobs", {
    headers,
    data: {
      type: "batch",
      fileName: "mixed.json",
      inputData: {
        properties: [
          { address: "7006 Maple Rd", ...FAKE },
          { address: "1 Nowhere Lane", ...FAKE, propertyType: "Single Family", squareFeet: 1800 },
          { address: "2 Nowhere Lane", ...FAKE },
          { address: "Main St", ...FAKE },
        ],
      },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  job = await waitDone(((await res.json()) as { id: number }).id);
  expect(job).toMatchObject({ successfulProperties: 2, failedProperties: 2, creditsUsed: 2 });
  expect(await creditsOf(request, session.token)).toBe(98);
});
