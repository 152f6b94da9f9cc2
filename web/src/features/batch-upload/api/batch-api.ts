import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiJson, apiRequest } from "@/lib/api";
import type {
  BatchJob,
  BatchPreview,
  BatchResultsPage,
  CreateJobFromUpload,
  DownloadFormat,
  ResultStatusFilter,
} from "../batch-types";
import {
  cancelUrl,
  downloadUrl,
  EXAMPLE_PATH,
  JOBS_PATH,
  PREVIEW_PATH,
  QUEUE_POLL_MS,
  resultsFileName,
  resultsUrl,
  retryUrl,
  upsertJob,
} from "../batch-helpers";

// The Batch calls of the dashboard (api/openapi.yaml, tag Batch; working-screens spec, section 7):
// POST /api/jobs/preview (multipart `file`) answers a BatchPreview for the 'Address Field Mapping' screen;
// POST /api/jobs {uploadId, mapping} answers 201 with the queued BatchJob; GET /api/jobs lists the jobs (the
// Processing Queue, polled every 3 s); GET /api/jobs/{id}/results pages the rows; GET /api/jobs/{id}/download the
// file; POST /api/jobs/{id}/cancel and /retry answer the changed job; GET /api/batch/example.csv the example file.
// Reads go through the default query function, which fetches the query key.

/** The queue's query key: the default query function reads it as the URL. */
export const jobsQueryKey = [JOBS_PATH] as const;

/** Sends a file as multipart/form-data (field `file`) through the one API helper and reads the JSON answer. */
export async function postFile<T>(url: string, file: File, field = "file"): Promise<T> {
  const form = new FormData();
  form.append(field, file, file.name);
  return apiJson<T>("POST", url, form);
}

export function previewFile(file: File): Promise<BatchPreview> {
  return postFile<BatchPreview>(PREVIEW_PATH, file);
}

export function usePreviewFile() {
  return useMutation({ mutationFn: previewFile });
}

/** The Processing Queue: fetched when the screen opens and every 3 seconds while it is open (and the tab shown). */
export function useJobs() {
  return useQuery<BatchJob[]>({
    queryKey: jobsQueryKey,
    refetchInterval: QUEUE_POLL_MS,
    refetchOnMount: "always",
  });
}

/** After the server answers a job: show it at once in the queue, then read the queue again. */
function useJobAnswered() {
  const queryClient = useQueryClient();
  return (job: BatchJob) => {
    queryClient.setQueryData<BatchJob[]>(jobsQueryKey, (jobs) => upsertJob(jobs, job));
    void queryClient.invalidateQueries({ queryKey: jobsQueryKey });
  };
}

export function useCreateJob() {
  const answered = useJobAnswered();
  return useMutation({
    mutationFn: (body: CreateJobFromUpload) => apiJson<BatchJob>("POST", JOBS_PATH, body),
    onSuccess: answered,
  });
}

export function useCancelJob() {
  const answered = useJobAnswered();
  return useMutation({
    mutationFn: (id: number) => apiJson<BatchJob>("POST", cancelUrl(id)),
    onSuccess: answered,
  });
}

export function useRetryJob() {
  const answered = useJobAnswered();
  return useMutation({
    mutationFn: (id: number) => apiJson<BatchJob>("POST", retryUrl(id)),
    onSuccess: answered,
  });
}

/**
 * One page of a job's results. While the job runs the page is read again every 3 seconds (rows go from pending to
 * valued); while another page or filter loads, the previous rows stay on screen.
 */
export function useJobResults(jobId: number, page: number, status: ResultStatusFilter, options: { enabled: boolean; live: boolean }) {
  return useQuery<BatchResultsPage>({
    queryKey: [resultsUrl(jobId, page, status)],
    placeholderData: keepPreviousData,
    refetchOnMount: "always",
    refetchInterval: options.live ? QUEUE_POLL_MS : false,
    enabled: options.enabled,
  });
}

export interface DownloadedFile {
  blob: Blob;
  fileName: string;
}

/** The job's results as a file (CSV or XLSX), named by the server's Content-Disposition when it sends one. */
export async function fetchJobDownload(job: Pick<BatchJob, "id" | "fileName">, format: DownloadFormat): Promise<DownloadedFile> {
  const res = await apiRequest("GET", downloadUrl(job.id, format));
  const blob = await res.blob();
  return { blob, fileName: resultsFileName(job, format, res.headers.get("Content-Disposition")) };
}

/** The 'Download Examples' template (five rows with varied column naming). */
export async function fetchExampleCsv(): Promise<string> {
  const res = await apiRequest("GET", EXAMPLE_PATH);
  return res.text();
}
