/**
 * An en-US number format that groups whole numbers itself ("12,345", "-1,000") and makes its Intl.NumberFormat only
 * for other numbers, on first use. The first Intl formatter a page creates costs Chromium 40 to 120 ms of ICU set-up
 * on a 2-core machine, four times that on Lighthouse's simulated phone: /pricing, whose figures are all whole,
 * paid it before its first paint (issue 33; docs/performance.md). The result is the same as Intl's: only the
 * fraction digits can be set, and whole numbers print alike whatever their maximum.
 */
export function groupedNumberFormat(options: { maximumFractionDigits?: number } = {}): { format(n: number): string } {
  let intl: Intl.NumberFormat | undefined;
  return {
    format(n: number): string {
      // -0 is left to Intl, which writes "-0".
      if (Number.isSafeInteger(n) && !Object.is(n, -0)) return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
      intl ??= new Intl.NumberFormat("en-US", options);
      return intl.format(n);
    },
  };
}
