import { describe, expect, it } from "vitest";
import {
  formatValuation,
  historyCsv,
  historyFileName,
  historyUrl,
  isSuccessStatus,
  matchesFilters,
  NO_FILTERS,
  pageWindow,
  parseKeyFilterValue,
  keyFilterValue,
  retryPlan,
  retryRequest,
  showingText,
  type HistoryFilters,
} from "./history-helpers";
import { makeEntry, requestData } from "./test-fixtures";

describe("pageWindow", () => {
  it.each([
    [1, 10, [1, 2, 3, 4, 5]],
    [2, 10, [1, 2, 3, 4, 5]],
    [3, 10, [1, 2, 3, 4, 5]],
    [4, 10, [2, 3, 4, 5, 6]],
    [6, 10, [4, 5, 6, 7, 8]],
    [9, 10, [6, 7, 8, 9, 10]],
    [10, 10, [6, 7, 8, 9, 10]],
    [2, 3, [1, 2, 3]],
    [1, 1, [1]],
    [5, 5, [1, 2, 3, 4, 5]],
    [1, 0, []],
    [12, 10, [6, 7, 8, 9, 10]],
    [0, 10, [1, 2, 3, 4, 5]],
  ])("page %i of %i -> %j", (current, total, want) => {
    expect(pageWindow(current, total)).toEqual(want);
  });
});

describe("historyUrl", () => {
  it("sends the page and the page size of 50 without filters", () => {
    expect(historyUrl(1)).toBe("/api/usage/history?page=1&limit=50");
    expect(historyUrl(3, NO_FILTERS)).toBe("/api/usage/history?page=3&limit=50");
  });

  it("sends the search text, the key and the status", () => {
    const f: HistoryFilters = { search: "  Bigelow Ave ", apiKey: { kind: "key", name: "Prod & Co" }, status: "error" };
    const url = new URL(historyUrl(2, f), "http://x");
    expect(url.pathname).toBe("/api/usage/history");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      page: "2",
      limit: "50",
      search: "Bigelow Ave",
      apiKey: "Prod & Co",
      status: "error",
    });
  });

  it("sends apiKey=dashboard for dashboard calls", () => {
    expect(historyUrl(1, { ...NO_FILTERS, apiKey: { kind: "dashboard" }, status: "success" })).toBe(
      "/api/usage/history?page=1&limit=50&apiKey=dashboard&status=success",
    );
  });
});

describe("key filter values", () => {
  it("round-trip through the select's strings", () => {
    for (const f of [{ kind: "all" }, { kind: "dashboard" }, { kind: "key", name: "dashboard" }, { kind: "key", name: "key:x" }] as const) {
      expect(parseKeyFilterValue(keyFilterValue(f))).toEqual(f);
    }
  });
});

describe("isSuccessStatus", () => {
  it.each([
    [199, false],
    [200, true],
    [204, true],
    [299, true],
    [300, false],
    [404, false],
    [500, false],
  ])("%i -> %s", (status, want) => {
    expect(isSuccessStatus(status)).toBe(want);
  });
});

describe("matchesFilters", () => {
  const prod = makeEntry({ apiKeyName: "Production", responseStatus: 404, propertyAddress: "1 Main St, Austin, TX" });
  const dash = makeEntry({ apiKeyName: null, responseStatus: 200 });
  const noAddress = makeEntry({ propertyAddress: null, apiService: "person_lookup" });

  it("matches everything without filters", () => {
    for (const e of [prod, dash, noAddress]) expect(matchesFilters(e, NO_FILTERS)).toBe(true);
  });

  it("matches the address text without regard to case", () => {
    const f = { ...NO_FILTERS, search: "bigelow AVE" };
    expect(matchesFilters(dash, f)).toBe(true);
    expect(matchesFilters(prod, f)).toBe(false);
    expect(matchesFilters(noAddress, f)).toBe(false);
  });

  it("matches the key: a name, or Dashboard for calls without a key", () => {
    expect(matchesFilters(prod, { ...NO_FILTERS, apiKey: { kind: "key", name: "Production" } })).toBe(true);
    expect(matchesFilters(dash, { ...NO_FILTERS, apiKey: { kind: "key", name: "Production" } })).toBe(false);
    expect(matchesFilters(dash, { ...NO_FILTERS, apiKey: { kind: "dashboard" } })).toBe(true);
    expect(matchesFilters(prod, { ...NO_FILTERS, apiKey: { kind: "dashboard" } })).toBe(false);
  });

  it("matches the status by the 200-299 rule", () => {
    expect(matchesFilters(dash, { ...NO_FILTERS, status: "success" })).toBe(true);
    expect(matchesFilters(dash, { ...NO_FILTERS, status: "error" })).toBe(false);
    expect(matchesFilters(prod, { ...NO_FILTERS, status: "error" })).toBe(true);
    expect(matchesFilters(prod, { ...NO_FILTERS, status: "success" })).toBe(false);
  });
});

describe("showingText", () => {
  it("says which rows of how many are shown", () => {
    expect(showingText(2, 50, 230)).toBe("Showing 51–100 of 230");
    expect(showingText(5, 50, 230)).toBe("Showing 201–230 of 230");
    expect(showingText(1, 50, 1234)).toBe("Showing 1–50 of 1,234");
    expect(showingText(1, 50, 0)).toBe("Showing 0 of 0");
  });
});

describe("formatValuation", () => {
  it("shows whole dollars or a dash", () => {
    expect(formatValuation(1_248_000)).toBe("$1,248,000");
    expect(formatValuation(499_999.6)).toBe("$500,000");
    expect(formatValuation(null)).toBe("—");
  });
});

describe("retryRequest", () => {
  it("rebuilds the lookup of a failed valuation from its request data", () => {
    expect(retryRequest(makeEntry({ responseStatus: 503, valuation: null }))).toEqual({
      address: "2114 Bigelow Ave N",
      city: "Seattle",
      state: "WA",
      zip: "98109",
    });
  });

  it("keeps the home attributes the first call gave, and nothing else", () => {
    const entry = makeEntry({
      responseStatus: 404,
      requestData: requestData({
        address: "5 Pine Rd",
        zip: "98101",
        bedrooms: 3,
        bathrooms: null,
        squareFeet: 1850,
        propertyType: "Condo",
        city: "",
        extra: "ignored",
      }),
    });
    expect(retryRequest(entry)).toEqual({
      address: "5 Pine Rd",
      zip: "98101",
      bedrooms: 3,
      squareFeet: 1850,
      propertyType: "Condo",
    });
  });

  it("falls back to the recorded address as one line", () => {
    expect(retryRequest(makeEntry({ responseStatus: 404, requestData: null }))).toEqual({
      address: "2114 Bigelow Ave N, Seattle, WA 98109",
    });
  });

  it("refuses successes, other services and rows without an address", () => {
    expect(retryRequest(makeEntry({ responseStatus: 200 }))).toBeNull();
    expect(retryRequest(makeEntry({ responseStatus: 500, apiService: "person_lookup" }))).toBeNull();
    expect(retryRequest(makeEntry({ responseStatus: 500, propertyAddress: null, requestData: {} }))).toBeNull();
  });
});

describe("retryPlan", () => {
  const PERSON = requestData({
    name: "Jane Doe",
    street_line_1: "",
    city: "Seattle",
    state_code: "WA",
    postal_code: "98103",
    purpose: "real_estate_transaction",
  });
  const person = (status: number, data = PERSON) =>
    makeEntry({ responseStatus: status, apiService: "person_lookup", endpoint: "POST /api/find-person", requestData: data });
  const batch = (status: number, data: Record<string, unknown>) =>
    makeEntry({ responseStatus: status, apiService: "batch", endpoint: "POST /api/jobs", requestData: requestData(data) });

  it("has nothing to retry on a successful row, whatever the service", () => {
    expect(retryPlan(makeEntry({ responseStatus: 200 }))).toBeNull();
    expect(retryPlan(person(200))).toBeNull();
    expect(retryPlan(batch(200, { jobId: 4 }))).toBeNull();
  });

  it("retries every kind of failure of a valuation (400, 402, 404, 429, 500, 503), from the dashboard or an API key", () => {
    for (const status of [400, 402, 404, 429, 500, 503]) {
      for (const apiKeyName of [null, "Production"]) {
        expect(retryPlan(makeEntry({ responseStatus: status, apiKeyName }))?.kind).toBe("property");
      }
    }
  });

  it("retries a failed person lookup with the same query and purpose, leaving out blank parts", () => {
    for (const status of [404, 402, 503]) {
      expect(retryPlan(person(status))).toEqual({
        kind: "person",
        body: { name: "Jane Doe", city: "Seattle", state_code: "WA", postal_code: "98103", purpose: "real_estate_transaction" },
      });
    }
  });

  it("retries a failed batch job by its id (402 out of credits, 500 failed)", () => {
    expect(retryPlan(batch(402, { jobId: 7, fileName: "homes.csv", status: "failed" }))).toEqual({
      kind: "batch",
      jobId: 7,
      fileName: "homes.csv",
    });
    expect(retryPlan(batch(500, { jobId: 8, status: "failed" }))).toEqual({ kind: "batch", jobId: 8, fileName: "Batch #8" });
  });

  it("says why a failed row that lacks what the call needs cannot be retried, instead of offering nothing", () => {
    const cases = [
      makeEntry({ responseStatus: 400, propertyAddress: null, requestData: null }),
      person(400, requestData({ name: "Jane Doe" })),
      person(400, requestData({ ...(PERSON as Record<string, unknown>), purpose: "curiosity" })),
      batch(500, { fileName: "homes.csv" }),
    ];
    for (const entry of cases) {
      const plan = retryPlan(entry);
      expect(plan?.kind).toBe("unavailable");
      expect(plan?.kind === "unavailable" && plan.reason.length > 20).toBe(true);
    }
    expect(retryPlan(person(400, requestData({ name: "Jane Doe" })))).toMatchObject({ reason: expect.stringContaining("Person Lookup") });
    expect(retryPlan(person(400, requestData({ ...(PERSON as Record<string, unknown>), purpose: "" })))).toMatchObject({
      reason: expect.stringContaining("permissible purpose"),
    });
  });
});

describe("historyCsv", () => {
  it("writes a header and one protected line per entry", () => {
    const csv = historyCsv([
      makeEntry(),
      makeEntry({
        id: 2,
        propertyAddress: '=HYPERLINK("http://evil","x")',
        valuation: null,
        responseStatus: 404,
        apiKeyName: "@ops",
        requestId: "-req",
      }),
    ]);
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe(
      "Timestamp,Property,Valuation,Status,Status Code,Response Time (ms),API Key,Endpoint,Service,Credits Used,Request ID",
    );
    expect(lines[1]).toBe(
      '2026-02-03T10:04:05Z,"2114 Bigelow Ave N, Seattle, WA 98109",987400,Success,200,142,Dashboard,POST /api/property/lookup,property_valuation,1,req-1',
    );
    expect(lines[2]).toBe(
      `2026-02-03T10:04:05Z,"'=HYPERLINK(""http://evil"",""x"")",,Error,404,142,'@ops,POST /api/property/lookup,property_valuation,1,'-req`,
    );
    expect(lines[3]).toBe("");
  });

  it("names the file usage-history-{timestamp}.csv", () => {
    expect(historyFileName(1_770_000_000_000)).toBe("usage-history-1770000000000.csv");
  });
});
