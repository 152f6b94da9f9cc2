// Test data for the Batch Upload tests (imported by tests only, never by the screen).
import type { Pagination } from "@/lib/types";
import type { BatchJob, BatchPreview, BatchResult, BatchResultsPage } from "./batch-types";
import { RESULTS_PAGE_SIZE } from "./batch-helpers";

export function makeJob(overrides: Partial<BatchJob> = {}): BatchJob {
  const id = overrides.id ?? 1;
  return {
    id,
    type: "batch",
    fileName: "portfolio.csv",
    status: "completed",
    totalProperties: 200,
    processedProperties: 200,
    successfulProperties: 190,
    failedProperties: 10,
    droppedRows: 0,
    creditsUsed: 190,
    createdAt: "2026-02-03T10:04:05Z",
    startedAt: "2026-02-03T10:04:06Z",
    completedAt: "2026-02-03T10:09:00Z",
    statusMessage: null,
    webhookUrl: null,
    source: "dashboard",
    resultsAvailable: true,
    downloadUrl: `/api/jobs/${id}/download`,
    ...overrides,
  };
}

export function makePreview(overrides: Partial<BatchPreview> = {}): BatchPreview {
  return {
    uploadId: 77,
    fileName: "portfolio.csv",
    headers: ["Property Address", "City", "ST", "Zip", "List Price"],
    sampleRows: [
      ["2114 Bigelow Ave N", "Seattle", "WA", "98109", "950000"],
      ["1 Main St", "Austin", "TX", "78701", "420000"],
      ["", "Reno", "NV", "89501", ""],
      ["9 Elm St", "Boise", "ID", "83702", "310000"],
    ],
    rowCount: 250,
    mapping: { "Property Address": "address", City: "city", ST: "state", Zip: "zip", "List Price": "ignore" },
    detections: [
      { column: "Property Address", type: "address", confidence: 0.9 },
      { column: "City", type: "city", confidence: 0.85 },
      { column: "ST", type: "state", confidence: 0.8 },
      { column: "Zip", type: "zip", confidence: 0.95 },
      { column: "List Price", type: "unknown", confidence: 0.1 },
    ],
    mappingValid: true,
    planLimit: 1000,
    ...overrides,
  };
}

export function makeResult(overrides: Partial<BatchResult> = {}): BatchResult {
  return {
    line: 2,
    address: "2114 Bigelow Ave N",
    fullAddress: "2114 Bigelow Ave N, Seattle, WA 98109",
    status: "success",
    estimatedValue: 987_400,
    valueLow: 930_000,
    valueHigh: 1_040_000,
    confidence: 0.92,
    matchCode: "exact",
    pricePerSqFt: 512,
    bedrooms: 3,
    bathrooms: 2.5,
    squareFeet: 1_928,
    yearBuilt: 1998,
    propertyType: "Single Family",
    rentEstimate: 3_900,
    lotSize: 5_000,
    imageUrl: null,
    error: null,
    ...overrides,
  };
}

/** One page of results; the pagination follows from the page, the total and the page size of 50. */
export function makeResultsPage(
  data: BatchResult[],
  { page = 1, total = data.length, limit = RESULTS_PAGE_SIZE } = {},
): BatchResultsPage {
  const totalPages = Math.ceil(total / limit);
  const pagination: Pagination = {
    page,
    limit,
    total,
    totalPages,
    hasPreviousPage: page > 1,
    hasNextPage: page < totalPages,
  };
  return { data, pagination };
}
