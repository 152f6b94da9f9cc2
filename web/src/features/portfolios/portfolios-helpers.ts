import { toCsv, type CsvValue } from "@/lib/csv";
import type { HomeInput, Portfolio, PortfolioDetail, PortfolioHome, PortfolioRowResult } from "./api/portfolios-api";

// The Portfolios screen's figures, sorting and exports (issue 40), kept apart from the components so they are tested
// on their own.

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", notation: "compact", maximumFractionDigits: 2 });

/** "$1,234,567"; a missing figure is a dash. */
export function dollars(v: number | null | undefined): string {
  return typeof v === "number" && Number.isFinite(v) ? usd.format(v) : "—";
}

export function compactDollars(v: number): string {
  return compact.format(v);
}

/** A change in dollars with its sign: "+$1,200", "−$800", "$0". */
export function signedDollars(v: number | null | undefined): string {
  if (typeof v !== "number" || !Number.isFinite(v)) return "—";
  if (v === 0) return "$0";
  return `${v > 0 ? "+" : "−"}${usd.format(Math.abs(v))}`;
}

/** A change in percent (the API's, already a percentage) with its sign: "+1.25%", "−0.40%", "0.00%". */
export function signedPercent(v: number | null | undefined): string {
  if (typeof v !== "number" || !Number.isFinite(v)) return "—";
  if (v === 0) return "0.00%";
  return `${v > 0 ? "+" : "−"}${Math.abs(v).toFixed(2)}%`;
}

/** "5%", "0.1%": a threshold as it was set. */
export function thresholdText(t: number): string {
  return `${Number(t.toFixed(2))}%`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2026-11" as "Nov 2026". */
export function monthLabel(month: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  const name = m ? MONTHS[Number(m[2]) - 1] : undefined;
  return m && name ? `${name} ${m[1]}` : month;
}

/** The cost of adding homes, as the buttons say it: "1 credit", "4 credits". */
export function creditsText(n: number): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? "credit" : "credits"}`;
}

/** The alert threshold's rule (the server's too): a percentage from 0.1 to 100, or none; the message, or null. */
export function checkThreshold(t: number | null): string | null {
  if (t !== null && (!Number.isFinite(t) || t < 0.1 || t > 100)) return "Alert threshold must be a percentage from 0.1 to 100";
  return null;
}

/** "1 home", "3 homes". */
export function homesText(n: number): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? "home" : "homes"}`;
}

/**
 * Whether a home is one of the month's movers: its value moved since last month by more than the portfolio's alert
 * threshold (either way). A portfolio without a threshold has none.
 */
export function isMover(home: PortfolioHome, threshold: number | null | undefined): boolean {
  const c = home.changeSinceLastMonth;
  return typeof threshold === "number" && !!c && Math.abs(c.percent) > threshold;
}

export type SortKey = "address" | "value" | "change";
export type SortDir = "asc" | "desc";

function valueOf(h: PortfolioHome): number {
  return h.latest?.value ?? Number.NEGATIVE_INFINITY;
}

function changeOf(h: PortfolioHome): number {
  return h.changeSinceLastMonth?.percent ?? Number.NEGATIVE_INFINITY;
}

/**
 * The homes in the table's order: the month's movers first (the largest move first), then the rest by the column
 * chosen; a home not yet valued sorts last whichever way.
 */
export function sortHomes(homes: readonly PortfolioHome[], threshold: number | null | undefined, key: SortKey, dir: SortDir): PortfolioHome[] {
  const sign = dir === "asc" ? 1 : -1;
  const byKey = (a: PortfolioHome, b: PortfolioHome): number => {
    if (key === "address") return sign * a.formattedAddress.localeCompare(b.formattedAddress);
    const va = key === "value" ? valueOf(a) : changeOf(a);
    const vb = key === "value" ? valueOf(b) : changeOf(b);
    if (va === vb) return a.formattedAddress.localeCompare(b.formattedAddress);
    if (va === Number.NEGATIVE_INFINITY) return 1;
    if (vb === Number.NEGATIVE_INFINITY) return -1;
    return sign * (va - vb);
  };
  return [...homes].sort((a, b) => {
    const ma = isMover(a, threshold);
    const mb = isMover(b, threshold);
    if (ma !== mb) return ma ? -1 : 1;
    if (ma && mb) {
      const d = Math.abs(b.changeSinceLastMonth!.percent) - Math.abs(a.changeSinceLastMonth!.percent);
      if (d !== 0) return d;
    }
    return byKey(a, b);
  });
}

/** The month's movers of a portfolio's homes, the largest move first (as the table lists them). */
export function movers(p: Pick<PortfolioDetail, "homes" | "alertThreshold">): PortfolioHome[] {
  return sortHomes(p.homes.filter((h) => isMover(h, p.alertThreshold)), p.alertThreshold, "address", "asc");
}

/** The change of the totals this month in percent of last month's value (null when there was none). */
export function totalChangePercent(totals: PortfolioDetail["totals"]): number | null {
  const before = totals.value - totals.changeSinceLastMonth;
  if (before <= 0 || totals.changeSinceLastMonth === 0) return totals.changeSinceLastMonth === 0 && before > 0 ? 0 : null;
  return Math.round((totals.changeSinceLastMonth / before) * 10000) / 100;
}

/**
 * The portfolio's change this month as the list and its page say it: "+$1,200 (+0.05%)", or "First month" while it
 * has only one month (there is no last month to change from, and the API's 0 would read as "nothing moved").
 */
export function monthChangeText(p: Pick<PortfolioDetail, "totals" | "history">): string {
  if (p.history.length < 2) return "First month";
  const pct = totalChangePercent(p.totals);
  return `${signedDollars(p.totals.changeSinceLastMonth)}${pct !== null ? ` (${signedPercent(pct)})` : ""}`;
}

/** A portfolio's status as the list and its page say it. */
export function statusText(p: Pick<Portfolio, "status">): string {
  return p.status === "paused" ? "Paused" : "Active";
}

export const EXPORT_HEADER = [
  "Address", "City", "State", "ZIP", "Month valued", "Value", "Low", "High", "Confidence",
  "Change since last month ($)", "Change since last month (%)", "Change since added ($)", "Change since added (%)",
  "Moved past alert threshold",
] as const;

/** The rows of an export (CSV and XLSX alike): a header, then every home in the table's order. */
export function exportRows(p: PortfolioDetail): (string | number | null)[][] {
  const rows: (string | number | null)[][] = [[...EXPORT_HEADER]];
  for (const h of sortHomes(p.homes, p.alertThreshold, "address", "asc")) {
    rows.push([
      h.formattedAddress, h.city, h.state, h.zip,
      h.latest?.month ?? null, h.latest?.value ?? null, h.latest?.low ?? null, h.latest?.high ?? null,
      h.latest?.confidenceLevel ?? null,
      h.changeSinceLastMonth?.amount ?? null, h.changeSinceLastMonth?.percent ?? null,
      h.changeSinceAdded?.amount ?? null, h.changeSinceAdded?.percent ?? null,
      p.alertThreshold === null ? null : isMover(h, p.alertThreshold) ? "Yes" : "No",
    ]);
  }
  return rows;
}

/** The CSV export: RFC 4180, every cell formula-safe (lib/csv.ts). */
export function portfolioCsv(p: PortfolioDetail): string {
  return toCsv(exportRows(p) as CsvValue[][]);
}

/** "portfolio-seattle-rentals-2026-11-28.csv": the name, made safe for a file name, and the day. */
export function exportFileName(name: string, ext: "csv" | "xlsx", now: Date = new Date()): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "portfolio";
  return `portfolio-${slug}-${now.toISOString().slice(0, 10)}.${ext}`;
}

/** A failed home of a create or add answer: its address as it was asked and the server's reason. */
export interface RowFailure {
  address: string;
  error: string;
}

export function rowFailures(results: readonly PortfolioRowResult[], asked: readonly HomeInput[]): RowFailure[] {
  return results
    .filter((r) => r.status === "failed")
    .map((r) => {
      const h = asked[r.index];
      const address = h
        ? [h.address, h.city, h.state, h.zip].filter(Boolean).join(", ")
        : r.line !== undefined
          ? `Line ${r.line}`
          : `Property ${r.index + 1}`;
      return { address, error: r.error ?? "Not valued" };
    });
}

/** The homes added by an answer, and the credits they cost. */
export function addedCount(results: readonly PortfolioRowResult[]): { added: number; credits: number } {
  const added = results.filter((r) => r.status === "added");
  return { added: added.length, credits: added.reduce((n, r) => n + r.creditsUsed, 0) };
}

/**
 * The server's messages for a form's fields: `properties[0].zip` is the first home's `zip` field, shown there.
 * Any other field (name, alertThreshold, webhookUrl) is kept as it is named.
 */
export function formFieldErrors(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    const m = /^properties\[0\]\.(address|city|state|zip)$/.exec(k);
    out[m ? m[1]! : k] = v;
  }
  return out;
}
