// Pure rules of the Batch Upload screen (working-screens spec, sections 2-5, 8 and 9; api/openapi.yaml, tag Batch):
// the file checks, the plan's batch size, the column-mapping rules, job progress and success rate, which actions a
// job offers, the request URLs and file names, and formatting. No React and no I/O, so each rule is tested alone.
import { planById } from "@/features/marketing/plans";
import { ApiError } from "@/lib/api";
import { plural } from "@/lib/format";
import type {
  BatchJob,
  BatchJobStatus,
  BatchResult,
  BatchResultStatus,
  ColumnDetection,
  ColumnMapping,
  ColumnType,
  DownloadFormat,
  ResultStatusFilter,
} from "./batch-types";

// ---------------------------------------------------------------------------------------------------------------
// Constants (spec section 9) and the spec's texts (sections 5 and 8).

/** Spec section 9: the batch file maximum, 50MB. */
export const MAX_FILE_MB = 50;
export const MAX_FILE_BYTES = MAX_FILE_MB * 1024 * 1024;
/** Spec section 9: the job list is polled every 3 seconds. */
export const QUEUE_POLL_MS = 3000;
/** Results are read 50 rows at a time (the contract's default page size). */
export const RESULTS_PAGE_SIZE = 50;
/** How many sample values of each column the mapping table shows. */
export const SAMPLE_VALUES_SHOWN = 3;

export const ACCEPTED_EXTENSIONS = ["csv", "xlsx", "xls"] as const;
/** The file input's accept list: the extensions and their media types. */
export const ACCEPT_ATTRIBUTE = [
  ".csv",
  ".xlsx",
  ".xls",
  "text/csv",
  "application/vnd.ms-excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
].join(",");

export const EXAMPLE_PATH = "/api/batch/example.csv";
export const EXAMPLE_FILE_NAME = "valuator-batch-example.csv";

export const INVALID_TYPE_TITLE = "Invalid File Type";
export const INVALID_TYPE_MESSAGE = "Please upload a CSV or Excel file";
export const TOO_LARGE_TITLE = "File Too Large";
export const TOO_LARGE_MESSAGE = `Please upload a file smaller than ${MAX_FILE_MB}MB`;

export const CREATE_FAILED_TITLE = "Upload Failed";
export const CREATE_FAILED = "Failed to create job";
export const CANCEL_FAILED_TITLE = "Cancel Failed";
export const CANCEL_FAILED = "Failed to cancel job";
export const RETRY_FAILED_TITLE = "Retry Failed";
export const RETRY_FAILED = "Failed to retry job";
export const FETCH_JOBS_FAILED = "Failed to fetch jobs";
export const NO_DATA_TITLE = "No Data";
export const NO_DATA_MESSAGE = "No results available for download";
export const DOWNLOAD_FAILED_TITLE = "Download Failed";
export const DOWNLOAD_FAILED = "Failed to download report. Please try again.";
/** Our fallbacks where the spec has no text. */
export const PREVIEW_FAILED_TITLE = "Upload Failed";
export const PREVIEW_FAILED = "The file could not be read. Please try again.";
export const EXAMPLE_FAILED = "Failed to download the example file. Please try again.";
export const FETCH_RESULTS_FAILED = "Failed to fetch results";

// ---------------------------------------------------------------------------------------------------------------
// The file checks (spec section 5), made before anything is sent.

export interface FileProblem {
  title: string;
  message: string;
}

/** The extension of a file name, lower case and without the dot ("" when there is none). */
export function fileExtension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot <= 0 || dot === name.length - 1 ? "" : name.slice(dot + 1).toLowerCase();
}

export function isAcceptedExtension(name: string): boolean {
  return (ACCEPTED_EXTENSIONS as readonly string[]).includes(fileExtension(name));
}

/** The first problem of a chosen file (the type first, then the size), or null when it may be sent. */
export function checkBatchFile(file: { name: string; size: number }): FileProblem | null {
  if (!isAcceptedExtension(file.name)) return { title: INVALID_TYPE_TITLE, message: INVALID_TYPE_MESSAGE };
  if (file.size > MAX_FILE_BYTES) return { title: TOO_LARGE_TITLE, message: TOO_LARGE_MESSAGE };
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// The plan's batch size (api/openapi.yaml, createJob: rows beyond it are refused), read from the one plan table
// (features/marketing/plans.ts, the mirror of internal/billing/plans.go).

/** Most properties one upload may hold on a plan; an unknown or missing plan gets the Free plan's limit. */
export function planBatchLimit(plan: string | null | undefined): number {
  return planById(plan).batchSize;
}

/** The upload zone's file line: "CSV or Excel files (.csv, .xlsx, .xls), up to 50MB". */
export const FILE_LIMIT_TEXT = `CSV or Excel files (.csv, .xlsx, .xls), up to ${MAX_FILE_MB}MB`;

export function exceedsPlanLimit(rowCount: number, planLimit: number): boolean {
  return rowCount > planLimit;
}

/** The warning for a file with more rows than the plan allows, or null when it fits. */
export function planLimitProblem(rowCount: number, planLimit: number): string | null {
  if (!exceedsPlanLimit(rowCount, planLimit)) return null;
  return (
    `This file has ${formatCount(rowCount)} ${plural(rowCount, "property", "properties")}, more than the ` +
    `${formatCount(planLimit)} your plan allows per upload. Split the file or upgrade your plan.`
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Column mapping (spec section 4).

/**
 * The types of the mapping select, in the order offered, with their labels: the address parts of the spec, then
 * the facts of a home that is not on record (valued from them alone: property type and square feet at least).
 */
export const COLUMN_TYPES: readonly ColumnType[] = [
  "fullAddress",
  "address",
  "street",
  "city",
  "state",
  "zip",
  "propertyType",
  "squareFeet",
  "bedrooms",
  "bathrooms",
  "yearBuilt",
  "lotSize",
  "ignore",
];

export const COLUMN_TYPE_LABELS: Readonly<Record<ColumnType, string>> = {
  fullAddress: "Full Address",
  address: "Street Address",
  street: "Street",
  city: "City",
  state: "State",
  zip: "ZIP Code",
  propertyType: "Property Type",
  squareFeet: "Square Feet",
  bedrooms: "Bedrooms",
  bathrooms: "Bathrooms",
  yearBuilt: "Year Built",
  lotSize: "Lot Size (sq ft)",
  ignore: "Ignore",
};

export function isColumnType(value: string): value is ColumnType {
  return (COLUMN_TYPES as readonly string[]).includes(value);
}

/** The label of a detected type; the detector's "unknown" (or anything else) reads "Unknown". */
export function detectedTypeLabel(type: string): string {
  return isColumnType(type) && type !== "ignore" ? COLUMN_TYPE_LABELS[type] : "Unknown";
}

/** The mapping to edit: every header once, with the server's type when it gave a known one, else ignore. */
export function normalizeMapping(headers: readonly string[], mapping: ColumnMapping): ColumnMapping {
  const out: ColumnMapping = {};
  for (const header of headers) {
    const type = Object.hasOwn(mapping, header) ? mapping[header] : undefined;
    out[header] = type !== undefined && isColumnType(type) ? type : "ignore";
  }
  return out;
}

/**
 * Gives a column a type. A type other than ignore belongs to one column at a time: any other column that had it
 * is set to ignore (spec: choosing a type for a column clears that type from any other column).
 */
export function assignColumnType(mapping: ColumnMapping, column: string, type: ColumnType): ColumnMapping {
  const out: ColumnMapping = {};
  for (const [header, current] of Object.entries(mapping)) {
    out[header] = header !== column && type !== "ignore" && current === type ? "ignore" : current;
  }
  out[column] = type;
  return out;
}

function isMapped(mapping: ColumnMapping, type: ColumnType): boolean {
  return Object.values(mapping).includes(type);
}

/** What a separate-columns mapping still lacks, as the labels the hint names. */
export type MissingPart = "Street Address (or Street)" | "City" | "State" | "ZIP Code";

export interface MappingStatus {
  valid: boolean;
  /** Empty when valid; otherwise what the separate-columns form still needs. */
  missing: MissingPart[];
}

/**
 * Spec: valid if fullAddress is mapped, or if (street or address) plus city plus state plus zip are all mapped.
 */
export function mappingStatus(mapping: ColumnMapping): MappingStatus {
  if (isMapped(mapping, "fullAddress")) return { valid: true, missing: [] };
  const missing: MissingPart[] = [];
  if (!isMapped(mapping, "address") && !isMapped(mapping, "street")) missing.push("Street Address (or Street)");
  if (!isMapped(mapping, "city")) missing.push("City");
  if (!isMapped(mapping, "state")) missing.push("State");
  if (!isMapped(mapping, "zip")) missing.push("ZIP Code");
  return { valid: missing.length === 0, missing };
}

export function isMappingValid(mapping: ColumnMapping): boolean {
  return mappingStatus(mapping).valid;
}

/** The hint beside a disabled Confirm: what to map, and what is still missing. Null when the mapping is valid. */
export function mappingHint(mapping: ColumnMapping): string | null {
  const { valid, missing } = mappingStatus(mapping);
  if (valid) return null;
  return (
    "Map a Full Address column, or separate Street Address (or Street), City, State and ZIP Code columns. " +
    `Still missing: ${missing.join(", ")}.`
  );
}

/** The detector's guess for a column, if it made one. */
export function detectionFor(detections: readonly ColumnDetection[], column: string): ColumnDetection | undefined {
  return detections.find((d) => d.column === column);
}

/** Up to `count` non-blank values of one column from the sample rows, trimmed. */
export function sampleValues(rows: readonly (readonly string[])[], columnIndex: number, count = SAMPLE_VALUES_SHOWN): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const value = row[columnIndex]?.trim();
    if (value) out.push(value);
    if (out.length >= count) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Jobs (spec section 4, "Batch job status").

export const JOB_STATUS_LABELS: Readonly<Record<BatchJobStatus, string>> = {
  pending: "Pending",
  processing: "Processing",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** Pending and processing jobs are still running (they can be cancelled, and their numbers change). */
export function isActive(status: BatchJobStatus): boolean {
  return status === "pending" || status === "processing";
}

type Counts = Pick<BatchJob, "status" | "totalProperties" | "processedProperties">;

/**
 * Spec: completed 100; failed or cancelled processed/total as a percent (0 if none processed); otherwise
 * processed/total rounded (0 if total is 0). Kept within 0-100.
 */
export function jobProgress(job: Counts): number {
  const { status, totalProperties: total, processedProperties: processed } = job;
  let pct: number;
  if (status === "completed") pct = 100;
  else if (status === "failed" || status === "cancelled") pct = processed > 0 && total > 0 ? (processed / total) * 100 : 0;
  else pct = total > 0 ? Math.round((processed / total) * 100) : 0;
  return Math.min(100, Math.max(0, pct));
}

/** Spec: the progress bar shows for processing and completed jobs. */
export function showsProgressBar(status: BatchJobStatus): boolean {
  return status === "processing" || status === "completed";
}

/** Spec: success rate on completed jobs is successful/total as a percent. Null for other jobs (and an empty job). */
export function successRate(job: Pick<BatchJob, "status" | "totalProperties" | "successfulProperties">): number | null {
  if (job.status !== "completed" || job.totalProperties <= 0) return null;
  return (job.successfulProperties / job.totalProperties) * 100;
}

export function canCancel(job: Pick<BatchJob, "status">): boolean {
  return isActive(job.status);
}

/** Failed and cancelled jobs can be retried (processing continues with the rows not yet valued). */
export function canRetry(job: Pick<BatchJob, "status">): boolean {
  return job.status === "failed" || job.status === "cancelled";
}

type DownloadFields = Pick<BatchJob, "status" | "successfulProperties" | "resultsAvailable">;

/** Whether the row offers the downloads: completed jobs, and any job with valued rows whose results are kept. */
export function offersDownload(job: DownloadFields): boolean {
  return job.status === "completed" || (job.successfulProperties > 0 && job.resultsAvailable);
}

/** Whether a download can have anything in it: results still kept and at least one row processed. */
export function hasDownloadableResults(job: DownloadFields & Pick<BatchJob, "processedProperties">): boolean {
  return job.resultsAvailable && (job.processedProperties > 0 || job.successfulProperties > 0);
}

/** The ids of jobs that were running in `before` and have stopped in `after` (credits were charged meanwhile). */
export function finishedJobIds(before: readonly BatchJob[] | undefined, after: readonly BatchJob[]): number[] {
  if (!before) return [];
  const wasActive = new Set(before.filter((j) => isActive(j.status)).map((j) => j.id));
  return after.filter((j) => wasActive.has(j.id) && !isActive(j.status)).map((j) => j.id);
}

/** Puts a job the server answered in the list in place of its older copy, or first when it is new. */
export function upsertJob(jobs: readonly BatchJob[] | undefined, job: BatchJob): BatchJob[] {
  const list = jobs ?? [];
  return list.some((j) => j.id === job.id) ? list.map((j) => (j.id === job.id ? job : j)) : [job, ...list];
}

/** Who started the job: "Dashboard", or the API key by name. */
export function sourceLabel(source: string): string {
  return source === "" || source === "dashboard" ? "Dashboard" : `API key: ${source}`;
}

// ---------------------------------------------------------------------------------------------------------------
// URLs and file names.

export const JOBS_PATH = "/api/jobs";
export const PREVIEW_PATH = "/api/jobs/preview";

/** GET /api/jobs/{id}/results with the page, the page size and the status filter ("all" sends none). */
export function resultsUrl(jobId: number, page: number, status: ResultStatusFilter = "all", limit = RESULTS_PAGE_SIZE): string {
  const params = new URLSearchParams({ page: String(page), limit: String(limit) });
  if (status !== "all") params.set("status", status);
  return `${JOBS_PATH}/${jobId}/results?${params.toString()}`;
}

export function downloadUrl(jobId: number, format: DownloadFormat): string {
  return `${JOBS_PATH}/${jobId}/download?format=${format}`;
}

export function cancelUrl(jobId: number): string {
  return `${JOBS_PATH}/${jobId}/cancel`;
}

export function retryUrl(jobId: number): string {
  return `${JOBS_PATH}/${jobId}/retry`;
}

/**
 * The file name in a Content-Disposition header (RFC 6266): filename* (UTF-8, percent-encoded) first, then filename
 * (quoted or not). Path parts are dropped. Null when there is none.
 */
export function contentDispositionFileName(header: string | null | undefined): string | null {
  if (!header) return null;
  let name: string | null = null;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)?'[^']*'([^;]+)/i.exec(header);
  if (star?.[1]) {
    try {
      name = decodeURIComponent(star[1].trim().replace(/^"|"$/g, ""));
    } catch {
      name = null;
    }
  }
  if (!name) {
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
    name = plain?.[1]?.replace(/\\(.)/g, "$1") ?? plain?.[2]?.trim() ?? null;
  }
  if (!name) return null;
  const base = name.split(/[\\/]/).pop()?.trim() ?? "";
  return base === "" ? null : base;
}

/** The uploaded file's name without its extension and without characters file systems refuse. */
function fileStem(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  return stem.replace(/[\u0000-\u001f\\/:*?"<>|]+/g, "_").trim();
}

/**
 * The saved name of a job's results: the server's (Content-Disposition) when it gives one, else
 * "{uploaded name}-results.{csv|xlsx}" ("batch-{id}-results" when the uploaded name is unusable).
 */
export function resultsFileName(
  job: Pick<BatchJob, "id" | "fileName">,
  format: DownloadFormat,
  contentDisposition?: string | null,
): string {
  const fromServer = contentDispositionFileName(contentDisposition);
  if (fromServer) return fromServer;
  const stem = fileStem(job.fileName);
  return `${stem && stem !== "_" ? stem : `batch-${job.id}`}-results.${format}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Server errors.

/** The short heading the server gives with a message (Error.title, e.g. 'Invalid File Type'), if any. */
export function errorTitle(err: unknown): string | null {
  if (!(err instanceof ApiError) || !err.body) return null;
  const title: unknown = (err.body as { title?: unknown }).title;
  return typeof title === "string" && title.trim() !== "" ? title : null;
}

/** 410 Gone: the job's results were deleted (24 hours after it finished). */
export function isResultsGone(err: unknown): boolean {
  return err instanceof ApiError && err.status === 410;
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting.

export const DASH = "—";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const usd = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 0,
  maximumFractionDigits: 0,
});
const dateTime = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
});

function isNumber(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

// The plural rule lives in lib/format; the batch screens import it from here as before.
export { plural };

/** A whole count with thousands separators ("10,000"). */
export function formatCount(n: number): string {
  return integer.format(n);
}

/** Whole US dollars ("$1,248,000"), or a dash for no value. */
export function formatUsd(value: number | null | undefined): string {
  return isNumber(value) ? usd.format(Math.round(value)) : DASH;
}

/** A number as given, up to two decimals (bathrooms: "2.5"), or a dash. */
export function formatNumber(value: number | null | undefined): string {
  return isNumber(value) ? decimal.format(value) : DASH;
}

/** A whole number with separators (square feet), or a dash. */
export function formatInteger(value: number | null | undefined): string {
  return isNumber(value) ? integer.format(Math.round(value)) : DASH;
}

/** A year as written ("1998", no separator), or a dash. */
export function formatYear(value: number | null | undefined): string {
  return isNumber(value) ? String(Math.round(value)) : DASH;
}

/** Why a failed row was not valued, as the results table shows it before the error; null for other rows. */
export function reasonLabel(reason: BatchResult["reason"]): string | null {
  switch (reason) {
    case "not_found":
      return "Not found";
    case "area_not_covered":
      return "Outside our markets";
    case "invalid":
      return "Invalid";
    case "too_uncertain":
      return "Too uncertain";
    case "outside_records":
      return "Outside records";
    default:
      return null;
  }
}

export function formatText(value: string | null | undefined): string {
  return value && value.trim() !== "" ? value : DASH;
}

/** A percent with at most one decimal ("87.5%", "100%"), or a dash. */
export function formatPercent(value: number | null | undefined): string {
  if (!isNumber(value)) return DASH;
  return `${Math.round(value * 10) / 10}%`;
}

/** A confidence between 0 and 1 as a whole percent ("92%"), or a dash. */
export function formatConfidence(value: number | null | undefined): string {
  return isNumber(value) ? `${Math.round(value * 100)}%` : DASH;
}

/** The local date and time ("Feb 3, 2026, 10:04 AM"); a dash for none, unreadable input as it came. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : dateTime.format(ms);
}

/** "processed / total" with separators ("1,250 / 5,000"). */
export function processedText(job: Pick<BatchJob, "processedProperties" | "totalProperties">): string {
  return `${formatCount(job.processedProperties)} / ${formatCount(job.totalProperties)}`;
}

/** "Showing 51–100 of 230" (an en dash), from the results' pagination. */
export function showingText(page: number, limit: number, total: number): string {
  if (total <= 0) return "Showing 0 of 0";
  const from = Math.min((page - 1) * limit + 1, total);
  const to = Math.min(page * limit, total);
  return `Showing ${formatCount(from)}–${formatCount(to)} of ${formatCount(total)}`;
}

export const RESULT_STATUS_LABELS: Readonly<Record<BatchResultStatus, string>> = {
  success: "Success",
  failed: "Failed",
  pending: "Pending",
};

export const RESULT_FILTERS: readonly { value: ResultStatusFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "success", label: "Success" },
  { value: "failed", label: "Failed" },
  { value: "pending", label: "Pending" },
];

export function isResultStatusFilter(value: string): value is ResultStatusFilter {
  return RESULT_FILTERS.some((f) => f.value === value);
}
