// Test data for the Request History tests (imported by tests only, never by the screen).
import type { ApiKey, UsageEntry, UsageHistory } from "@/lib/types";
import { PAGE_SIZE } from "./history-helpers";

/**
 * Recorded request parameters. The contract says only "object" (openapi-typescript reads that as an object with
 * no properties), so test data is cast to it.
 */
export function requestData(v: Record<string, unknown>): UsageEntry["requestData"] {
  return v as UsageEntry["requestData"];
}

export function makeEntry(overrides: Partial<UsageEntry> = {}): UsageEntry {
  return {
    id: 1,
    createdAt: "2026-02-03T10:04:05Z",
    propertyAddress: "2114 Bigelow Ave N, Seattle, WA 98109",
    valuation: 987_400,
    responseStatus: 200,
    responseTimeMs: 142,
    apiKeyName: null,
    endpoint: "POST /api/property/lookup",
    apiService: "property_valuation",
    creditsUsed: 1,
    requestData: requestData({ address: "2114 Bigelow Ave N", city: "Seattle", state: "WA", zip: "98109" }),
    requestId: "req-1",
    ...overrides,
  };
}

/** One page of history; the pagination follows from the page, the total and the page size of 50. */
export function makeHistory(data: UsageEntry[], { page = 1, total = data.length, limit = PAGE_SIZE } = {}): UsageHistory {
  const totalPages = Math.ceil(total / limit);
  return {
    data,
    pagination: { page, limit, total, totalPages, hasPreviousPage: page > 1, hasNextPage: page < totalPages },
  };
}

export function makeKey(id: number, name: string): ApiKey {
  return {
    id,
    name,
    keyPreview: "vk_live_7Qm2…x9Ka",
    keyValue: `vk_live_${id}`,
    rateLimit: 100,
    effectiveRateLimit: 60,
    createdAt: "2026-01-21T10:00:00Z",
    lastUsedAt: null,
  };
}
