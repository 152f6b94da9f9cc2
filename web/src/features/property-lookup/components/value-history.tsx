import { lazy, Suspense } from "react";
import { Link } from "react-router";
import { TrendingUp } from "lucide-react";
import type { PropertyValuation } from "@/lib/types";
import { formatCurrency } from "../valuation-helpers";

// The home's estimated value at the end of each of the last 60 months (issue 28: `valueHistory`, today's value carried
// back by the market's index; no extra credit), drawn beside its sales history, and the way to its ZIP's market.

export interface ValuePoint {
  month: string;
  value: number;
}

const ValueHistoryDrawing = lazy(() => import("./value-history-drawing").then((m) => ({ default: m.ValueHistoryDrawing })));

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function monthLabel(month: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  return m && MONTHS[Number(m[2]) - 1] ? `${MONTHS[Number(m[2]) - 1]} ${m[1]}` : month;
}

/**
 * The value history of a result: the contract puts `valueHistory` on the valuation result; read where the server puts
 * it, and keep only well-formed points, oldest first.
 */
export function valueHistoryOf(result: PropertyValuation): ValuePoint[] {
  const r = result as PropertyValuation & {
    valueHistory?: unknown;
    valuation: { valueHistory?: unknown };
    marketData: { valueHistory?: unknown };
  };
  const raw = r.valueHistory ?? r.valuation.valueHistory ?? r.marketData.valueHistory;
  if (!Array.isArray(raw)) return [];
  return raw
    .filter(
      (p): p is ValuePoint =>
        !!p &&
        typeof (p as ValuePoint).month === "string" &&
        typeof (p as ValuePoint).value === "number" &&
        Number.isFinite((p as ValuePoint).value),
    )
    .sort((a, b) => a.month.localeCompare(b.month));
}

function changeText(from: number, to: number): string {
  if (from <= 0) return "";
  const pct = ((to - from) / from) * 100;
  return `${pct >= 0 ? "+" : "−"}${Math.abs(pct).toFixed(1)}%`;
}

export function ValueHistory({ result }: { result: PropertyValuation }) {
  const points = valueHistoryOf(result);
  const zip = result.property.zip;
  const first = points[0];
  const last = points[points.length - 1];
  const marketLink = /^\d{5}/.test(zip) ? (
    <Link
      to={`/markets?zip=${zip.slice(0, 5)}`}
      data-testid="market-link"
      className="inline-flex items-center gap-1.5 text-sm font-medium text-primary underline-offset-2 hover:underline"
    >
      <TrendingUp className="h-4 w-4" aria-hidden="true" />
      {`See the ${zip.slice(0, 5)} market`}
    </Link>
  ) : null;

  if (!first || !last || points.length < 2) {
    return marketLink ? <div data-testid="value-history-empty">{marketLink}</div> : null;
  }
  const labelled = points.map((p) => ({ ...p, label: monthLabel(p.month) }));
  return (
    <div data-testid="value-history" className="space-y-3">
      <p className="text-sm text-muted-foreground" data-testid="value-history-summary">
        {`${formatCurrency(first.value)} in ${monthLabel(first.month)} to ${formatCurrency(last.value)} in ${monthLabel(last.month)} (${changeText(first.value, last.value)}), carried by the market's price index`}
      </p>
      {/* The drawing is for the eye; the table below reads the same figures to screen readers. */}
      <div className="h-56 w-full" aria-hidden="true" data-testid="value-history-drawing">
        <Suspense fallback={<div className="h-full w-full animate-pulse rounded-md bg-muted/50" />}>
          <ValueHistoryDrawing points={labelled} />
        </Suspense>
      </div>
      <div className="sr-only">
        <table data-testid="value-history-data">
          <caption>Estimated value by month</caption>
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col">Estimated value</th>
            </tr>
          </thead>
          <tbody>
            {labelled.map((p) => (
              <tr key={p.month}>
                <td>{p.label}</td>
                <td>{formatCurrency(p.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {marketLink}
    </div>
  );
}
