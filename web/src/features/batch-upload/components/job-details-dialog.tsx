import { useState, type ReactNode } from "react";
import { Link } from "react-router";
import { AlertCircle, Briefcase, ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { errorMessage } from "@/lib/api";
import { useJobResults } from "../api/batch-api";
import type { BatchJob, ResultStatusFilter } from "../batch-types";
import {
  DASH,
  FETCH_RESULTS_FAILED,
  formatCount,
  formatDateTime,
  formatPercent,
  isActive,
  isResultStatusFilter,
  isResultsGone,
  RESULT_FILTERS,
  showingText,
  sourceLabel,
  successRate,
} from "../batch-helpers";
import { ResultsTable } from "./results-table";
import { JobStatusBadge } from "./status-badges";
import { WebhookSecret } from "./webhook-secret";

interface JobDetailsDialogProps {
  /** The job to show (its latest polled copy), or null when the dialog is closed. */
  job: BatchJob | null;
  onClose: () => void;
}

/** A job's summary and its rows, 50 at a time, filtered by result status. */
export function JobDetailsDialog({ job, onClose }: JobDetailsDialogProps) {
  return (
    <Dialog
      open={job !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      {/* As wide as the screen allows (up to 88rem), so that at 1440 px every column of the results, Confidence and
          Error included, is in view; narrower screens scroll the table inside its box. */}
      <DialogContent data-testid="job-details" className="max-w-[min(calc(100vw-2rem),88rem)]">
        {/* Keyed by job, so another job starts again at page 1 with no filter. */}
        {job ? <JobDetails key={job.id} job={job} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="space-y-0.5">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm font-medium">{children}</dd>
    </div>
  );
}

function JobDetails({ job }: { job: BatchJob }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<ResultStatusFilter>("all");
  const results = useJobResults(job.id, page, status, { enabled: job.resultsAvailable, live: isActive(job.status) });
  const rate = successRate(job);

  const data = results.data;
  let body: ReactNode;
  if (!job.resultsAvailable) {
    body = (
      <p data-testid="results-deleted" className="rounded-md border bg-muted/40 p-4 text-sm text-muted-foreground">
        This job&apos;s results were deleted 24 hours after it finished; its summary remains.
      </p>
    );
  } else if (results.isPending) {
    body = (
      <div className="flex justify-center py-10">
        <Spinner label="Loading results" />
      </div>
    );
  } else if (results.isError && !data) {
    const gone = isResultsGone(results.error);
    body = (
      <div role="alert" className="flex flex-col items-center gap-3 rounded-md border py-8 text-center text-sm">
        <AlertCircle className="h-6 w-6 text-destructive" aria-hidden="true" />
        <p className="font-medium">{gone ? errorMessage(results.error, FETCH_RESULTS_FAILED) : FETCH_RESULTS_FAILED}</p>
        {!gone ? (
          <Button type="button" variant="outline" size="sm" onClick={() => void results.refetch()}>
            Retry
          </Button>
        ) : null}
      </div>
    );
  } else if (data && data.data.length === 0) {
    body = (
      <div className="flex flex-col items-center gap-3 rounded-md border py-8 text-center text-sm text-muted-foreground">
        <p>{page > 1 ? "No rows on this page." : status === "all" ? "This job has no rows yet." : "No rows with this status."}</p>
        {page > 1 ? (
          <Button type="button" variant="outline" size="sm" onClick={() => setPage(1)}>
            Go to the first page
          </Button>
        ) : null}
      </div>
    );
  } else if (data) {
    body = <ResultsTable results={data.data} busy={results.isPlaceholderData} />;
  }

  const pagination = data?.pagination;

  return (
    <>
      <DialogHeader>
        <DialogTitle>Job details</DialogTitle>
        <DialogDescription className="break-all">{job.fileName}</DialogDescription>
      </DialogHeader>

      <dl data-testid="job-summary" className="grid grid-cols-2 gap-4 rounded-md border p-4 sm:grid-cols-4 lg:grid-cols-6">
        <Item label="Status">
          <JobStatusBadge status={job.status} />
        </Item>
        <Item label="Total Properties">{formatCount(job.totalProperties)}</Item>
        <Item label="Processed">{formatCount(job.processedProperties)}</Item>
        <Item label="Successful">{formatCount(job.successfulProperties)}</Item>
        <Item label="Failed">{formatCount(job.failedProperties)}</Item>
        <Item label="Success Rate">{rate === null ? DASH : formatPercent(rate)}</Item>
        <Item label="Credits Used">{formatCount(job.creditsUsed)}</Item>
        <Item label="Dropped Rows">{formatCount(job.droppedRows)}</Item>
        <Item label="Created">
          <time dateTime={job.createdAt}>{formatDateTime(job.createdAt)}</time>
        </Item>
        <Item label="Started">
          {job.startedAt ? <time dateTime={job.startedAt}>{formatDateTime(job.startedAt)}</time> : DASH}
        </Item>
        <Item label="Completed">
          {job.completedAt ? <time dateTime={job.completedAt}>{formatDateTime(job.completedAt)}</time> : DASH}
        </Item>
        <Item label="Source">{sourceLabel(job.source)}</Item>
      </dl>
      {job.statusMessage ? (
        <p data-testid="job-details-message" className="text-sm text-amber-700">
          {job.statusMessage}
        </p>
      ) : null}
      {job.droppedRows > 0 ? (
        <p className="text-xs text-muted-foreground">
          Dropped rows had no address after mapping and were not valued or charged.
        </p>
      ) : null}
      {job.webhookUrl && job.webhookSecret ? <WebhookSecret url={job.webhookUrl} secret={job.webhookSecret} /> : null}
      {job.resultsAvailable && !isActive(job.status) && job.successfulProperties > 0 ? (
        // Portfolios (issue 40): the job's valued homes become a portfolio, each valued again and charged 1 credit.
        <div className="flex flex-col gap-2 rounded-md border border-dashed p-3 sm:flex-row sm:items-center sm:justify-between">
          <p className="text-sm text-muted-foreground">Track these homes month by month, with alerts when one moves.</p>
          <Button asChild variant="outline" size="sm" className="h-auto min-h-9 shrink-0 whitespace-normal py-1.5">
            <Link to={`/portfolios?fromJob=${job.id}`} data-testid="portfolio-from-job">
              <Briefcase aria-hidden="true" />
              {`Create portfolio from these results (${formatCount(job.successfulProperties)} ${job.successfulProperties === 1 ? "credit" : "credits"})`}
            </Link>
          </Button>
        </div>
      ) : null}

      <section aria-labelledby="job-results-heading" className="space-y-3">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
          <h3 id="job-results-heading" className="font-semibold">
            Results
          </h3>
          {job.resultsAvailable ? (
            <div className="flex items-center gap-2">
              <Label htmlFor="job-results-status">Status</Label>
              <Select
                value={status}
                onValueChange={(v) => {
                  if (!isResultStatusFilter(v)) return;
                  setStatus(v);
                  setPage(1);
                }}
              >
                <SelectTrigger id="job-results-status" className="h-9 w-36">
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  {RESULT_FILTERS.map((f) => (
                    <SelectItem key={f.value} value={f.value}>
                      {f.label}
                    </SelectItem>
                  ))}
                </SelectContent>
              </Select>
            </div>
          ) : null}
        </div>
        {body}
        {pagination && job.resultsAvailable && pagination.total > 0 ? (
          <nav
            aria-label="Result pages"
            data-testid="results-pagination"
            className="flex flex-col items-center justify-between gap-3 sm:flex-row"
          >
            <p className="text-sm text-muted-foreground" aria-live="polite">
              {showingText(pagination.page, pagination.limit, pagination.total)}
            </p>
            <div className="flex items-center gap-2">
              <Button
                type="button"
                variant="outline"
                size="sm"
                disabled={!pagination.hasPreviousPage || results.isPlaceholderData}
                onClick={() => setPage((p) => Math.max(1, p - 1))}
                aria-label="Previous page"
              >
                <ChevronLeft aria-hidden="true" />
                <span className="hidden sm:inline">Previous</span>
              </Button>
              <span className="text-sm tabular-nums" data-testid="results-page">
                Page {formatCount(pagination.page)} of {formatCount(Math.max(1, pagination.totalPages))}
              </span>
              <Button
                type="button"
                variant="outline"
                size="sm"
                disabled={!pagination.hasNextPage || results.isPlaceholderData}
                onClick={() => setPage((p) => p + 1)}
                aria-label="Next page"
              >
                <span className="hidden sm:inline">Next</span>
                <ChevronRight aria-hidden="true" />
              </Button>
            </div>
          </nav>
        ) : null}
      </section>
    </>
  );
}
