// Shapes of the Batch calls (api/openapi.yaml, tag Batch), taken from the generated contract so the screen and the
// server cannot drift apart silently.
import type { components } from "@/lib/api-types";

type Schemas = components["schemas"];

export type BatchJob = Schemas["BatchJob"];
export type BatchJobStatus = BatchJob["status"];
export type BatchPreview = Schemas["BatchPreview"];
export type BatchResult = Schemas["BatchResult"];
export type BatchResultStatus = BatchResult["status"];
export type BatchResultsPage = Schemas["BatchResultsPage"];
export type ColumnType = Schemas["ColumnType"];
export type ColumnMapping = Schemas["ColumnMapping"];
export type ColumnDetection = Schemas["ColumnDetection"];
export type CreateJobFromUpload = Schemas["CreateJobFromUpload"];
export type Plan = Schemas["User"]["plan"];

/** The two file formats of a job's results (GET /api/jobs/{id}/download?format=). */
export type DownloadFormat = "csv" | "xlsx";

/** The Status filter of the results table: every row, or one result status. */
export type ResultStatusFilter = "all" | BatchResultStatus;
