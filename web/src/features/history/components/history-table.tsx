import { Eye, RotateCw } from "lucide-react";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { formatResponseTime } from "@/lib/format";
import { serviceLabel } from "@/lib/services";
import type { UsageEntry } from "@/lib/types";
import { cn } from "@/lib/utils";
import {
  DASH,
  formatTimestamp,
  formatValuation,
  isSuccessStatus,
  keyLabel,
  RETRY_TITLES,
  retryPlan,
} from "../history-helpers";

/** Success or Error by the spec's rule (200-299), with the status code. */
export function StatusBadge({ status }: { status: number }) {
  const ok = isSuccessStatus(status);
  return (
    <Badge variant={ok ? "success" : "destructive"} className="gap-1 whitespace-nowrap">
      {ok ? "Success" : "Error"}
      <span className="font-mono font-normal">{status}</span>
    </Badge>
  );
}

interface HistoryTableProps {
  entries: readonly UsageEntry[];
  onView: (entry: UsageEntry) => void;
  onRetry: (entry: UsageEntry) => void;
  /** The id of the row whose lookup is being retried, if any. */
  retryingId: number | null;
  busy?: boolean;
}

const COLUMNS = ["Property", "Valuation", "Status", "Response Time", "API Key", "Timestamp", "Actions"] as const;

export function HistoryTable({ entries, onView, onRetry, retryingId, busy }: HistoryTableProps) {
  return (
    <TableScroll className={cn("transition-opacity", busy && "opacity-60")} aria-busy={busy || undefined}>
      <table data-testid="history-table" className="w-full caption-bottom text-sm sm:min-w-[56rem]">
        <caption className="sr-only">Request history</caption>
        <thead className={cardTable.head}>
          <tr className="border-b bg-muted/40 text-left">
            {COLUMNS.map((c) => (
              <th
                key={c}
                scope="col"
                className={cn(
                  "h-10 px-3 font-medium text-muted-foreground",
                  (c === "Valuation" || c === "Response Time") && "text-right",
                  c === "Actions" && "text-right",
                )}
              >
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={cardTable.body}>
          {entries.map((e) => {
            const plan = retryPlan(e);
            const retrying = retryingId === e.id;
            const address = e.propertyAddress?.trim() || DASH;
            return (
              <tr key={e.id} data-testid="history-row" className={cn("border-b last:border-0 hover:bg-muted/30", cardTable.row[2])}>
                <td className={cn("px-3 py-2 sm:max-w-[18rem]", cardTable.fullWidth)}>
                  <div className="truncate font-medium" title={address}>
                    {address}
                  </div>
                  {e.apiService !== "property_valuation" ? (
                    <div className="text-xs text-muted-foreground">{serviceLabel(e.apiService)}</div>
                  ) : null}
                </td>
                <td data-label="Valuation" className={cn("px-3 py-2 text-right tabular-nums", cardTable.cell)}>
                  {formatValuation(e.valuation)}
                </td>
                <td data-label="Status" className={cn("px-3 py-2", cardTable.cell)}>
                  <StatusBadge status={e.responseStatus} />
                </td>
                <td data-label="Response time" className={cn("px-3 py-2 text-right tabular-nums", cardTable.cell)}>
                  {formatResponseTime(e.responseTimeMs)}
                </td>
                <td data-label="API key" className={cn("px-3 py-2", cardTable.cell)}>
                  <span className={cn(e.apiKeyName === null && "text-muted-foreground")}>{keyLabel(e.apiKeyName)}</span>
                </td>
                <td data-label="Time" className={cn("whitespace-nowrap px-3 py-2", cardTable.cell, "max-sm:whitespace-nowrap")}>
                  <time dateTime={e.createdAt}>{formatTimestamp(e.createdAt)}</time>
                </td>
                <td className={cn("px-3 py-2", cardTable.corner)}>
                  <div className="flex justify-end gap-1">
                    <Button
                      type="button"
                      variant="ghost"
                      size="icon"
                      className="h-8 w-8"
                      aria-label="View details"
                      title="View details"
                      onClick={() => onView(e)}
                    >
                      <Eye aria-hidden="true" />
                    </Button>
                    {plan && plan.kind !== "unavailable" ? (
                      <Button
                        type="button"
                        variant="ghost"
                        size="icon"
                        className="h-8 w-8"
                        aria-label="Retry"
                        title={RETRY_TITLES[plan.kind]}
                        disabled={retryingId !== null}
                        onClick={() => onRetry(e)}
                      >
                        <RotateCw className={cn(retrying && "animate-spin")} aria-hidden="true" />
                      </Button>
                    ) : plan ? (
                      // A failed call that cannot be made again from here says why, rather than showing nothing.
                      <span
                        role="img"
                        tabIndex={0}
                        data-testid="retry-unavailable"
                        aria-label={`Cannot retry: ${plan.reason}`}
                        title={plan.reason}
                        className="inline-flex h-8 w-8 cursor-help items-center justify-center rounded-md text-muted-foreground/50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
                      >
                        <RotateCw className="h-4 w-4" aria-hidden="true" />
                      </span>
                    ) : null}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
