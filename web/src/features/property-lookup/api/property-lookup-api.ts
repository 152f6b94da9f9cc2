import { useMutation } from "@tanstack/react-query";
import { ApiError, apiJson, apiRequest } from "@/lib/api";
import type { PropertyLookupRequest, PropertyValuation, ReportRequest } from "@/lib/types";

// POST /api/property/lookup (api/openapi.yaml, operation lookupProperty): answers {data: PropertyValuation}; 400
// names the bad fields, 402 says the balance, 404 means the address cannot be valued (`area_not_covered`: outside the
// markets loaded in this installation; `property_not_found`: not on record without its facts, or not placed), 503
// while the engine warms up. POST /api/properties/download-report (downloadPropertyReport) answers the report as CSV
// text.

export const LOOKUP_PATH = "/api/property/lookup";
export const REPORT_PATH = "/api/properties/download-report";

export async function lookupProperty(body: PropertyLookupRequest): Promise<PropertyValuation> {
  const res = await apiJson<{ data: PropertyValuation }>("POST", LOOKUP_PATH, body);
  return res.data;
}

export function useLookupProperty() {
  return useMutation({ mutationFn: lookupProperty });
}

/** The message of the spec (section 7) when the server answers an empty report. */
export const EMPTY_REPORT_MESSAGE = "No data in report";

export class EmptyReportError extends Error {
  constructor() {
    super(EMPTY_REPORT_MESSAGE);
    this.name = "EmptyReportError";
  }
}

/** Asks the server for the CSV report of a valuation; an empty answer is an error (spec section 7). */
export async function fetchReportCsv(body: ReportRequest): Promise<string> {
  const res = await apiRequest("POST", REPORT_PATH, body);
  const text = await res.text();
  if (text.trim() === "") throw new EmptyReportError();
  return text;
}

/** Whether a failed report is the "no data" case: our own check of the answer, or the server's 400 saying so. */
export function isEmptyReport(err: unknown): boolean {
  if (err instanceof EmptyReportError) return true;
  return err instanceof ApiError && err.status === 400 && err.body?.error === EMPTY_REPORT_MESSAGE;
}

export function useDownloadReport() {
  return useMutation({ mutationFn: fetchReportCsv });
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}

/**
 * A 404 `area_not_covered`: the address lies outside the markets loaded in this installation (farther than 25 miles
 * from every sale it holds); the message names the place ("We have no sales near 33131"). Free.
 */
export function isAreaNotCovered(err: unknown): boolean {
  return isNotFound(err) && err instanceof ApiError && err.body?.code === "area_not_covered";
}

/**
 * A 422: a value that is not sold (free). Either `valuation_too_uncertain` (its range would be over three times
 * wide) or `outside_records` (a fact given lies far outside what the records of the area hold; isOutsideRecords).
 */
export function isTooUncertain(err: unknown): boolean {
  return err instanceof ApiError && err.status === 422;
}

/** A 422 `outside_records`: a fact given for a home not on record lies far outside the records of its area. */
export function isOutsideRecords(err: unknown): boolean {
  return isTooUncertain(err) && err instanceof ApiError && err.body?.code === "outside_records";
}
