import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { apiJson, apiRequest } from "@/lib/api";
import type { PersonAuditLog, PersonAuditParams, PersonQuery } from "@/lib/types";
import { attachmentFileName } from "@/features/billing/billing-helpers";
import type { Purpose } from "../person-types";

// GET /api/person/audit (personAudit): every person lookup of the account, newest first, `limit` at a time, the next
// page by `before=pagination.nextBefore`; optionally from and to a day (UTC, YYYY-MM-DD) and for one purpose;
// `format=csv` answers all that match as a file.
// GET /api/person/demo-resident (personDemoResident): a demo resident to try the form with, on development servers
// only (404 in production).

export const AUDIT_PATH = "/api/person/audit";
export const DEMO_RESIDENT_PATH = "/api/person/demo-resident";

/** How many audit entries a page shows. */
export const AUDIT_PAGE_SIZE = 20;

/** The audit's filters as the screen holds them: "" is no filter. */
export interface AuditFilters {
  from: string;
  to: string;
  purpose: Purpose | "";
}

export const NO_AUDIT_FILTERS: AuditFilters = { from: "", to: "", purpose: "" };

/** The query parameters of the filters, leaving out the blank ones. */
export function auditParams(filters: AuditFilters): PersonAuditParams {
  const params: PersonAuditParams = {};
  if (filters.from) params.from = filters.from;
  if (filters.to) params.to = filters.to;
  if (filters.purpose) params.purpose = filters.purpose;
  return params;
}

function toSearch(params: PersonAuditParams): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== "") search.set(k, String(v));
  }
  return search.toString();
}

/** One page of the audit: `limit` entries, older than the entry id `before` when given. */
export function auditPageUrl(filters: AuditFilters, before: number | null, limit = AUDIT_PAGE_SIZE): string {
  const params: PersonAuditParams = { limit, ...auditParams(filters) };
  if (before !== null) params.before = before;
  return `${AUDIT_PATH}?${toSearch(params)}`;
}

/** The whole audit (with the same filters) as CSV. */
export function auditCsvUrl(filters: AuditFilters): string {
  return `${AUDIT_PATH}?${toSearch({ format: "csv", ...auditParams(filters) })}`;
}

export const auditQueryKey = [AUDIT_PATH] as const;

/**
 * The audit with the given filters, a page at a time; fetchNextPage reads the next older page ('Show more'). It is
 * read again each time the tab opens (a lookup made meanwhile must show); while other filters load, the rows shown
 * stay.
 */
export function usePersonAudit(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: [...auditQueryKey, filters],
    queryFn: ({ pageParam }) => apiJson<PersonAuditLog>("GET", auditPageUrl(filters, pageParam)),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.nextBefore : null) ?? undefined,
    placeholderData: keepPreviousData,
    refetchOnMount: "always",
  });
}

export interface DownloadedAudit {
  blob: Blob;
  fileName: string;
}

/** The audit as CSV, read with the session like every other call, named by the server when it says. */
export async function fetchAuditCsv(filters: AuditFilters): Promise<DownloadedAudit> {
  const res = await apiRequest("GET", auditCsvUrl(filters));
  const blob = await res.blob();
  return { blob, fileName: attachmentFileName(res.headers.get("Content-Disposition")) ?? "person-lookup-audit.csv" };
}

/**
 * A demo resident on a development server; on a production server (404) or any failure there is none, and the
 * form offers no demo. Asked once per session.
 */
export function useDemoResident() {
  return useQuery<PersonQuery>({ queryKey: [DEMO_RESIDENT_PATH], retry: false, staleTime: Infinity });
}
