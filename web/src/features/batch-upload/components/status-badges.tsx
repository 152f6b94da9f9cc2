import { Loader2 } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import type { BatchJobStatus, BatchResultStatus } from "../batch-types";
import { JOB_STATUS_LABELS, RESULT_STATUS_LABELS } from "../batch-helpers";

// One colour per job status, so the queue can be read at a glance: grey waiting, blue running, green done, red
// failed, amber stopped by the user.
const JOB_STATUS_CLASSES: Readonly<Record<BatchJobStatus, string>> = {
  pending: "bg-slate-100 text-slate-700",
  processing: "bg-blue-100 text-blue-800",
  completed: "bg-green-100 text-green-800",
  failed: "bg-red-100 text-red-800",
  cancelled: "bg-amber-100 text-amber-800",
};

export function JobStatusBadge({ status }: { status: BatchJobStatus }) {
  return (
    <Badge
      variant="outline"
      data-status={status}
      className={cn("gap-1 whitespace-nowrap border-transparent", JOB_STATUS_CLASSES[status])}
    >
      {status === "processing" ? <Loader2 className="h-3 w-3 animate-spin" aria-hidden="true" /> : null}
      {JOB_STATUS_LABELS[status]}
    </Badge>
  );
}

const RESULT_STATUS_CLASSES: Readonly<Record<BatchResultStatus, string>> = {
  success: "bg-green-100 text-green-800",
  failed: "bg-red-100 text-red-800",
  pending: "bg-slate-100 text-slate-700",
};

export function ResultStatusBadge({ status }: { status: BatchResultStatus }) {
  return (
    <Badge
      variant="outline"
      data-status={status}
      className={cn("whitespace-nowrap border-transparent", RESULT_STATUS_CLASSES[status])}
    >
      {RESULT_STATUS_LABELS[status]}
    </Badge>
  );
}
