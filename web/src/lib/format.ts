// Formatting shared by every screen that shows the same kind of figure.

import { groupedNumberFormat } from "./number-format";

// Not Intl.NumberFormat itself: /pricing shows counts, and a first Intl formatter delays a paint (number-format.ts).
const wholeNumber = groupedNumberFormat({ maximumFractionDigits: 0 });

/** The plural rule of every screen's counts: `one` for exactly 1, `many` otherwise ("0 properties", "1 property"). */
export function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** A count of requests: "1 request", "60 requests", "1,000 requests". */
export function requestCount(n: number): string {
  return `${wholeNumber.format(n)} ${plural(n, "request", "requests")}`;
}

/**
 * A per-minute request budget in words, the way the server's 429 says it (issue 33): "1 request a minute",
 * "60 requests a minute", never "1 requests a minute".
 */
export function requestsAMinute(n: number): string {
  return `${requestCount(n)} a minute`;
}

/**
 * A response time, the one way every screen shows it (history, its details, reporting): whole milliseconds with
 * thousands separators ("142 ms", "1,234 ms"), and "<1 ms" under one millisecond. The server records whole
 * milliseconds, cut down, so a recorded 0 is a call that took less than 1 ms, never one that took no time.
 * A missing or unreadable time is a dash.
 */
export function formatResponseTime(ms: number | null | undefined): string {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "—";
  if (ms < 1) return "<1 ms";
  return `${wholeNumber.format(Math.round(ms))} ms`;
}
