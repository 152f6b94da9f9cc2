import { useEffect, useRef, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { PageHeader } from "@/app/shell/page-header";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { saveTextFile } from "@/lib/csv";
import { batchLimitLine } from "@/features/marketing/plans";
import {
  fetchExampleCsv,
  fetchJobDownload,
  useCancelJob,
  useCreateJob,
  useJobs,
  usePreviewFile,
  useRetryJob,
} from "./api/batch-api";
import type { BatchJob, BatchPreview, ColumnMapping, ColumnType, DownloadFormat } from "./batch-types";
import {
  assignColumnType,
  CANCEL_FAILED,
  CANCEL_FAILED_TITLE,
  checkBatchFile,
  CREATE_FAILED,
  CREATE_FAILED_TITLE,
  DOWNLOAD_FAILED,
  DOWNLOAD_FAILED_TITLE,
  errorTitle,
  EXAMPLE_FAILED,
  EXAMPLE_FILE_NAME,
  FETCH_JOBS_FAILED,
  finishedJobIds,
  formatCount,
  hasDownloadableResults,
  isMappingValid,
  isResultsGone,
  NO_DATA_MESSAGE,
  NO_DATA_TITLE,
  normalizeMapping,
  planBatchLimit,
  plural,
  PREVIEW_FAILED,
  PREVIEW_FAILED_TITLE,
  RETRY_FAILED,
  RETRY_FAILED_TITLE,
  exceedsPlanLimit,
} from "./batch-helpers";
import { JobDetailsDialog } from "./components/job-details-dialog";
import { JobQueue } from "./components/job-queue";
import { MappingScreen } from "./components/mapping-screen";
import type { SheetForPortfolio } from "@/features/portfolios/api/portfolios-api";
import { UploadCard } from "./components/upload-card";
import { saveBlobFile } from "@/lib/csv";

// The Batch Upload screen (working-screens spec, section 2; flow in section 4): choose a file, the server reads it
// (POST /api/jobs/preview), confirm the 'Address Field Mapping', the job is created (POST /api/jobs) and the screen
// goes back to the upload step; the Processing Queue below follows every job (polled every 3 s) with cancel, retry,
// downloads and a details dialog.

type Step = { kind: "upload"; returned: boolean } | { kind: "mapping"; preview: BatchPreview; mapping: ColumnMapping };

function noData() {
  toast({ variant: "destructive", title: NO_DATA_TITLE, description: NO_DATA_MESSAGE });
}

export function BatchUploadPage() {
  const { user, refreshUser } = useAuth();
  const navigate = useNavigate();
  const [step, setStep] = useState<Step>({ kind: "upload", returned: false });
  // The plan limit the server last stated, for the plan it was stated for (the plan can change meanwhile).
  const [statedLimit, setStatedLimit] = useState<{ plan: string | undefined; limit: number } | null>(null);
  const [selected, setSelected] = useState<BatchJob | null>(null);
  const [downloading, setDownloading] = useState<{ id: number; format: DownloadFormat } | null>(null);
  const [exampleBusy, setExampleBusy] = useState(false);

  const preview = usePreviewFile();
  const create = useCreateJob();
  const cancel = useCancelJob();
  const retry = useRetryJob();
  const jobs = useJobs();

  const plan = user?.plan;
  const planLimit =
    step.kind === "mapping"
      ? step.preview.planLimit
      : statedLimit && statedLimit.plan === plan
        ? statedLimit.limit
        : planBatchLimit(plan);

  // The spec's list failure is a toast: once per run of failed reads, not at every poll.
  useEffect(() => {
    if (jobs.isError) toast({ variant: "destructive", title: "Error", description: FETCH_JOBS_FAILED });
  }, [jobs.isError]);

  // Jobs charge credits as they value rows: when one stops, the header's balance is brought up to date.
  const previousJobs = useRef<BatchJob[] | undefined>(undefined);
  useEffect(() => {
    if (!jobs.data) return;
    if (finishedJobIds(previousJobs.current, jobs.data).length > 0) void refreshUser();
    previousJobs.current = jobs.data;
  }, [jobs.data, refreshUser]);

  const onFile = (file: File) => {
    const problem = checkBatchFile(file);
    if (problem) {
      toast({ variant: "destructive", title: problem.title, description: problem.message });
      return;
    }
    if (preview.isPending) return;
    preview.mutate(file, {
      onSuccess: (p) => {
        setStatedLimit({ plan, limit: p.planLimit });
        setStep({ kind: "mapping", preview: p, mapping: normalizeMapping(p.headers, p.mapping) });
      },
      onError: (err) => {
        toast({
          variant: "destructive",
          title: errorTitle(err) ?? PREVIEW_FAILED_TITLE,
          description: errorMessage(err, PREVIEW_FAILED),
        });
      },
    });
  };

  const onChangeType = (column: string, type: ColumnType) => {
    setStep((s) => (s.kind === "mapping" ? { ...s, mapping: assignColumnType(s.mapping, column, type) } : s));
  };

  const onConfirm = () => {
    if (step.kind !== "mapping" || create.isPending) return;
    const { preview: p, mapping } = step;
    if (!isMappingValid(mapping) || exceedsPlanLimit(p.rowCount, p.planLimit)) return;
    create.mutate(
      { uploadId: p.uploadId, mapping },
      {
        onSuccess: (job) => {
          const n = job.totalProperties;
          toast({
            title: "Upload Successful",
            description: `${job.fileName}: ${formatCount(n)} ${plural(n, "property", "properties")} queued for processing.`,
          });
          setStep({ kind: "upload", returned: true });
        },
        onError: (err) => {
          toast({ variant: "destructive", title: CREATE_FAILED_TITLE, description: errorMessage(err, CREATE_FAILED) });
        },
        onSettled: () => {
          void refreshUser();
        },
      },
    );
  };

  // A portfolio of the file's homes instead of a job: the Portfolios screen asks its name and threshold and sends
  // the preview with this mapping (lost on a reload, when the server's detected mapping is used).
  const onPortfolio = () => {
    if (step.kind !== "mapping") return;
    const { preview: p, mapping } = step;
    const state: SheetForPortfolio = { uploadId: p.uploadId, mapping, fileName: p.fileName, rowCount: p.rowCount };
    navigate(`/portfolios?fromUpload=${p.uploadId}`, { state });
  };

  const onCancel = (job: BatchJob) => {
    cancel.mutate(job.id, {
      onSuccess: () => toast({ title: "Job Cancelled", description: `${job.fileName} was cancelled.` }),
      onError: (err) => {
        toast({ variant: "destructive", title: CANCEL_FAILED_TITLE, description: errorMessage(err, CANCEL_FAILED) });
      },
    });
  };

  const onRetry = (job: BatchJob) => {
    retry.mutate(job.id, {
      onSuccess: () => toast({ title: "Job Restarted", description: `${job.fileName} is queued again.` }),
      onError: (err) => {
        toast({ variant: "destructive", title: RETRY_FAILED_TITLE, description: errorMessage(err, RETRY_FAILED) });
      },
    });
  };

  const onDownload = async (job: BatchJob, format: DownloadFormat) => {
    if (!hasDownloadableResults(job)) {
      noData();
      return;
    }
    if (downloading) return;
    setDownloading({ id: job.id, format });
    try {
      const file = await fetchJobDownload(job, format);
      if (file.blob.size === 0) {
        noData();
        return;
      }
      saveBlobFile(file.blob, file.fileName);
      toast({ title: "Download Started", description: `Saved as ${file.fileName}` });
    } catch (err) {
      if (isResultsGone(err)) noData();
      else toast({ variant: "destructive", title: DOWNLOAD_FAILED_TITLE, description: DOWNLOAD_FAILED });
    } finally {
      setDownloading(null);
    }
  };

  const onDownloadExample = async () => {
    setExampleBusy(true);
    try {
      saveTextFile(await fetchExampleCsv(), EXAMPLE_FILE_NAME);
      toast({ title: "Download Started", description: `Saved as ${EXAMPLE_FILE_NAME}` });
    } catch {
      toast({ variant: "destructive", title: DOWNLOAD_FAILED_TITLE, description: EXAMPLE_FAILED });
    } finally {
      setExampleBusy(false);
    }
  };

  // The dialog follows the polled copy of its job, so its numbers move with the queue.
  const selectedJob = selected ? (jobs.data?.find((j) => j.id === selected.id) ?? selected) : null;

  // /batch-upload?job=<id> (the link in a batch result email) opens that job's details once the list has it. The
  // parameter is then dropped, so that closing the dialog does not open it again.
  const [params, setParams] = useSearchParams();
  const linkedJob = Number(params.get("job") ?? "");
  useEffect(() => {
    if (!linkedJob || !jobs.data) return;
    const job = jobs.data.find((j) => j.id === linkedJob);
    if (job) setSelected(job);
    setParams(
      (p) => {
        p.delete("job");
        return p;
      },
      { replace: true },
    );
  }, [linkedJob, jobs.data, setParams]);

  return (
    <div className="mx-auto max-w-7xl">
      <PageHeader title="Batch Upload" subtitle="Value many properties at once from a CSV or Excel file" />
      <div className="space-y-6">
        {step.kind === "mapping" ? (
          <MappingScreen
            preview={step.preview}
            mapping={step.mapping}
            balance={user?.creditBalance}
            confirming={create.isPending}
            onChange={onChangeType}
            onBack={() => setStep({ kind: "upload", returned: true })}
            onConfirm={onConfirm}
            onPortfolio={onPortfolio}
          />
        ) : (
          <UploadCard
            planLimitLine={batchLimitLine(plan, planLimit)}
            readingFileName={preview.isPending ? (preview.variables?.name ?? "") : null}
            onFile={onFile}
            onDownloadExample={() => void onDownloadExample()}
            exampleBusy={exampleBusy}
            focusOnMount={step.returned}
          />
        )}
        <JobQueue
          jobs={jobs.data}
          loading={jobs.isPending}
          failed={jobs.isError}
          failureDetail={jobs.isError ? errorMessage(jobs.error, "") : ""}
          refetching={jobs.isFetching}
          onRefetch={() => void jobs.refetch()}
          actions={{
            cancellingId: cancel.isPending ? (cancel.variables ?? null) : null,
            retryingId: retry.isPending ? (retry.variables ?? null) : null,
            downloading,
          }}
          onCancel={onCancel}
          onRetry={onRetry}
          onDownload={(job, format) => void onDownload(job, format)}
          onView={setSelected}
        />
      </div>
      <JobDetailsDialog job={selectedJob} onClose={() => setSelected(null)} />
    </div>
  );
}
