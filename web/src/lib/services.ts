// The usage services' names (UsageEntry.apiService, api/openapi.yaml), as every screen writes them: Request
// History's table and details, Reporting's recent activity.
import type { UsageEntry } from "./types";

export type ApiService = UsageEntry["apiService"];

export const SERVICE_LABELS: Record<ApiService, string> = {
  property_valuation: "Property valuation",
  person_lookup: "Person lookup",
  batch: "Batch upload",
  market_statistics: "Market statistics",
};

/** A service's name; a service this build does not know yet shows as the server wrote it. */
export function serviceLabel(service: ApiService): string {
  return SERVICE_LABELS[service] ?? service;
}
