// Pure helpers of the Reporting screen (product-and-account spec, sections 2, 4 and 9): the figures and notes of
// the four cards, the chart series and the relative times of the activity list. No React and no I/O here.
import { formatResponseTime } from "@/lib/format";
import type { UsageStats } from "@/lib/types";

export const PERIODS = [30, 7, 90] as const;
export type Period = (typeof PERIODS)[number];
export const DEFAULT_PERIOD: Period = 30;

export const PERIOD_LABELS: Record<Period, string> = {
  30: "Last 30 days",
  7: "Last 7 days",
  90: "Last 90 days",
};

export function isPeriod(v: number): v is Period {
  return (PERIODS as readonly number[]).includes(v);
}

export function statsPath(days: Period): string {
  return `/api/usage/stats?days=${days}`;
}

/** The latest calls of the activity panel: the first page of the history, five rows. */
export const RECENT_ACTIVITY_LIMIT = 5;
export const RECENT_ACTIVITY_PATH = `/api/usage/history?page=1&limit=${RECENT_ACTIVITY_LIMIT}`;

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A whole number with thousands separators: 12345 -> "12,345". */
export function formatCount(n: number): string {
  return integer.format(Math.round(n));
}

/** A status code is a success from 200 to 299 (working-screens spec, section 4). */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** The note under 'API Calls This Month': the real change against last month, rounded to a whole percent. */
export function monthNote(stats: Pick<UsageStats, "thisMonth" | "monthOverMonthChange">): string {
  if (stats.thisMonth <= 0) return "No activity yet";
  const change = stats.monthOverMonthChange;
  if (change === null || !Number.isFinite(change)) return "No activity last month";
  // Math.round(-0.4) is -0, which must read as 0%.
  const pct = Math.round(change * 100) || 0;
  return `${pct > 0 ? "+" : ""}${pct}% from last month`;
}

/**
 * Successful over total as a percent with one decimal ("97.3%"), or "-" when there were no requests. A rate below
 * 100% is rounded down, so 9,999 of 10,000 reads 99.9% and never a 100.0% that hides a failure.
 */
export function successRateText(successful: number, total: number): string {
  if (total <= 0) return "-";
  // Tenths of a percent computed as one division, so an exact rate (973 of 1,000) is not floored to 97.2.
  const shown = successful >= total ? 100 : Math.floor((successful * 1000) / total) / 10;
  return `${shown.toFixed(1)}%`;
}

/** An honest note for the success rate: the thresholds are ours (the spec always says 'Excellent performance'). */
export function successNote(successful: number, total: number): string {
  if (total <= 0) return "No requests in this period";
  const rate = (successful / total) * 100;
  if (rate >= 95) return "Excellent performance";
  if (rate >= 80) return "Good";
  return "Needs attention";
}

/** The 'Avg Response Time' card: "-" when there were no requests (as the success rate), else the mean. */
export function avgTimeText(stats: Pick<UsageStats, "totalRequests" | "avgResponseTime">): string {
  return stats.totalRequests > 0 ? formatResponseTime(stats.avgResponseTime) : "-";
}

export function avgTimeNote(stats: Pick<UsageStats, "totalRequests" | "p50" | "p95">): string {
  if (stats.totalRequests <= 0) return "No requests in this period";
  return `p50 ${formatResponseTime(stats.p50)} · p95 ${formatResponseTime(stats.p95)}`;
}

export function keysNote(count: number): string {
  return count > 0 ? "Ready for use" : "Create one to use the API";
}

export interface UsagePoint {
  /** The calendar date ("2026-02-03"), or the placeholder's label. */
  date: string;
  /** The axis label ("Feb 3"). */
  label: string;
  requests: number;
}

/** Spec section 4: the placeholder series charted when requestsByDay is empty. */
export const PLACEHOLDER_SERIES: readonly UsagePoint[] = ["Jan 1", "Jan 5", "Jan 10", "Jan 15", "Jan 20", "Jan 25", "Jan 30"].map(
  (label) => ({ date: label, label, requests: 0 }),
);

const dayLabel = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/** A calendar date ("2026-02-03") as "Feb 3"; the dates are UTC days, so they are shown in UTC. */
export function formatDay(date: string): string {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00Z` : date);
  return Number.isNaN(ms) ? date : dayLabel.format(ms);
}

/** The line chart's points: one per day of the period, or the placeholder series when there are none. */
export function usageSeries(requestsByDay: UsageStats["requestsByDay"] | null | undefined): UsagePoint[] {
  if (!requestsByDay || requestsByDay.length === 0) return PLACEHOLDER_SERIES.map((p) => ({ ...p }));
  return requestsByDay.map((d) => ({ date: d.date, label: formatDay(d.date), requests: d.requests }));
}

export interface ResponseTimeSlice {
  key: "fast" | "normal" | "slow";
  label: string;
  color: string;
  value: number;
}

/** Spec section 9: the buckets and their labels; the colours are green, amber and red. */
export const RESPONSE_TIME_BUCKETS = [
  { key: "fast", label: "Fast (<300ms)", color: "#16a34a" },
  { key: "normal", label: "Normal (300-500ms)", color: "#f59e0b" },
  { key: "slow", label: "Slow (>500ms)", color: "#dc2626" },
] as const;

export function responseTimeSlices(times: UsageStats["responseTimes"] | null | undefined): ResponseTimeSlice[] {
  return RESPONSE_TIME_BUCKETS.map((b) => ({ ...b, value: Math.max(0, times?.[b.key] ?? 0) }));
}

/** A share of a total as a whole percent ("75%"), "0%" when the total is zero. */
export function sharePercent(value: number, total: number): string {
  return total > 0 ? `${Math.round((value / total) * 100)}%` : "0%";
}

const relative = new Intl.RelativeTimeFormat("en-US", { numeric: "auto" });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "just now", "5 minutes ago", "yesterday", "3 weeks ago"; unreadable input is returned as it came. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const seconds = Math.round((now - ms) / 1000);
  if (Math.abs(seconds) < 45) return "just now";
  const sign = seconds < 0 ? -1 : 1;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(-sign * Math.floor(Math.abs(seconds) / size), unit);
  }
  return relative.format(-sign, "minute");
}
