// Money, the one way every screen writes it. The server keeps integer cents (DESIGN.md, section 4), so that is what
// this takes: a float of dollars would carry its rounding into the text.

const wholeDollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const withCents = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/**
 * An amount in cents as US dollars: whole dollars without decimals, as the spec writes prices ("$125", "$0",
 * "$1,200"), and any other amount to the cent ("$74.99", "$0.30"), so a charge is never rounded away.
 */
export function formatMoney(cents: number): string {
  const whole = Math.round(cents);
  return whole % 100 === 0 ? wholeDollars.format(whole / 100) : withCents.format(whole / 100);
}
