import type { Portfolio, PortfolioAlert, PortfolioAlertList, PortfolioDetail, PortfolioHome } from "./api/portfolios-api";

export function makePortfolio(overrides: Partial<Portfolio> = {}): Portfolio {
  return {
    id: 7,
    name: "Seattle rentals",
    status: "active",
    pausedReason: null,
    pausedAt: null,
    alertThreshold: 1,
    webhookUrl: null,
    homeCount: 3,
    createdAt: "2026-10-02T12:00:00Z",
    ...overrides,
  };
}

export function makeHome(id: number, address: string, value: number, percent: number | null, overrides: Partial<PortfolioHome> = {}): PortfolioHome {
  return {
    id,
    formattedAddress: address,
    address: address.split(",")[0]!,
    unit: null,
    city: "SEATTLE",
    state: "WA",
    zip: "98103",
    addedAt: "2026-10-02T12:00:00Z",
    latest: { month: "2026-11", value, low: Math.round(value * 0.9), high: Math.round(value * 1.1), confidence: 0.9, confidenceLevel: "High", fsd: 0.1 },
    changeSinceLastMonth: percent === null ? null : { amount: Math.round((value * percent) / 100), percent },
    changeSinceAdded: percent === null ? null : { amount: Math.round((value * percent) / 100), percent },
    ...overrides,
  };
}

export const HOMES: PortfolioHome[] = [
  makeHome(1, "100 A ST, SEATTLE, WA 98103", 500_000, 0.2),
  makeHome(2, "200 B ST, SEATTLE, WA 98103", 900_000, -2.5),
  makeHome(3, "=300 C ST, SEATTLE, WA 98103", 700_000, 1.5),
];

export function makeDetail(overrides: Partial<PortfolioDetail> = {}): PortfolioDetail {
  return {
    ...makePortfolio(),
    homes: HOMES,
    pagination: { page: 1, limit: 1000, total: 3, totalPages: 1, hasPreviousPage: false, hasNextPage: false },
    totals: { value: 2_100_000, low: 1_890_000, high: 2_310_000, changeSinceLastMonth: -10_000, changeSinceAdded: -10_000, valuedHomes: 3 },
    history: [
      { month: "2026-10", value: 2_110_000, homes: 3 },
      { month: "2026-11", value: 2_100_000, homes: 3 },
    ],
    ...overrides,
  };
}

/** An alert of month: each home moved from previousValue to value (the API's PortfolioAlert). */
export function makeAlert(month: string, homes: [number, string, number, number][], threshold = 1): PortfolioAlert {
  const prev = new Date(`${month}-01T00:00:00Z`);
  prev.setUTCMonth(prev.getUTCMonth() - 1);
  return {
    month,
    createdAt: `${month}-01T00:30:00Z`,
    threshold,
    homes: homes.map(([homeId, formattedAddress, previousValue, value]) => ({
      homeId,
      formattedAddress,
      previousMonth: prev.toISOString().slice(0, 7),
      previousValue,
      value,
      changePercent: Math.round(((value - previousValue) / previousValue) * 10000) / 100,
    })),
  };
}

export function alertPage(data: PortfolioAlert[], page: number, total: number, limit = 12): PortfolioAlertList {
  const totalPages = Math.ceil(total / limit);
  return { data, pagination: { page, limit, total, totalPages, hasPreviousPage: page > 1, hasNextPage: page < totalPages } };
}
