import type { ReactNode } from "react";
import { AlertCircle, Ban, Download, Eye, Inbox, RefreshCw, RotateCw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { Spinner } from "@/components/ui/spinner";
import { cn } from "@/lib/utils";
import type { BatchJob, DownloadFormat } from "../batch-types";
import {
  canCancel,
  canRetry,
  FETCH_JOBS_FAILED,
  formatCount,
  formatDateTime,
  formatPercent,
  jobProgress,
  offersDownload,
  processedText,
  QUEUE_POLL_MS,
  showsProgressBar,
  sourceLabel,
} from "../batch-helpers";
import { JobStatusBadge } from "./status-badges";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";

export interface JobActionState {
  cancellingId: number | null;
  retryingId: number | null;
  downloading: { id: number; format: DownloadFormat } | null;
}

interface JobQueueProps {
  jobs: readonly BatchJob[] | undefined;
  loading: boolean;
  /** The last read failed (the queue keeps polling). */
  failed: boolean;
  failureDetail: string;
  refetching: boolean;
  onRefetch: () => void;
  actions: JobActionState;
  onCancel: (job: BatchJob) => void;
  onRetry: (job: BatchJob) => void;
  onDownload: (job: BatchJob, format: DownloadFormat) => void;
  onView: (job: BatchJob) => void;
}

const COLUMNS = ["File", "Started", "Properties", "Status", "Progress", "Actions"] as const;

/** The Processing Queue: every job with its status and progress, read again every 3 seconds, and its actions. */
export function JobQueue(props: JobQueueProps) {
  const { jobs, loading, failed, failureDetail, refetching, onRefetch } = props;

  let body: ReactNode;
  if (loading) {
    body = (
      <div className="flex justify-center py-12">
        <Spinner label="Loading jobs" className="h-8 w-8" />
      </div>
    );
  } else if (!jobs) {
    body = (
      <div role="alert" data-testid="jobs-error" className="flex flex-col items-center gap-3 py-12 text-center">
        <AlertCircle className="h-8 w-8 text-destructive" aria-hidden="true" />
        <p className="font-medium">{FETCH_JOBS_FAILED}</p>
        {failureDetail ? <p className="text-sm text-muted-foreground">{failureDetail}</p> : null}
        <Button type="button" variant="outline" onClick={onRefetch} disabled={refetching}>
          <RefreshCw className={cn(refetching && "animate-spin")} aria-hidden="true" />
          Retry
        </Button>
      </div>
    );
  } else if (jobs.length === 0) {
    body = (
      <div data-testid="jobs-empty" className="flex flex-col items-center gap-2 py-12 text-center">
        <Inbox className="h-10 w-10 text-muted-foreground" aria-hidden="true" />
        <p className="font-medium">No batch jobs yet</p>
        <p className="max-w-md text-sm text-muted-foreground">
          Upload a file above: its job shows here with its progress, and its results can be downloaded when it is done.
        </p>
      </div>
    );
  } else {
    body = <JobTable {...props} jobs={jobs} />;
  }

  return (
    <Card>
      <CardHeader className="flex flex-col gap-2 space-y-0 sm:flex-row sm:items-start sm:justify-between">
        <div className="space-y-1.5">
          <h2 className="text-lg font-semibold leading-none tracking-tight">Processing Queue</h2>
          <CardDescription>Your latest jobs, refreshed every {QUEUE_POLL_MS / 1000} seconds.</CardDescription>
        </div>
        {failed && jobs ? (
          <p role="status" className="flex items-center gap-1.5 text-sm text-destructive">
            <AlertCircle className="h-4 w-4" aria-hidden="true" />
            {FETCH_JOBS_FAILED}; showing the last known state.
          </p>
        ) : null}
      </CardHeader>
      <CardContent className={cn(jobs && jobs.length > 0 && "p-0 pb-2")}>{body}</CardContent>
    </Card>
  );
}

function JobTable({ jobs, actions, onCancel, onRetry, onDownload, onView }: JobQueueProps & { jobs: readonly BatchJob[] }) {
  return (
    <TableScroll>
      <table data-testid="jobs-table" className="w-full text-sm sm:min-w-[52rem]">
        <caption className="sr-only">Batch jobs</caption>
        <thead className={cardTable.head}>
          <tr className="border-y bg-muted/40 text-left">
            {COLUMNS.map((c) => (
              <th
                key={c}
                scope="col"
                className={cn(
                  "h-10 px-3 font-medium text-muted-foreground",
                  c === "Properties" && "text-right",
                  c === "Actions" && "text-right",
                  c === "Progress" && "w-40",
                )}
              >
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={cardTable.body}>
          {jobs.map((job) => (
            <JobRow
              key={job.id}
              job={job}
              actions={actions}
              onCancel={onCancel}
              onRetry={onRetry}
              onDownload={onDownload}
              onView={onView}
            />
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

interface JobRowProps {
  job: BatchJob;
  actions: JobActionState;
  onCancel: (job: BatchJob) => void;
  onRetry: (job: BatchJob) => void;
  onDownload: (job: BatchJob, format: DownloadFormat) => void;
  onView: (job: BatchJob) => void;
}

function JobRow({ job, actions, onCancel, onRetry, onDownload, onView }: JobRowProps) {
  const progress = jobProgress(job);
  const cancelling = actions.cancellingId === job.id;
  const retrying = actions.retryingId === job.id;
  const downloading = actions.downloading?.id === job.id ? actions.downloading.format : null;
  const source = sourceLabel(job.source);

  return (
    <tr data-testid="job-row" data-job-id={job.id} className={cn("border-b align-top last:border-0 hover:bg-muted/30", cardTable.row[2])}>
      <td className={cn("px-3 py-3 sm:max-w-[16rem]", cardTable.span)}>
        <div className="truncate font-medium" title={job.fileName}>
          {job.fileName}
        </div>
        {source !== "Dashboard" ? <div className="text-xs text-muted-foreground">{source}</div> : null}
        {job.statusMessage ? (
          <p
            data-testid="job-status-message"
            className={cn("mt-1 text-xs", job.status === "failed" ? "text-destructive" : "text-amber-700")}
          >
            {job.statusMessage}
          </p>
        ) : null}
      </td>
      <td data-label="Started" className={cn("whitespace-nowrap px-3 py-3", cardTable.cell)}>
        <time dateTime={job.createdAt}>{formatDateTime(job.createdAt)}</time>
      </td>
      <td data-label="Properties" className={cn("px-3 py-3 text-right tabular-nums", cardTable.cell)}>
        {formatCount(job.totalProperties)}
      </td>
      <td data-label="Status" className={cn("px-3 py-3", cardTable.cell)}>
        <JobStatusBadge status={job.status} />
      </td>
      <td data-label="Progress" className={cn("px-3 py-3", cardTable.cell)} data-testid="job-progress">
        {showsProgressBar(job.status) ? (
          <Progress
            value={progress}
            aria-label={`Progress of ${job.fileName}`}
            aria-valuetext={`${formatPercent(progress)}, ${processedText(job)} properties`}
            className="mb-1.5"
            indicatorClassName={job.status === "completed" ? "bg-green-600" : undefined}
          />
        ) : null}
        <div className="flex justify-between gap-2 whitespace-nowrap text-xs text-muted-foreground tabular-nums">
          <span data-testid="job-processed">{processedText(job)}</span>
          {showsProgressBar(job.status) ? <span>{formatPercent(progress)}</span> : null}
          {job.status === "pending" ? <span>Waiting to start</span> : null}
        </div>
      </td>
      <td className={cn("px-3 py-3", cardTable.span)}>
        <div className="flex flex-nowrap justify-end gap-1 max-sm:flex-wrap max-sm:justify-start">
          {canCancel(job) ? (
            <Button
              type="button"
              variant="outline"
              size="sm"
              className="h-8 px-2.5"
              disabled={cancelling}
              onClick={() => onCancel(job)}
            >
              <Ban aria-hidden="true" />
              {cancelling ? "Cancelling…" : "Cancel"}
            </Button>
          ) : null}
          {canRetry(job) ? (
            <Button
              type="button"
              variant="outline"
              size="sm"
              className="h-8 px-2.5"
              disabled={retrying}
              onClick={() => onRetry(job)}
            >
              <RotateCw className={cn(retrying && "animate-spin")} aria-hidden="true" />
              Retry
            </Button>
          ) : null}
          {offersDownload(job)
            ? (["csv", "xlsx"] as const).map((format) => (
                <Button
                  key={format}
                  type="button"
                  variant="outline"
                  size="sm"
                  className="h-8 px-2.5"
                  aria-label={`Download ${format.toUpperCase()}`}
                  title={`Download the results as ${format.toUpperCase()}`}
                  disabled={downloading !== null}
                  onClick={() => onDownload(job, format)}
                >
                  {downloading === format ? (
                    <RefreshCw className="animate-spin" aria-hidden="true" />
                  ) : (
                    <Download aria-hidden="true" />
                  )}
                  {format.toUpperCase()}
                </Button>
              ))
            : null}
          <Button
            type="button"
            variant="ghost"
            size="icon"
            className="h-8 w-8"
            aria-label="View details"
            title="View details"
            onClick={() => onView(job)}
          >
            <Eye aria-hidden="true" />
          </Button>
        </div>
      </td>
    </tr>
  );
}
