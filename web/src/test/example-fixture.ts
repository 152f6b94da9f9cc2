// A live answer of GET /api/example for the tests: the example home as a server seeded on another day than the
// generated example's would value it, so that every figure a screen shows differs from the generated file's and the
// tests can tell which one a screen shows.
import { GENERATED_EXAMPLE } from "@/lib/generated-example";
import type { ExampleValuation } from "@/lib/types";

const generated = GENERATED_EXAMPLE.response.data;

export const LIVE_EXAMPLE: ExampleValuation = {
  market: { day: "2027-07-13" },
  request: GENERATED_EXAMPLE.request,
  path: GENERATED_EXAMPLE.path,
  comparables: { returned: 11, kept: 2 },
  response: {
    data: {
      ...generated,
      valuation: {
        ...generated.valuation,
        estimatedValue: 1_482_000,
        low: 1_377_000,
        high: 1_601_000,
        confidence: 0.912,
        confidenceLevel: "High",
        pricePerSqFt: 833,
        valuationDate: "2027-07-14",
        lastUpdated: "2027-07-13T00:00:00Z",
      },
      marketData: {
        ...generated.marketData,
        rentEstimate: 4375,
        priceHistory: [{ date: "2027-02-09", price: 1_431_000, event: "sale" }, ...generated.marketData.priceHistory],
        comparables: generated.marketData.comparables.slice(0, 2).map((c, i) => ({
          ...c,
          saleDate: i === 0 ? "2027-05-30" : "2027-04-18",
          salePrice: c.salePrice + 111_000,
          adjustedPrice: c.adjustedPrice + 123_000,
        })),
      },
      meta: {
        requestId: "01K0LIVEEXAMPLE0000000000",
        timestamp: "2027-07-14T15:04:00Z",
        responseTime: 3,
        creditsUsed: 1,
        creditsRemaining: 99,
        dataSource: "demo",
      },
    },
  },
};

/** The answer of GET /api/example on a server whose market has no record of the example home. */
export const EXAMPLE_UNAVAILABLE_REPLY = {
  status: 404,
  body: {
    error: "This server's market has no record of the example home 5873 River Dr N, Seattle, WA 98103",
    code: "example_unavailable",
    requestId: "req-example",
  },
};
