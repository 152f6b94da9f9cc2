import type { Market } from "./api/markets-api";

// Markets shaped exactly as the contract (api/openapi.yaml, `Market`) writes them, typed by its generated types: the
// unit tests render these.

function months(n: number, last = "2026-11"): string[] {
  const [y, m] = last.split("-").map(Number) as [number, number];
  return Array.from({ length: n }, (_, i) => {
    const k = y * 12 + (m - 1) - (n - 1 - i);
    return `${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, "0")}`;
  });
}

export function makeMarket(overrides: Partial<Market> = {}, historyMonths = 24): Market {
  const ms = months(historyMonths);
  return {
    zip: "98103",
    city: "SEATTLE",
    state: "WA",
    asOf: "2026-11-20",
    isDemo: false,
    propertyType: null,
    sales: {
      count: 143,
      median: 890000,
      mean: 934512,
      min: 410000,
      max: 2650000,
      medianPricePerSqft: 612,
      byPropertyType: [
        { propertyType: "Single Family", count: 98, median: 975000, mean: 1010000, min: 520000, max: 2650000, medianPricePerSqft: 598 },
        { propertyType: "Condo", count: 40, median: 560000, mean: 585000, min: 410000, max: 990000, medianPricePerSqft: 701 },
      ],
      byBedrooms: [
        { bedrooms: "2", count: 41, median: 640000, mean: 660000, min: 410000, max: 1100000, medianPricePerSqft: 690 },
        { bedrooms: "3", count: 62, median: 915000, mean: 950000, min: 600000, max: 1800000, medianPricePerSqft: 605 },
        { bedrooms: "5+", count: 9, median: 1450000, mean: 1600000, min: 1100000, max: 2650000, medianPricePerSqft: 540 },
      ],
      omitted: [{ group: "Manufactured", reason: "Fewer than 5 sales in the last 12 months." }],
    },
    rents: {
      count: 61,
      median: 3100,
      mean: 3240,
      min: 1650,
      max: 6200,
      medianRentPerSqft: 2.41,
      byPropertyType: [{ propertyType: "Single Family", count: 30, median: 3600, mean: 3700, min: 2400, max: 6200, medianRentPerSqft: 2.1 }],
      byBedrooms: [{ bedrooms: "2", count: 22, median: 2700, mean: 2750, min: 1650, max: 3900, medianRentPerSqft: 2.9 }],
      omitted: [{ group: "Condo", reason: "Fewer than 5 rents in the last 12 months." }],
    },
    values: { count: 812, median: 905000, p25: 760000, p75: 1120000, min: 380000, max: 3900000 },
    priceIndex: ms.map((month, i) => ({
      month,
      index: 1 + i * 0.004,
      change1m: i === 0 ? null : 0.004,
      change12m: i < 12 ? null : 0.051,
    })),
    priceIndexArea: { level: "metro", area: "98103" },
    history: ms.map((month, i) => ({
      month,
      salesCount: i % 6 === 0 ? 3 : 12,
      medianSalePrice: i % 6 === 0 ? null : 880000 + i * 1000,
      rentsCount: 6,
      medianRent: 3100,
    })),
    historyWindow: { sales: 1, rents: 1 },
    ...overrides,
  };
}

/** A second ZIP whose rents are too thin to show and whose values are omitted. */
export function makeThinMarket(overrides: Partial<Market> = {}): Market {
  return makeMarket({
    zip: "98115",
    city: "SEATTLE",
    rents: { count: 3, omitted: "Fewer than 5 rents in the last 12 months." },
    values: { count: 3, omitted: "Fewer than 5 homes on record." },
    ...overrides,
  });
}

export function envelope(data: unknown, creditsUsed = 1) {
  return {
    data,
    meta: { requestId: "req-mkt", timestamp: "2026-11-27T01:00:00Z", responseTime: 4, creditsUsed, creditsRemaining: 99 },
  };
}
