import { cn } from "@/lib/utils";
import type { BatchResult } from "../batch-types";
import {
  formatConfidence,
  formatInteger,
  formatNumber,
  formatText,
  formatUsd,
  formatYear,
  reasonLabel,
} from "../batch-helpers";
import { ResultStatusBadge } from "./status-badges";
import { TableScroll } from "@/components/ui/table-scroll";

const COLUMNS = [
  { label: "Line", numeric: true },
  { label: "Address", numeric: false },
  { label: "Status", numeric: false },
  { label: "Estimated Value", numeric: true },
  { label: "Price/Sq Ft", numeric: true },
  { label: "Beds", numeric: true },
  { label: "Baths", numeric: true },
  { label: "Sq Ft", numeric: true },
  { label: "Year Built", numeric: true },
  { label: "Type", numeric: false },
  { label: "Rent Estimate", numeric: true },
  { label: "Confidence", numeric: true },
  { label: "Match Code", numeric: false },
  { label: "Error", numeric: false },
] as const;

export const RESULT_COLUMNS: readonly string[] = COLUMNS.map((c) => c.label);

/** One page of a job's rows, in file order, each with its valuation or its error. */
export function ResultsTable({ results, busy }: { results: readonly BatchResult[]; busy?: boolean }) {
  return (
    <TableScroll className={cn("rounded-md border transition-opacity", busy && "opacity-60")} aria-busy={busy || undefined}>
      <table data-testid="results-table" className="w-full min-w-[60rem] text-sm">
        <caption className="sr-only">Results of the job</caption>
        <thead>
          <tr className="border-b bg-muted/40 text-left">
            {COLUMNS.map((c) => (
              <th
                key={c.label}
                scope="col"
                className={cn("h-10 px-2 py-1.5 align-bottom font-medium leading-tight text-muted-foreground", c.numeric && "text-right")}
              >
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {results.map((r) => {
            const address = r.fullAddress.trim() || r.address.trim() || "—";
            const reason = reasonLabel(r.reason);
            return (
              <tr key={r.line} data-testid="result-row" className="border-b align-top last:border-0">
                <td className="px-2 py-2 text-right tabular-nums text-muted-foreground">{r.line}</td>
                <td className="max-w-[13rem] px-2 py-2">
                  <span className="block truncate" title={address}>
                    {address}
                  </span>
                </td>
                <td className="px-2 py-2">
                  <ResultStatusBadge status={r.status} />
                </td>
                <td className="px-2 py-2 text-right font-medium tabular-nums">{formatUsd(r.estimatedValue)}</td>
                <td className="px-2 py-2 text-right tabular-nums">{formatUsd(r.pricePerSqFt)}</td>
                <td className="px-2 py-2 text-right tabular-nums">{formatNumber(r.bedrooms)}</td>
                <td className="px-2 py-2 text-right tabular-nums">{formatNumber(r.bathrooms)}</td>
                <td className="px-2 py-2 text-right tabular-nums">{formatInteger(r.squareFeet)}</td>
                <td className="px-2 py-2 text-right tabular-nums">{formatYear(r.yearBuilt)}</td>
                <td className="whitespace-nowrap px-2 py-2">{formatText(r.propertyType)}</td>
                <td className="px-2 py-2 text-right tabular-nums">{formatUsd(r.rentEstimate)}</td>
                <td className="whitespace-nowrap px-2 py-2 text-right tabular-nums">{formatConfidence(r.confidence)}
                  {r.confidenceLevel ? <span className="ml-1 text-muted-foreground">{r.confidenceLevel}</span> : null}
                </td>
                <td className="px-2 py-2 font-mono text-xs">{formatText(r.matchCode)}</td>
                {/* The error wraps (three lines at most, the whole of it on hover) instead of holding one long line
                    that pushed Confidence and Error out of view. */}
                <td className="min-w-[11rem] px-2 py-2 text-destructive">
                  {r.error ? (
                    <span className="line-clamp-3" title={reason ? `${reason}: ${r.error}` : r.error}>
                      {reason ? (
                        <span data-testid="result-reason" className="font-medium">
                          {reason}:{" "}
                        </span>
                      ) : null}
                      {r.error}
                    </span>
                  ) : (
                    <span className="text-muted-foreground">—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
