// Pure helpers of the Request History screen (working-screens spec, sections 2-4, 7-9): the request URL, the one
// filter predicate, the success rule, the pagination window, formatting and the CSV export. No React and no I/O, so
// every rule is unit-tested on its own.
import { toCsv, type CsvValue } from "@/lib/csv";
import type { PropertyLookupRequest, UsageEntry } from "@/lib/types";
import { PURPOSE_VALUES, type FindPersonRequest, type Purpose } from "@/features/person-lookup/person-types";

/** Spec section 9: the history page size. */
export const PAGE_SIZE = 50;
/** Spec section 9: at most this many numbered page buttons. */
export const MAX_PAGE_BUTTONS = 5;

export const HISTORY_PATH = "/api/usage/history";

export type StatusFilter = "all" | "success" | "error";

/** The API Key filter: every key, calls made in the dashboard (no key), or one key by name. */
export type KeyFilter = { kind: "all" } | { kind: "dashboard" } | { kind: "key"; name: string };

export interface HistoryFilters {
  search: string;
  apiKey: KeyFilter;
  status: StatusFilter;
}

export const NO_FILTERS: HistoryFilters = { search: "", apiKey: { kind: "all" }, status: "all" };

export function hasFilters(f: HistoryFilters): boolean {
  return f.search.trim() !== "" || f.apiKey.kind !== "all" || f.status !== "all";
}

/** The Select's value for a key filter (Radix Select items need distinct non-empty strings). */
export function keyFilterValue(f: KeyFilter): string {
  switch (f.kind) {
    case "all":
      return "all";
    case "dashboard":
      return "dashboard";
    case "key":
      return `key:${f.name}`;
  }
}

export function parseKeyFilterValue(value: string): KeyFilter {
  if (value.startsWith("key:")) return { kind: "key", name: value.slice("key:".length) };
  if (value === "dashboard") return { kind: "dashboard" };
  return { kind: "all" };
}

/**
 * GET /api/usage/history with the page and the filters as query parameters (api/openapi.yaml, usageHistory), so
 * the server filters across every page. Empty filters are left out. The string is also the query key, since the
 * default query function fetches the key itself.
 */
export function historyUrl(page: number, filters: HistoryFilters = NO_FILTERS, limit = PAGE_SIZE): string {
  const params = new URLSearchParams({ page: String(page), limit: String(limit) });
  const search = filters.search.trim();
  if (search) params.set("search", search);
  if (filters.apiKey.kind === "dashboard") params.set("apiKey", "dashboard");
  else if (filters.apiKey.kind === "key") params.set("apiKey", filters.apiKey.name);
  if (filters.status !== "all") params.set("status", filters.status);
  return `${HISTORY_PATH}?${params.toString()}`;
}

/** Spec section 4: a history row is a success if its response status is 200 to 299, otherwise an error. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status <= 299;
}

/**
 * The one filter rule (spec section 7: address text, key name and status). The server applies the same rule to
 * every page; the screen re-applies it to the loaded page, which changes nothing when both agree.
 */
export function matchesFilters(entry: UsageEntry, filters: HistoryFilters): boolean {
  const search = filters.search.trim().toLowerCase();
  if (search && !(entry.propertyAddress ?? "").toLowerCase().includes(search)) return false;
  if (filters.apiKey.kind === "dashboard" && entry.apiKeyName !== null) return false;
  if (filters.apiKey.kind === "key" && entry.apiKeyName !== filters.apiKey.name) return false;
  if (filters.status === "success" && !isSuccessStatus(entry.responseStatus)) return false;
  if (filters.status === "error" && isSuccessStatus(entry.responseStatus)) return false;
  return true;
}

/**
 * The numbered page buttons: up to MAX_PAGE_BUTTONS consecutive pages with the current one as central as the ends
 * allow (1 of 10 -> 1..5, 6 of 10 -> 4..8, 10 of 10 -> 6..10).
 */
export function pageWindow(current: number, totalPages: number, size = MAX_PAGE_BUTTONS): number[] {
  if (totalPages < 1 || size < 1) return [];
  const page = Math.min(Math.max(1, current), totalPages);
  const count = Math.min(size, totalPages);
  let start = page - Math.floor(count / 2);
  start = Math.max(1, Math.min(start, totalPages - count + 1));
  return Array.from({ length: count }, (_, i) => start + i);
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "Showing 51–100 of 230" (an en dash), from the server's pagination. */
export function showingText(page: number, limit: number, total: number): string {
  if (total <= 0) return "Showing 0 of 0";
  const from = Math.min((page - 1) * limit + 1, total);
  const to = Math.min(page * limit, total);
  return `Showing ${integer.format(from)}–${integer.format(to)} of ${integer.format(total)}`;
}

const usd = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 0,
  maximumFractionDigits: 0,
});

export const DASH = "—";

/** Whole dollars ("$1,248,000") or a dash when the call produced no value. */
export function formatValuation(value: number | null): string {
  return value === null ? DASH : usd.format(Math.round(value));
}

const timestampFormat = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  second: "2-digit",
});

/** The local date and time of a call ("Feb 3, 2026, 10:04:05 AM"); unreadable input is shown as it came. */
export function formatTimestamp(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : timestampFormat.format(ms);
}

export function keyLabel(apiKeyName: string | null): string {
  return apiKeyName ?? "Dashboard";
}

function stringField(data: Record<string, unknown>, name: string): string | undefined {
  const v = data[name];
  if (typeof v === "string" && v.trim() !== "") return v.trim();
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

const NUMERIC_ATTRIBUTES = ["bedrooms", "bathrooms", "squareFeet", "yearBuilt", "lotSize"] as const;

/**
 * The lookup to send again for a failed property valuation (our design: the spec does not show what the retry icon
 * does), built from the recorded request (address, city, state, zip and any home attributes), else from the recorded address as one line.
 * Null when the row cannot be retried: it succeeded, is another service, or has no address.
 */
export function retryRequest(entry: UsageEntry): PropertyLookupRequest | null {
  if (isSuccessStatus(entry.responseStatus) || entry.apiService !== "property_valuation") return null;
  const data = (entry.requestData ?? {}) as Record<string, unknown>;
  const address = stringField(data, "address");
  if (address) {
    const body: PropertyLookupRequest = { address };
    const city = stringField(data, "city");
    const state = stringField(data, "state");
    const zip = stringField(data, "zip");
    if (city) body.city = city;
    if (state) body.state = state;
    if (zip) body.zip = zip;
    // The home's attributes, when the first call gave them, change the value of a home not on record: keep them.
    for (const name of NUMERIC_ATTRIBUTES) {
      const v = data[name];
      if (typeof v === "number" && Number.isFinite(v)) body[name] = v;
    }
    if (typeof data.propertyType === "string" && data.propertyType !== "") {
      body.propertyType = data.propertyType as PropertyLookupRequest["propertyType"];
    }
    return body;
  }
  const line = entry.propertyAddress?.trim();
  return line ? { address: line } : null;
}

/**
 * What the retry icon of a history row does. Every failed call the dashboard can make again is retried the way it
 * was first made: a property valuation through POST /api/property/lookup, a person lookup through
 * POST /api/find-person with the same query and the same permissible purpose, a failed batch job through
 * POST /api/jobs/{id}/retry (it continues with the rows not yet valued). A failed row whose record lacks what the
 * call needs is "unavailable", with the reason the screen shows instead of the icon.
 */
export type RetryPlan =
  | { kind: "property"; body: PropertyLookupRequest }
  | { kind: "person"; body: FindPersonRequest }
  | { kind: "batch"; jobId: number; fileName: string }
  | { kind: "unavailable"; reason: string };

/** What the retry icon's tooltip says each kind costs. */
export const RETRY_TITLES: Record<Exclude<RetryPlan["kind"], "unavailable">, string> = {
  property: "Run this lookup again (1 credit if it succeeds)",
  person: "Run this person lookup again with the same purpose (5 credits if found)",
  batch: "Retry this batch job: it continues with the rows not yet valued (1 credit each)",
};

function isPurpose(v: unknown): v is Purpose {
  return typeof v === "string" && (PURPOSE_VALUES as readonly string[]).includes(v);
}

/** The person lookup to send again, from the recorded query, or which required part the record lacks. */
function personRetry(data: Record<string, unknown>): FindPersonRequest | "no-query" | "no-purpose" {
  const name = stringField(data, "name");
  const city = stringField(data, "city");
  const state = stringField(data, "state_code");
  if (!name || !city || !state) return "no-query";
  if (!isPurpose(data.purpose)) return "no-purpose";
  const body: FindPersonRequest = { name, city, state_code: state, purpose: data.purpose };
  const street = stringField(data, "street_line_1");
  const zip = stringField(data, "postal_code");
  if (street) body.street_line_1 = street;
  if (zip) body.postal_code = zip;
  return body;
}

/** How a row is retried; null for a successful row (there is nothing to retry). */
export function retryPlan(entry: UsageEntry): RetryPlan | null {
  if (isSuccessStatus(entry.responseStatus)) return null;
  const data = (entry.requestData ?? {}) as Record<string, unknown>;
  switch (entry.apiService) {
    case "property_valuation": {
      const body = retryRequest(entry);
      return body
        ? { kind: "property", body }
        : { kind: "unavailable", reason: "This call recorded no address, so there is nothing to look up again." };
    }
    case "person_lookup": {
      const body = personRetry(data);
      if (body === "no-query") {
        return {
          kind: "unavailable",
          reason: "This lookup was refused before it had a name, city and state: run a new one from Person Lookup.",
        };
      }
      if (body === "no-purpose") {
        return {
          kind: "unavailable",
          reason: "This lookup recorded no permissible purpose: run it again from Person Lookup and choose one.",
        };
      }
      return { kind: "person", body };
    }
    case "batch": {
      const jobId = data.jobId;
      if (typeof jobId === "number" && Number.isInteger(jobId) && jobId > 0) {
        return { kind: "batch", jobId, fileName: stringField(data, "fileName") ?? `Batch #${jobId}` };
      }
      return { kind: "unavailable", reason: "This record names no batch job: retry it from Batch Upload." };
    }
    default:
      return { kind: "unavailable", reason: "This kind of call cannot be made again from the history." };
  }
}

export const CSV_HEADER = [
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
] as const;

/** The export of the rows shown: one line per call, the timestamp in UTC (RFC 3339) so it sorts and never shifts. */
export function historyCsv(entries: readonly UsageEntry[]): string {
  const rows: CsvValue[][] = [[...CSV_HEADER]];
  for (const e of entries) {
    rows.push([
      e.createdAt,
      e.propertyAddress ?? "",
      e.valuation,
      isSuccessStatus(e.responseStatus) ? "Success" : "Error",
      e.responseStatus,
      e.responseTimeMs,
      keyLabel(e.apiKeyName),
      e.endpoint,
      e.apiService,
      e.creditsUsed,
      e.requestId,
    ]);
  }
  return toCsv(rows);
}

/** The export's file name: usage-history-{timestamp}.csv, the timestamp in epoch milliseconds. */
export function historyFileName(timestamp: number = Date.now()): string {
  return `usage-history-${timestamp}.csv`;
}
