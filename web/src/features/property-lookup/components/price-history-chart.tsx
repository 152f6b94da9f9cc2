import { useCallback, useLayoutEffect, useState } from "react";
import { History } from "lucide-react";
import type { PriceEvent } from "@/lib/types";
import { formatCurrency, formatDate } from "../valuation-helpers";

// A small step chart of the recorded sales, hand-drawn in SVG: a price holds from one sale to the next, so steps
// say it more honestly than a sloped line would. Today's estimate is the dashed end of the line.
//
// The drawing is laid out at the width it is shown at (one SVG unit is one CSS pixel), so its labels are really
// LABEL_PX tall: a fixed 640-unit drawing scaled down to a 308 px phone card had 5 px labels.

/** The width drawn at before the box has been measured (and where it cannot be, as in tests). */
const DEFAULT_W = 640;
const MIN_W = 240;
const H = 220;
/** The axis labels' size in CSS pixels. */
export const LABEL_PX = 12;
const PAD = { left: 64, right: 20, top: 16, bottom: 28 };
const DAY_MS = 86_400_000;

const compactUsd = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  notation: "compact",
  maximumFractionDigits: 2,
});

interface Point {
  t: number;
  price: number;
}

function parseDay(date: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00Z` : date);
}

/** Up to `most` year labels, evenly spaced. */
function yearTicks(tMin: number, tMax: number, most: number): number[] {
  const first = new Date(tMin).getUTCFullYear() + 1;
  const last = new Date(tMax).getUTCFullYear();
  const years: number[] = [];
  for (let y = first; y <= last; y++) years.push(y);
  if (years.length === 0) return [];
  const step = Math.ceil(years.length / Math.max(1, most));
  return years.filter((_, i) => i % step === 0);
}

/** A step of 1, 2, 2.5 or 5 times a power of ten that cuts `range` into about `count` parts. */
function niceStep(range: number, count: number): number {
  const raw = range / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const n = raw / magnitude;
  const factor = n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10;
  return factor * magnitude;
}

/** The price axis: round bounds a little beyond the data and the ticks between them. */
function priceScale(prices: number[]): { lo: number; hi: number; ticks: number[] } {
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  const range = max - min > 0 ? max - min : max * 0.2 || 1;
  const step = niceStep(range * 1.15, 3);
  const lo = Math.max(0, Math.floor((min - range * 0.08) / step) * step);
  const hi = Math.ceil((max + range * 0.05) / step) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) ticks.push(v);
  return { lo, hi, ticks };
}

function changeText(prev: number, next: number): string {
  const pct = ((next - prev) / prev) * 100;
  return `${pct >= 0 ? "+" : "−"}${Math.abs(pct).toFixed(1)}%`;
}

/** The content width of an element, followed as it resizes; null until measured or where it cannot be. */
function useWidth<T extends Element>(): [(el: T | null) => void, number | null] {
  const [el, setEl] = useState<T | null>(null);
  const [width, setWidth] = useState<number | null>(null);
  const ref = useCallback((node: T | null) => setEl(node), []);
  useLayoutEffect(() => {
    if (!el) return;
    const read = () => {
      const w = el.getBoundingClientRect().width;
      setWidth(w > 0 ? Math.round(w) : null);
    };
    read();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(read);
    observer.observe(el);
    return () => observer.disconnect();
  }, [el]);
  return [ref, width];
}

interface PriceHistoryChartProps {
  history: PriceEvent[];
  /** Today's estimate, drawn as the dashed end of the line. */
  estimate?: { date: string; value: number };
}

export function PriceHistoryChart({ history, estimate }: PriceHistoryChartProps) {
  const [figureRef, measured] = useWidth<HTMLElement>();
  const W = Math.max(MIN_W, measured ?? DEFAULT_W);
  const sales = history
    .map((e) => ({ ...e, t: parseDay(e.date) }))
    .filter((e) => Number.isFinite(e.t) && e.price > 0)
    .sort((a, b) => a.t - b.t);

  if (sales.length === 0) {
    return (
      <div data-testid="price-history" className="flex items-start gap-3 rounded-md border border-dashed bg-muted/40 p-4 text-sm">
        <History className="mt-0.5 h-5 w-5 shrink-0 text-muted-foreground" aria-hidden="true" />
        <div>
          <p className="font-medium">No recorded sales</p>
          <p className="text-muted-foreground">
            This home has no sale in our records, so there is no price history to chart. The estimate relies on
            nearby sales instead.
          </p>
        </div>
      </div>
    );
  }

  const points: Point[] = sales.map((s) => ({ t: s.t, price: s.price }));
  // The estimate is dated today; it never sits before the last sale, even if the clocks disagree.
  const estimatePoint =
    estimate && Number.isFinite(parseDay(estimate.date)) && estimate.value > 0
      ? { t: Math.max(parseDay(estimate.date), points[points.length - 1]!.t), price: estimate.value }
      : null;
  const all = estimatePoint ? [...points, estimatePoint] : points;

  let tMin = Math.min(...all.map((p) => p.t));
  let tMax = Math.max(...all.map((p) => p.t));
  if (tMax - tMin < 30 * DAY_MS) {
    tMin -= 182 * DAY_MS;
    tMax += 182 * DAY_MS;
  }
  const { lo: yMin, hi: yMax, ticks: priceTicks } = priceScale(all.map((p) => p.price));

  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (t: number) => PAD.left + ((t - tMin) / (tMax - tMin)) * plotW;
  const y = (price: number) => PAD.top + (1 - (price - yMin) / (yMax - yMin)) * plotH;
  const bottom = PAD.top + plotH;

  const first = points[0]!;
  const last = points[points.length - 1]!;
  let line = `M${x(first.t).toFixed(1)},${y(first.price).toFixed(1)}`;
  for (const p of points.slice(1)) line += ` H${x(p.t).toFixed(1)} V${y(p.price).toFixed(1)}`;
  const lineEnd = estimatePoint ? x(estimatePoint.t) : x(last.t);
  const area = `${line} H${lineEnd.toFixed(1)} V${bottom} H${x(first.t).toFixed(1)} Z`;

  // A year label is about 30 px wide: keep them well apart on a narrow chart.
  const years = yearTicks(tMin, tMax, Math.min(6, Math.floor(plotW / 60)));
  const firstYear = new Date(first.t).getUTCFullYear();
  const lastYear = new Date(last.t).getUTCFullYear();
  const label =
    sales.length === 1
      ? `Price history: one sale, in ${firstYear}, for ${formatCurrency(first.price)}`
      : `Price history: ${sales.length} sales from ${firstYear} to ${lastYear}, last for ${formatCurrency(last.price)}`;

  return (
    <div data-testid="price-history" className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)] lg:items-start">
      <figure ref={figureRef} className="min-w-0 space-y-2">
        <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} className="h-auto w-full">
          {priceTicks.map((v) => (
            <g key={v}>
              <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} className="stroke-border" strokeDasharray="3 4" />
              <text x={PAD.left - 8} y={y(v)} dy="0.32em" textAnchor="end" fontSize={LABEL_PX} className="fill-muted-foreground">
                {compactUsd.format(v)}
              </text>
            </g>
          ))}
          {years.map((yr) => {
            const t = Date.UTC(yr, 0, 1);
            return (
              <text key={yr} x={x(t)} y={H - 8} textAnchor="middle" fontSize={LABEL_PX} className="fill-muted-foreground">
                {yr}
              </text>
            );
          })}
          <path d={area} className="fill-primary/10" />
          <path d={line} fill="none" className="stroke-primary" strokeWidth={2.5} strokeLinejoin="round" />
          {estimatePoint ? (
            <>
              <path
                d={`M${x(last.t).toFixed(1)},${y(last.price).toFixed(1)} H${x(estimatePoint.t).toFixed(1)} V${y(estimatePoint.price).toFixed(1)}`}
                fill="none"
                className="stroke-primary"
                strokeWidth={2}
                strokeDasharray="5 4"
              />
              <circle cx={x(estimatePoint.t)} cy={y(estimatePoint.price)} r={5} className="fill-background stroke-primary" strokeWidth={2.5}>
                <title>{`Estimate today: ${formatCurrency(estimatePoint.price)}`}</title>
              </circle>
            </>
          ) : null}
          {sales.map((s, i) => (
            <circle key={`${s.date}-${s.price}-${i}`} cx={x(s.t)} cy={y(s.price)} r={4.5} className="fill-primary">
              <title>{`Sold ${formatDate(s.date)} for ${formatCurrency(s.price)}`}</title>
            </circle>
          ))}
        </svg>
        <figcaption className="flex flex-wrap gap-4 text-xs text-muted-foreground">
          <span className="inline-flex items-center gap-1.5">
            <span className="h-2.5 w-2.5 rounded-full bg-primary" aria-hidden="true" />
            Recorded sale
          </span>
          {estimatePoint ? (
            <span className="inline-flex items-center gap-1.5">
              <span className="h-2.5 w-2.5 rounded-full border-2 border-primary bg-background" aria-hidden="true" />
              Today's estimate
            </span>
          ) : null}
        </figcaption>
      </figure>
      <table className="w-full text-sm" data-testid="price-history-list">
        <caption className="sr-only">Recorded sales</caption>
        <thead className="text-left text-xs uppercase tracking-wide text-muted-foreground">
          <tr>
            <th scope="col" className="py-1 pr-3 font-medium">Date</th>
            <th scope="col" className="py-1 pr-3 font-medium">Event</th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">Price</th>
            <th scope="col" className="py-1 text-right font-medium">Change</th>
          </tr>
        </thead>
        <tbody className="divide-y">
          {[...sales].reverse().map((s, i, newestFirst) => {
            const previous = newestFirst[i + 1];
            return (
              <tr key={`${s.date}-${s.price}-${i}`}>
                <td className="py-1.5 pr-3">{formatDate(s.date)}</td>
                <td className="py-1.5 pr-3">Sold</td>
                <td className="py-1.5 pr-3 text-right tabular-nums">{formatCurrency(s.price)}</td>
                <td className="py-1.5 text-right tabular-nums text-muted-foreground">
                  {previous ? changeText(previous.price, s.price) : "—"}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
