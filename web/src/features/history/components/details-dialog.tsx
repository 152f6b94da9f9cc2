import type { ReactNode } from "react";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { formatResponseTime } from "@/lib/format";
import type { UsageEntry } from "@/lib/types";
import { serviceLabel } from "@/lib/services";
import { DASH, formatTimestamp, formatValuation, keyLabel, retryPlan } from "../history-helpers";
import { StatusBadge } from "./history-table";

interface DetailsDialogProps {
  entry: UsageEntry | null;
  onClose: () => void;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_minmax(0,1fr)] gap-2 py-1.5">
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

/** Every recorded field of one call, with the parameters it was made with. */
export function DetailsDialog({ entry, onClose }: DetailsDialogProps) {
  const plan = entry ? retryPlan(entry) : null;
  return (
    <Dialog
      open={entry !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <DialogContent data-testid="history-details" className="max-w-2xl">
        {entry ? (
          <>
            <DialogHeader>
              <DialogTitle>Request details</DialogTitle>
              <DialogDescription>{entry.propertyAddress?.trim() || serviceLabel(entry.apiService)}</DialogDescription>
            </DialogHeader>
            <dl className="divide-y text-sm">
              <Row label="Property">{entry.propertyAddress?.trim() || DASH}</Row>
              <Row label="Endpoint">
                <code className="font-mono text-xs">{entry.endpoint}</code>
              </Row>
              <Row label="Service">{serviceLabel(entry.apiService)}</Row>
              <Row label="Request ID">
                <code className="font-mono text-xs">{entry.requestId}</code>
              </Row>
              <Row label="Status">
                <StatusBadge status={entry.responseStatus} />
              </Row>
              <Row label="Response Time">{formatResponseTime(entry.responseTimeMs)}</Row>
              <Row label="Credits Used">{entry.creditsUsed}</Row>
              <Row label="API Key">{keyLabel(entry.apiKeyName)}</Row>
              <Row label="Timestamp">
                <time dateTime={entry.createdAt}>{formatTimestamp(entry.createdAt)}</time>
              </Row>
              <Row label="Valuation">{formatValuation(entry.valuation)}</Row>
              {plan?.kind === "unavailable" ? (
                <Row label="Retry">
                  <span data-testid="history-retry-reason">{plan.reason}</span>
                </Row>
              ) : null}
            </dl>
            <div className="space-y-2">
              <h4 className="text-sm font-medium">Request data</h4>
              {entry.requestData ? (
                <pre
                  data-testid="history-request-data"
                  className="max-h-64 overflow-auto whitespace-pre-wrap rounded-md bg-muted p-3 font-mono text-xs [overflow-wrap:anywhere]"
                >
                  {JSON.stringify(entry.requestData, null, 2)}
                </pre>
              ) : (
                <p className="text-sm text-muted-foreground">No parameters were recorded for this call.</p>
              )}
            </div>
          </>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
