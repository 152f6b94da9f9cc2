// Pure rules of the Billing & Credits screen (working-screens spec, sections 4, 5 and 9; DESIGN.md section 5):
// date and rate formatting, the usage percentage, the plan buttons, the low-balance advice and the overage limit
// input. No React and no I/O here, so each rule is tested on its own. Money and the balance are written by
// @/lib/money and @/lib/balance, which the header shares.
import { z } from "zod";
import { ApiError, errorMessage } from "@/lib/api";
import { formatCredits, type Balance } from "@/lib/balance";
import { requestCount } from "@/lib/format";
import { formatMoney } from "@/lib/money";
import type { MeteredUsage, PaymentMethod, PlanInfo, Subscription } from "@/lib/types";

/** The low-balance alert level the warning names when the server's config is not at hand (spec: 50). */
export const DEFAULT_LOW_BALANCE = 50;
/** How long after subscribing or changing plan the subscription and profile are read again (spec: 2000 ms). */
export const PLAN_CHANGE_REFRESH_MS = 2000;
/** Credit history and payments are read 10 entries at a time (spec: the first 10 are shown). */
export const HISTORY_PAGE_SIZE = 10;
/** The maximum the overage dialog states when there is no plan price (spec: "1000.00 shown if no plan"). */
export const NO_PLAN_OVERAGE_MAX = 1000;

// The spec's texts (sections 5 and 8).
export const INVALID_INPUT_TITLE = "Invalid Input";
export const INVALID_LIMIT = "Please enter a valid positive number or leave empty to remove limit.";
export const SUBSCRIBE_FAILED = "Subscription Failed";
export const CHANGE_FAILED = "Plan Change Failed";
export const CARD_ELEMENT_MISSING = "Card element not found";
export const CANCELED_TITLE = "Subscription Canceled";
export const CANCELED_TEXT = "Your subscription will end at the current period.";
export const PAYMENT_FALLBACK = "The payment could not be completed. Please try again.";
/** The server's own words for a 503 from a payment call (api/openapi.yaml, Unavailable), for a body-less 503. */
export const PAYMENTS_UNAVAILABLE = "Payments are unavailable right now; you were not charged. Try again in a few minutes.";

export type PlanId = PlanInfo["id"];
export type PaidPlanId = Exclude<PlanId, "free">;
export const PAID_PLAN_IDS: readonly PaidPlanId[] = ["basic", "professional", "enterprise"];

export function isPaidPlanId(value: unknown): value is PaidPlanId {
  return typeof value === "string" && (PAID_PLAN_IDS as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting. Times are shown in UTC, as the product keeps them (DESIGN.md, section 4).

const numberFormat = new Intl.NumberFormat("en-US");
const creditRateFormat = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 4,
  maximumFractionDigits: 4,
});
const dateFormat = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
const dateTimeFormat = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});

/** 12500 as "12,500". */
export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

/**
 * The price of one overage credit, to four decimals: 0.03 as "$0.0300". The one money figure not written by
 * formatMoney: the spec shows this rate to 4 decimals (working-screens, section 9), and a custom Enterprise rate may
 * be a fraction of a cent, which is why it takes the dollars field (costPerCredit) rather than whole cents.
 */
export function formatCreditRate(dollars: number): string {
  return creditRateFormat.format(dollars);
}

/** A timestamp as "Jan 21, 2026" (UTC); the text itself when it is not a date. */
export function formatDate(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : dateFormat.format(ms);
}

/** A timestamp to the minute as "Feb 11, 2026, 12:00 UTC": an open payment expires within a day, so the hour counts. */
export function formatDateTime(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : `${dateTimeFormat.format(ms)} UTC`;
}

/** A signed ledger amount: "+1,000" or "−5" (a true minus sign). */
export function formatSignedCredits(amount: number): string {
  if (amount > 0) return `+${formatNumber(amount)}`;
  if (amount < 0) return `\u2212${formatNumber(-amount)}`;
  return "0";
}

/** "60 requests/min" ("1 request/min"), or "Unlimited" for a plan without a cap (rateCap 0). */
export function formatRateCap(rateCap: number): string {
  return rateCap > 0 ? `${requestCount(rateCap)}/min` : "Unlimited";
}

/** "Visa", "Mastercard", "American Express": the provider's brand id as a person writes it. */
export function formatCardBrand(brand: string): string {
  const known: Record<string, string> = {
    visa: "Visa",
    mastercard: "Mastercard",
    amex: "American Express",
    discover: "Discover",
    diners: "Diners Club",
    jcb: "JCB",
    unionpay: "UnionPay",
  };
  const key = brand.trim().toLowerCase();
  if (known[key]) return known[key];
  return key === "" || key === "unknown" ? "Card" : key.charAt(0).toUpperCase() + key.slice(1);
}

const STATUS_LABELS: Record<Subscription["status"], string> = {
  none: "None",
  incomplete: "Incomplete",
  active: "Active",
  past_due: "Past due",
  canceled: "Canceled",
};

/** A card as "Visa •••• 4242". */
export function formatCard(card: Pick<PaymentMethod, "brand" | "last4">): string {
  return `${formatCardBrand(card.brand)} \u2022\u2022\u2022\u2022 ${card.last4}`;
}

export function formatSubscriptionStatus(status: Subscription["status"]): string {
  return STATUS_LABELS[status] ?? status;
}

/** A plan id as its name, from the plan table when it has the plan ("professional" as "Professional"). */
export function planName(id: string | null | undefined, plans: readonly PlanInfo[] = []): string {
  if (!id) return "";
  const found = plans.find((p) => p.id === id);
  if (found) return found.name;
  return id.charAt(0).toUpperCase() + id.slice(1);
}

// ---------------------------------------------------------------------------------------------------------------
// Balance and usage.

/** Credits used this period as a whole percent of the plan's credits, capped at 100 (spec, section 9). */
export function usagePercent(used: number, planCredits: number): number {
  if (!(planCredits > 0) || !(used > 0)) return 0;
  return Math.min(100, Math.round((used / planCredits) * 100));
}

export interface UpcomingCharge {
  /** The next period's plan price and what it is for; null when the plan ends and there is no next price. */
  planPrice: { label: string; value: string } | null;
  /** The total of the next invoice, with its reason when that is not plain. */
  total: string;
}

/**
 * The next invoice as the Metered Usage card says it. A cancelled plan has no next price: the total alone says why
 * it is what it is, so no "Plan price $125" of a plan that ends sits beside a $0 total. A scheduled downgrade names
 * the cheaper plan the price is for and from when. The total is always the server's upcomingChargeCents.
 */
export function upcomingCharge(
  usage: Pick<MeteredUsage, "upcomingChargeCents" | "endsAt" | "planType" | "nextPlanType" | "nextPlanPriceCents" | "periodEnd">,
  plans: readonly PlanInfo[],
): UpcomingCharge {
  const total = formatMoney(usage.upcomingChargeCents);
  if (usage.endsAt) {
    const ends = `your plan ends on ${formatDate(usage.endsAt)}`;
    return { planPrice: null, total: usage.upcomingChargeCents > 0 ? `${total}: overage only; ${ends}` : `${total}: ${ends}` };
  }
  const label =
    usage.nextPlanType !== usage.planType
      ? `Plan price (${planName(usage.nextPlanType, plans)} from ${formatDate(usage.periodEnd)})`
      : "Plan price";
  return { planPrice: { label, value: formatMoney(usage.nextPlanPriceCents) }, total };
}

export interface BalanceAdvice {
  title: string;
  text: string;
  /** Lookups and API calls are refused now (not just soon), so the banner interrupts as an alert. */
  blocking: boolean;
}

export interface AdviceContext {
  /** The plan's name ("Basic"). */
  planName: string;
  /** The alert level in credits (the server's config; spec: 50). */
  threshold: number;
  /** When the period ends (the free credits renew, the overage limit resets); null while it is not known. */
  periodEnd: string | null;
}

/**
 * What the low-balance banner says for each state of the balance (null for `ok`: no banner). The advice follows
 * the plan: Free stops at zero, so it says to upgrade; a paid plan keeps working in overage, so it says what that
 * costs and how much of the limit is left, and only a used-up limit stops it.
 */
export function balanceAdvice(b: Balance, { planName, threshold, periodEnd }: AdviceContext): BalanceAdvice | null {
  const rate = `${formatMoney(b.overageRateCents)} a credit`;
  const limit = b.overageLimitCents === null ? null : formatMoney(b.overageLimitCents);
  const until = periodEnd ? formatDate(periodEnd) : "the end of the billing period";
  const renews = periodEnd ? `on ${formatDate(periodEnd)}` : "at the end of the billing period";
  switch (b.state) {
    case "ok":
      return null;
    case "low": {
      const left = `You have ${formatCredits(b.credits)} left, under the ${formatNumber(threshold)}-credit alert level.`;
      const next =
        b.planType === "free"
          ? "Upgrade to keep looking up."
          : `Past zero your ${planName} plan keeps working at ${rate} (overage)${limit ? ` up to your ${limit} limit` : ""}.`;
      return { title: "Low credit balance", text: `${left} ${next}`, blocking: false };
    }
    case "overage": {
      const text =
        limit && b.overageLeftCents !== null
          ? `You are in overage at ${rate}; raise your plan or the limit. ${formatMoney(b.overageLeftCents)} of your ${limit} limit left.`
          : `You are in overage at ${rate}; raise your plan or set a limit.`;
      return { title: "Using overage credits", text, blocking: false };
    }
    case "limit_reached":
      return {
        title: "Overage limit reached",
        text: `Your ${limit ? `${limit} ` : ""}overage limit is used up: lookups and API calls are refused until ${until}. Raise the limit or your plan.`,
        blocking: true,
      };
    case "empty":
      return {
        title: "No credits left",
        text: `You have no credits left. Upgrade to keep looking up; your free credits renew ${renews}.`,
        blocking: true,
      };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Plans and their buttons (spec, section 4).

/**
 * Whether the account pays for a plan now. Free is status `none`; a subscription whose first payment never went
 * through (`incomplete`) or that has ended (`canceled`) is not a paid plan either, so the plan cards offer to
 * subscribe again.
 */
export function hasPaidPlan(sub: Pick<Subscription, "planType" | "status"> | null | undefined): boolean {
  if (!sub || sub.planType === "free") return false;
  return sub.status === "active" || sub.status === "past_due";
}

export type PlanActionKind = "current" | "subscribe" | "upgrade" | "downgrade";

export interface PlanAction {
  kind: PlanActionKind;
  label: string;
  disabled: boolean;
}

/**
 * The button of a plan card: the current plan is disabled ('Current Plan'); with no paid plan yet every plan says
 * 'Get Started'; a dearer plan says 'Choose {plan}', a cheaper one 'Switch to {plan}'.
 */
export function planAction(plan: PlanInfo, current: PlanInfo | null, paid: boolean): PlanAction {
  if (!paid || !current) return { kind: "subscribe", label: "Get Started", disabled: false };
  if (plan.id === current.id) return { kind: "current", label: "Current Plan", disabled: true };
  if (plan.priceCents > current.priceCents) return { kind: "upgrade", label: `Choose ${plan.name}`, disabled: false };
  return { kind: "downgrade", label: `Switch to ${plan.name}`, disabled: false };
}

/** The paid plans of the plan table, cheapest first. */
export function paidPlans(plans: readonly PlanInfo[]): PlanInfo[] {
  return plans.filter((p) => p.id !== "free").sort((a, b) => a.priceCents - b.priceCents);
}

// ---------------------------------------------------------------------------------------------------------------
// The overage limit (spec, section 5).

export type OverageLimitInput = { ok: true; limit: number | null } | { ok: false; message: string };

/**
 * Reads the dialog's text: empty means no limit (null); otherwise a number of dollars, not negative (a leading "$"
 * is allowed). The server keeps cents, so the value is rounded to the cent.
 */
export function parseOverageLimit(text: string): OverageLimitInput {
  const trimmed = text.trim().replace(/^\$\s*/, "");
  if (trimmed === "") return { ok: true, limit: null };
  // Number() alone would read "0x10" or "1e3"; a limit is written as plain digits with an optional decimal part.
  if (!/^\d*\.?\d+$|^\d+\.$/.test(trimmed)) return { ok: false, message: INVALID_LIMIT };
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value < 0) return { ok: false, message: INVALID_LIMIT };
  return { ok: true, limit: Math.round(value * 100) / 100 };
}

/** The maximum the dialog states: ten times the plan price, or 1000.00 with no plan. Shown, not enforced. */
export function overageLimitMax(planPriceDollars: number | null | undefined): string {
  const price = planPriceDollars && planPriceDollars > 0 ? planPriceDollars : 0;
  return (price > 0 ? price * 10 : NO_PLAN_OVERAGE_MAX).toFixed(2);
}

/** The limit (dollars, as the limit calls carry it) as shown on the screen: "$50", "$12.50", or "No limit". */
export function formatOverageLimit(limit: number | null | undefined): string {
  return limit === null || limit === undefined ? "No limit" : formatMoney(limit * 100);
}

/** The limit as the dialog's input starts: "50.00", or empty for no limit. */
export function overageLimitText(limit: number | null | undefined): string {
  return limit === null || limit === undefined ? "" : limit.toFixed(2);
}

// ---------------------------------------------------------------------------------------------------------------
// The test-mode card form.

export interface ParsedExpiry {
  month: number;
  year: number;
}

/** "MM/YY" (or "MM/YYYY", with or without the slash's spaces) as a month and a four-digit year; null if invalid. */
export function parseExpiry(text: string): ParsedExpiry | null {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  const rawYear = m[2] ?? "";
  const year = rawYear.length === 2 ? 2000 + Number(rawYear) : Number(rawYear);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** A card number as typed, without spaces or dashes. */
export function cardDigits(text: string): string {
  return text.replace(/[\s-]/g, "");
}

/** Groups a card number in fours as it is typed ("4242 4242 4242 4242"), at most 19 digits. */
export function formatCardNumberInput(text: string): string {
  const digits = text.replace(/\D/g, "").slice(0, 19);
  return digits.replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** Keeps the expiry input as "MM/YY" while typing: the slash is put in once the year starts. */
export function formatExpiryInput(text: string): string {
  const digits = text.replace(/\D/g, "").slice(0, 4);
  return digits.length >= 3 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
}

export const CARD_NUMBER_INVALID = "Enter the card number (12 to 19 digits)";
export const EXPIRY_INVALID = "Enter the expiry date as MM/YY";
export const CVC_INVALID = "Enter the 3 or 4 digit security code";
export const NAME_TOO_LONG = "Name on card must be at most 200 characters";

/**
 * The test-mode card form. Only the shape is checked here; whether the card is real, expired or declined is the
 * payment provider's answer (the server's test mode plays Stripe's).
 */
export const testCardSchema = z.object({
  number: z
    .string()
    .transform(cardDigits)
    .refine((v) => /^\d{12,19}$/.test(v), CARD_NUMBER_INVALID),
  expiry: z
    .string()
    .refine((v) => parseExpiry(v) !== null, EXPIRY_INVALID)
    .transform((v) => parseExpiry(v) as ParsedExpiry),
  cvc: z
    .string()
    .trim()
    .regex(/^\d{3,4}$/, CVC_INVALID),
  name: z.string().trim().max(200, NAME_TOO_LONG),
});
export type TestCardInput = z.input<typeof testCardSchema>;
export type TestCardParsed = z.output<typeof testCardSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Receipts.

/** The file name in a Content-Disposition header (filename* first, then filename); null when there is none. */
export function attachmentFileName(header: string | null | undefined): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*[^']*'[^']*'([^;]+)/i.exec(header);
  let name: string | null = null;
  if (star?.[1]) {
    try {
      name = decodeURIComponent(star[1].trim().replace(/^"|"$/g, ""));
    } catch {
      name = null;
    }
  }
  if (!name) {
    const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/i.exec(header);
    name = plain?.[1] ?? plain?.[2]?.trim() ?? null;
  }
  const base = name?.split(/[\\/]/).pop()?.trim() ?? "";
  return base === "" ? null : base;
}

/** The saved name of a receipt: the server's, else "receipt-{id}.html". */
export function receiptFileName(id: number, contentDisposition?: string | null): string {
  return attachmentFileName(contentDisposition) ?? `receipt-${id}.html`;
}

// ---------------------------------------------------------------------------------------------------------------
// Payment errors.

/** The card fields of the test-mode form that a 400 from the payment-method call may name. */
export type CardField = "number" | "expiry" | "cvc" | "name";

/** The server's field names (TestCardRequest) as the form's fields; expMonth and expYear are the one expiry input. */
export function cardFieldOf(serverField: string | undefined): CardField | null {
  switch (serverField) {
    case "number":
      return "number";
    case "expMonth":
    case "expYear":
    case "expiry":
      return "expiry";
    case "cvc":
      return "cvc";
    case "name":
      return "name";
    default:
      return null;
  }
}

/** A card the payment provider refused because of one field of the form (a bad number, a past expiry). */
export class CardFieldError extends Error {
  readonly field: CardField;

  constructor(field: CardField, message: string) {
    super(message);
    this.name = "CardFieldError";
    this.field = field;
  }
}

/** A failure reported by the payment provider itself (Stripe.js), with its own message for the customer. */
export class PaymentProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PaymentProviderError";
  }
}

/** Stripe's card field was not on the page when the form was sent. */
export class CardElementMissingError extends Error {
  constructor() {
    super(CARD_ELEMENT_MISSING);
    this.name = "CardElementMissingError";
  }
}

/** The second line of a payment failure toast: the provider's or the server's own sentence, else the fallback. */
export function failureText(err: unknown, fallback: string): string {
  if (err instanceof CardFieldError || err instanceof PaymentProviderError) return err.message || fallback;
  // A 503 from a payment call always means nothing was charged; say so even when a proxy sent no JSON body.
  if (err instanceof ApiError && err.status === 503) return errorMessage(err, PAYMENTS_UNAVAILABLE);
  return errorMessage(err, fallback);
}

/** The payment is no longer open on the server (expired, withdrawn, or priced against an account that changed). */
export function isStalePayment(err: unknown): boolean {
  return err instanceof ApiError && err.status === 409;
}

/** The provider refused the card (or its authentication): another card may still pay. */
export function isCardDeclined(err: unknown): boolean {
  return err instanceof ApiError && err.status === 402;
}
