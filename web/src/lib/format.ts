// Formatting shared by every screen that shows the same kind of figure.

const wholeNumber = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

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
