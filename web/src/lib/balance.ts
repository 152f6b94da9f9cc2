// The account's balance as every surface shows it (DESIGN.md, section 5: "every surface shows the balance from one
// function"): the header and the Billing screen both render balanceText, so they can never disagree. The figures
// come split by the server (schema Balance): a paid plan past its credits is 0 credits plus overage, never a
// negative balance.
import type { components } from "./api-types";
import { formatMoney } from "./money";

export type Balance = components["schemas"]["Balance"];

const count = new Intl.NumberFormat("en-US");

/** "1 credit", "12,500 credits". */
export function formatCredits(n: number): string {
  return `${count.format(n)} ${n === 1 ? "credit" : "credits"}`;
}

/**
 * The balance in parts: the credits left, then (in overage only) the overage used and its cost so far. The header
 * lays the parts out so they wrap between them on a phone; balanceText joins them.
 */
export function balanceParts(b: Balance): [string] | [string, string] {
  const credits = formatCredits(b.credits);
  if (b.overageCredits <= 0) return [credits];
  return [credits, `${count.format(b.overageCredits)} overage (${formatMoney(b.overageCents)})`];
}

export const BALANCE_SEPARATOR = " · ";

/** "12,500 credits", "1 credit", and in overage "0 credits · 10 overage ($0.30)". */
export function balanceText(b: Balance): string {
  return balanceParts(b).join(BALANCE_SEPARATOR);
}
