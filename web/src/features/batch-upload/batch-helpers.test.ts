import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api";
import type { BatchJobStatus, ColumnMapping } from "./batch-types";
import {
  assignColumnType,
  canCancel,
  canRetry,
  checkBatchFile,
  COLUMN_TYPE_LABELS,
  COLUMN_TYPES,
  contentDispositionFileName,
  detectedTypeLabel,
  detectionFor,
  downloadUrl,
  errorTitle,
  exceedsPlanLimit,
  fileExtension,
  finishedJobIds,
  formatConfidence,
  formatCount,
  formatDateTime,
  formatInteger,
  formatNumber,
  formatPercent,
  formatText,
  formatUsd,
  formatYear,
  hasDownloadableResults,
  isActive,
  isMappingValid,
  isResultStatusFilter,
  isResultsGone,
  jobProgress,
  FILE_LIMIT_TEXT,
  mappingHint,
  mappingStatus,
  MAX_FILE_BYTES,
  normalizeMapping,
  offersDownload,
  planBatchLimit,
  planLimitProblem,
  processedText,
  reasonLabel,
  resultsFileName,
  resultsUrl,
  sampleValues,
  showingText,
  showsProgressBar,
  sourceLabel,
  successRate,
  upsertJob,
  cancelUrl,
  retryUrl,
} from "./batch-helpers";
import { makeJob } from "./test-fixtures";

const ALL_STATUSES: BatchJobStatus[] = ["pending", "processing", "completed", "failed", "cancelled"];

describe("file checks", () => {
  it.each([
    ["props.csv", "csv"],
    ["Props.XLSX", "xlsx"],
    ["archive.tar.xls", "xls"],
    ["noext", ""],
    [".csv", ""],
    ["trailing.", ""],
  ])("fileExtension(%s) = %s", (name, want) => {
    expect(fileExtension(name)).toBe(want);
  });

  it.each(["a.csv", "a.CSV", "b.xlsx", "c.xls", "My File (1).Xlsx"])("accepts %s", (name) => {
    expect(checkBatchFile({ name, size: 10 })).toBeNull();
  });

  it.each(["a.txt", "a.csv.exe", "a", "a.xlsm", "a.numbers", "a.json", ".csv"])("refuses %s as the wrong type", (name) => {
    expect(checkBatchFile({ name, size: 10 })).toEqual({
      title: "Invalid File Type",
      message: "Please upload a CSV or Excel file",
    });
  });

  it("allows exactly 50MB and refuses one byte more", () => {
    expect(MAX_FILE_BYTES).toBe(50 * 1024 * 1024);
    expect(checkBatchFile({ name: "a.csv", size: MAX_FILE_BYTES })).toBeNull();
    expect(checkBatchFile({ name: "a.csv", size: MAX_FILE_BYTES + 1 })).toEqual({
      title: "File Too Large",
      message: "Please upload a file smaller than 50MB",
    });
  });

  it("reports the type before the size", () => {
    expect(checkBatchFile({ name: "a.pdf", size: MAX_FILE_BYTES * 2 })?.title).toBe("Invalid File Type");
  });
});

describe("plan limits", () => {
  it.each([
    ["free", 100],
    ["basic", 1_000],
    ["professional", 10_000],
    ["enterprise", 50_000],
    [undefined, 100],
    [null, 100],
    ["platinum", 100],
    ["toString", 100],
  ])("plan %s allows %i properties per upload", (plan, want) => {
    expect(planBatchLimit(plan)).toBe(want);
  });

  it("words the file line without a plan figure (the plan's limit has its own line, from the plan table)", () => {
    expect(FILE_LIMIT_TEXT).toBe("CSV or Excel files (.csv, .xlsx, .xls), up to 50MB");
  });

  it("flags only files with more rows than the limit", () => {
    expect(exceedsPlanLimit(100, 100)).toBe(false);
    expect(exceedsPlanLimit(101, 100)).toBe(true);
    expect(planLimitProblem(100, 100)).toBeNull();
    expect(planLimitProblem(12_500, 10_000)).toBe(
      "This file has 12,500 properties, more than the 10,000 your plan allows per upload. Split the file or upgrade your plan.",
    );
  });
});

describe("column mapping", () => {
  it("offers every type with the screen's labels", () => {
    expect(COLUMN_TYPES.map((t) => COLUMN_TYPE_LABELS[t])).toEqual([
      "Full Address",
      "Street Address",
      "Street",
      "City",
      "State",
      "ZIP Code",
      "Property Type",
      "Square Feet",
      "Bedrooms",
      "Bathrooms",
      "Year Built",
      "Lot Size (sq ft)",
      "Ignore",
    ]);
  });

  it("labels the facts of a home when detected, and needs the address still", () => {
    expect(detectedTypeLabel("squareFeet")).toBe("Square Feet");
    expect(detectedTypeLabel("propertyType")).toBe("Property Type");
    expect(isMappingValid({ Type: "propertyType", Size: "squareFeet" })).toBe(false);
    expect(isMappingValid({ Full: "fullAddress", Type: "propertyType", Size: "squareFeet" })).toBe(true);
  });

  it("labels detected types, unknown included", () => {
    expect(detectedTypeLabel("zip")).toBe("ZIP Code");
    expect(detectedTypeLabel("fullAddress")).toBe("Full Address");
    expect(detectedTypeLabel("unknown")).toBe("Unknown");
    expect(detectedTypeLabel("ignore")).toBe("Unknown");
    expect(detectedTypeLabel("")).toBe("Unknown");
  });

  it("normalizes the server's mapping to every header, unknown types and missing headers ignored", () => {
    const got = normalizeMapping(["A", "B", "C", "constructor"], { A: "city", B: "bogus" as ColumnMapping[string], X: "zip" });
    expect(got).toEqual({ A: "city", B: "ignore", C: "ignore", constructor: "ignore" });
  });

  it("assigns a type and clears it from the column that had it", () => {
    const m: ColumnMapping = { A: "address", B: "city", C: "state", D: "ignore" };
    expect(assignColumnType(m, "D", "city")).toEqual({ A: "address", B: "ignore", C: "state", D: "city" });
    // The original is left alone.
    expect(m.B).toBe("city");
  });

  it("lets many columns be ignored", () => {
    const m: ColumnMapping = { A: "ignore", B: "city", C: "ignore" };
    expect(assignColumnType(m, "B", "ignore")).toEqual({ A: "ignore", B: "ignore", C: "ignore" });
  });

  it("moving a column to another type frees its old one", () => {
    const m: ColumnMapping = { A: "address", B: "city" };
    expect(assignColumnType(m, "A", "zip")).toEqual({ A: "zip", B: "city" });
  });

  it("does not clear street when address is chosen (they are different types)", () => {
    const m: ColumnMapping = { A: "street", B: "ignore" };
    expect(assignColumnType(m, "B", "address")).toEqual({ A: "street", B: "address" });
  });

  it.each<[string, ColumnMapping, boolean, string[]]>([
    ["full address alone", { A: "fullAddress", B: "ignore" }, true, []],
    ["address, city, state, zip", { A: "address", B: "city", C: "state", D: "zip" }, true, []],
    ["street, city, state, zip", { A: "street", B: "city", C: "state", D: "zip" }, true, []],
    ["no zip", { A: "address", B: "city", C: "state" }, false, ["ZIP Code"]],
    ["no street", { B: "city", C: "state", D: "zip" }, false, ["Street Address (or Street)"]],
    ["nothing", { A: "ignore" }, false, ["Street Address (or Street)", "City", "State", "ZIP Code"]],
    ["empty", {}, false, ["Street Address (or Street)", "City", "State", "ZIP Code"]],
  ])("%s", (_, mapping, valid, missing) => {
    expect(mappingStatus(mapping)).toEqual({ valid, missing });
    expect(isMappingValid(mapping)).toBe(valid);
    expect(mappingHint(mapping) === null).toBe(valid);
  });

  it("says what is missing in the hint", () => {
    expect(mappingHint({ A: "address", B: "state" })).toBe(
      "Map a Full Address column, or separate Street Address (or Street), City, State and ZIP Code columns. " +
        "Still missing: City, ZIP Code.",
    );
  });

  it("finds a column's detection", () => {
    const d = [{ column: "Zip", type: "zip", confidence: 0.95 }];
    expect(detectionFor(d, "Zip")?.confidence).toBe(0.95);
    expect(detectionFor(d, "City")).toBeUndefined();
  });

  it("takes up to three non-blank sample values of a column, trimmed", () => {
    const rows = [["a", " x "], ["b", ""], ["c"], ["d", "y"], ["e", "z"], ["f", "w"]];
    expect(sampleValues(rows, 0)).toEqual(["a", "b", "c"]);
    expect(sampleValues(rows, 1)).toEqual(["x", "y", "z"]);
    expect(sampleValues(rows, 1, 5)).toEqual(["x", "y", "z", "w"]);
    expect(sampleValues(rows, 7)).toEqual([]);
    expect(sampleValues([], 0)).toEqual([]);
  });
});

describe("job progress", () => {
  const job = (status: BatchJobStatus, processed: number, total: number) => ({
    status,
    processedProperties: processed,
    totalProperties: total,
  });

  it("is 100 for a completed job whatever the counts", () => {
    expect(jobProgress(job("completed", 3, 10))).toBe(100);
    expect(jobProgress(job("completed", 0, 0))).toBe(100);
  });

  it("is processed/total as a percent (not rounded) for failed and cancelled jobs, 0 when none processed", () => {
    expect(jobProgress(job("failed", 1, 3))).toBeCloseTo(33.333, 2);
    expect(jobProgress(job("cancelled", 50, 200))).toBe(25);
    expect(jobProgress(job("failed", 0, 200))).toBe(0);
    expect(jobProgress(job("cancelled", 0, 0))).toBe(0);
  });

  it("is processed/total rounded for pending and processing jobs, 0 when the total is 0", () => {
    expect(jobProgress(job("processing", 1, 3))).toBe(33);
    expect(jobProgress(job("processing", 2, 3))).toBe(67);
    expect(jobProgress(job("pending", 0, 100))).toBe(0);
    expect(jobProgress(job("processing", 5, 0))).toBe(0);
  });

  it("stays within 0-100 on inconsistent counts", () => {
    expect(jobProgress(job("processing", 150, 100))).toBe(100);
    expect(jobProgress(job("failed", 150, 100))).toBe(100);
    expect(jobProgress(job("processing", -5, 100))).toBe(0);
  });

  it("shows the bar for processing and completed jobs only", () => {
    expect(ALL_STATUSES.filter(showsProgressBar)).toEqual(["processing", "completed"]);
  });

  it("shows processed / total", () => {
    expect(processedText({ processedProperties: 1250, totalProperties: 5000 })).toBe("1,250 / 5,000");
  });
});

describe("success rate", () => {
  it("is successful/total as a percent on completed jobs", () => {
    expect(successRate(makeJob({ totalProperties: 200, successfulProperties: 190 }))).toBe(95);
    expect(successRate(makeJob({ totalProperties: 3, successfulProperties: 1 }))).toBeCloseTo(33.333, 2);
    expect(successRate(makeJob({ totalProperties: 10, successfulProperties: 0 }))).toBe(0);
  });

  it("is null for other statuses and for an empty job", () => {
    for (const status of ["pending", "processing", "failed", "cancelled"] as const) {
      expect(successRate(makeJob({ status }))).toBeNull();
    }
    expect(successRate(makeJob({ totalProperties: 0, successfulProperties: 0 }))).toBeNull();
  });
});

describe("job actions", () => {
  it("cancels pending and processing jobs", () => {
    expect(ALL_STATUSES.filter((status) => canCancel({ status }))).toEqual(["pending", "processing"]);
    expect(ALL_STATUSES.filter(isActive)).toEqual(["pending", "processing"]);
  });

  it("retries failed and cancelled jobs", () => {
    expect(ALL_STATUSES.filter((status) => canRetry({ status }))).toEqual(["failed", "cancelled"]);
  });

  it("offers downloads on completed jobs, and on others with valued rows still kept", () => {
    expect(offersDownload(makeJob({ status: "completed", successfulProperties: 0 }))).toBe(true);
    expect(offersDownload(makeJob({ status: "completed", resultsAvailable: false }))).toBe(true);
    expect(offersDownload(makeJob({ status: "processing", successfulProperties: 4 }))).toBe(true);
    expect(offersDownload(makeJob({ status: "cancelled", successfulProperties: 4 }))).toBe(true);
    expect(offersDownload(makeJob({ status: "failed", successfulProperties: 4, resultsAvailable: false }))).toBe(false);
    expect(offersDownload(makeJob({ status: "failed", successfulProperties: 0 }))).toBe(false);
    expect(offersDownload(makeJob({ status: "pending", successfulProperties: 0 }))).toBe(false);
  });

  it("has something to download only while results are kept and some row was processed", () => {
    expect(hasDownloadableResults(makeJob())).toBe(true);
    expect(hasDownloadableResults(makeJob({ resultsAvailable: false }))).toBe(false);
    expect(hasDownloadableResults(makeJob({ processedProperties: 0, successfulProperties: 0, totalProperties: 0 }))).toBe(false);
    expect(hasDownloadableResults(makeJob({ processedProperties: 5, successfulProperties: 0 }))).toBe(true);
  });

  it("finds the jobs that stopped between two reads", () => {
    const before = [
      makeJob({ id: 1, status: "processing" }),
      makeJob({ id: 2, status: "pending" }),
      makeJob({ id: 3, status: "completed" }),
      makeJob({ id: 4, status: "processing" }),
    ];
    const after = [
      makeJob({ id: 5, status: "completed" }),
      makeJob({ id: 1, status: "completed" }),
      makeJob({ id: 2, status: "processing" }),
      makeJob({ id: 3, status: "completed" }),
      makeJob({ id: 4, status: "failed" }),
    ];
    expect(finishedJobIds(before, after)).toEqual([1, 4]);
    expect(finishedJobIds(undefined, after)).toEqual([]);
  });

  it("puts an answered job in place, or first when new", () => {
    const list = [makeJob({ id: 1 }), makeJob({ id: 2 })];
    const changed = makeJob({ id: 2, status: "cancelled" });
    expect(upsertJob(list, changed).map((j) => [j.id, j.status])).toEqual([
      [1, "completed"],
      [2, "cancelled"],
    ]);
    expect(upsertJob(list, makeJob({ id: 9 })).map((j) => j.id)).toEqual([9, 1, 2]);
    expect(upsertJob(undefined, makeJob({ id: 9 })).map((j) => j.id)).toEqual([9]);
  });

  it("names the source", () => {
    expect(sourceLabel("dashboard")).toBe("Dashboard");
    expect(sourceLabel("")).toBe("Dashboard");
    expect(sourceLabel("Production")).toBe("API key: Production");
  });
});

describe("urls and file names", () => {
  it("builds the results URL with the page size of 50 and the status filter", () => {
    expect(resultsUrl(7, 1)).toBe("/api/jobs/7/results?page=1&limit=50");
    expect(resultsUrl(7, 3, "all")).toBe("/api/jobs/7/results?page=3&limit=50");
    expect(resultsUrl(7, 2, "failed")).toBe("/api/jobs/7/results?page=2&limit=50&status=failed");
  });

  it("builds the action URLs", () => {
    expect(downloadUrl(7, "csv")).toBe("/api/jobs/7/download?format=csv");
    expect(downloadUrl(7, "xlsx")).toBe("/api/jobs/7/download?format=xlsx");
    expect(cancelUrl(7)).toBe("/api/jobs/7/cancel");
    expect(retryUrl(7)).toBe("/api/jobs/7/retry");
  });

  it.each([
    [null, null],
    ["", null],
    ["attachment", null],
    ['attachment; filename="results.csv"', "results.csv"],
    ["attachment; filename=results.xlsx", "results.xlsx"],
    ['attachment; filename="a \\"b\\".csv"', 'a "b".csv'],
    ["attachment; filename*=UTF-8''caf%C3%A9%20list.csv", "café list.csv"],
    ['attachment; filename="fallback.csv"; filename*=UTF-8\'\'real%20name.csv', "real name.csv"],
    ['attachment; filename="../../etc/passwd"', "passwd"],
    ["attachment; filename*=UTF-8''%E0%A4%A; filename=ok.csv", "ok.csv"],
  ])("reads the file name of %s", (header, want) => {
    expect(contentDispositionFileName(header)).toBe(want);
  });

  it("names results after the uploaded file unless the server names them", () => {
    const job = { id: 4, fileName: "My Portfolio.xlsx" };
    expect(resultsFileName(job, "csv")).toBe("My Portfolio-results.csv");
    expect(resultsFileName(job, "xlsx", null)).toBe("My Portfolio-results.xlsx");
    expect(resultsFileName(job, "csv", 'attachment; filename="batch-4.csv"')).toBe("batch-4.csv");
    expect(resultsFileName({ id: 4, fileName: 'a/b:c*?"<>|.csv' }, "csv")).toBe("a_b_c_-results.csv");
    expect(resultsFileName({ id: 4, fileName: "" }, "csv")).toBe("batch-4-results.csv");
    expect(resultsFileName({ id: 4, fileName: "???.csv" }, "csv")).toBe("batch-4-results.csv");
  });
});

describe("server errors", () => {
  const apiError = (status: number, body: unknown) => new ApiError(status, JSON.stringify(body));

  it("reads the error's title", () => {
    const err = apiError(400, { error: "Please upload a CSV or Excel file", code: "invalid_file", requestId: "r", title: "Invalid File Type" });
    expect(errorTitle(err)).toBe("Invalid File Type");
    // A file whose content is not a spreadsheet is answered 415 with the same title.
    expect(errorTitle(apiError(415, { error: "Please upload a CSV or Excel file", code: "invalid_file_type", requestId: "r", title: "Invalid File Type" }))).toBe("Invalid File Type");
    expect(errorTitle(apiError(400, { error: "x", code: "c", requestId: "r" }))).toBeNull();
    expect(errorTitle(apiError(400, { error: "x", code: "c", requestId: "r", title: "  " }))).toBeNull();
    expect(errorTitle(new ApiError(502, "<html>Bad gateway</html>"))).toBeNull();
    expect(errorTitle(new TypeError("Failed to fetch"))).toBeNull();
  });

  it("knows 410 Gone means the results were deleted", () => {
    expect(isResultsGone(apiError(410, { error: "deleted", code: "results_deleted", requestId: "r" }))).toBe(true);
    expect(isResultsGone(apiError(404, { error: "x", code: "not_found", requestId: "r" }))).toBe(false);
    expect(isResultsGone(new Error("x"))).toBe(false);
  });
});

describe("formatting", () => {
  it("formats counts, money and numbers", () => {
    expect(formatCount(50_000)).toBe("50,000");
    expect(formatUsd(987_400)).toBe("$987,400");
    expect(formatUsd(511.6)).toBe("$512");
    expect(formatUsd(null)).toBe("—");
    expect(formatUsd(undefined)).toBe("—");
    expect(formatNumber(2.5)).toBe("2.5");
    expect(formatNumber(3)).toBe("3");
    expect(formatNumber(null)).toBe("—");
    expect(formatInteger(1928)).toBe("1,928");
    expect(formatInteger(Number.NaN)).toBe("—");
    expect(formatYear(1998)).toBe("1998");
    expect(formatYear(null)).toBe("—");
    expect(formatText("Condo")).toBe("Condo");
    expect(formatText(" ")).toBe("—");
    expect(formatText(null)).toBe("—");
  });

  it("labels why a row was not valued", () => {
    expect(reasonLabel("not_found")).toBe("Not found");
    expect(reasonLabel("invalid")).toBe("Invalid");
    expect(reasonLabel("too_uncertain")).toBe("Too uncertain");
    expect(reasonLabel("outside_records")).toBe("Outside records");
    expect(reasonLabel("area_not_covered")).toBe("Outside our markets");
    expect(reasonLabel(null)).toBeNull();
    expect(reasonLabel(undefined)).toBeNull();
  });

  it("formats percents and confidences", () => {
    expect(formatPercent(95)).toBe("95%");
    expect(formatPercent(100 / 3)).toBe("33.3%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(null)).toBe("—");
    expect(formatConfidence(0.92)).toBe("92%");
    expect(formatConfidence(0.005)).toBe("1%");
    expect(formatConfidence(null)).toBe("—");
  });

  it("formats dates in local time, a dash for none, unreadable input as it came", () => {
    const iso = "2026-02-03T10:04:05Z";
    expect(formatDateTime(iso)).toBe(
      new Intl.DateTimeFormat("en-US", {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "numeric",
        minute: "2-digit",
      }).format(Date.parse(iso)),
    );
    expect(formatDateTime(null)).toBe("—");
    expect(formatDateTime("yesterday")).toBe("yesterday");
  });

  it("says which rows are shown", () => {
    expect(showingText(1, 50, 120)).toBe("Showing 1–50 of 120");
    expect(showingText(3, 50, 120)).toBe("Showing 101–120 of 120");
    expect(showingText(1, 50, 0)).toBe("Showing 0 of 0");
  });

  it("knows the result filters", () => {
    expect(["all", "success", "failed", "pending"].every(isResultStatusFilter)).toBe(true);
    expect(isResultStatusFilter("error")).toBe(false);
  });
});
