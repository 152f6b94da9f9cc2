// Pure rules of the Billing & Credits screen (working-screens spec, sections 4, 5 and 9; DESIGN.md section 5):
// money and date formatting, the usage percentage, the plan buttons, the low-balance rule and the overage limit
// input. No React and no I/O here, so each rule is tested on its own.
import { z } from "zod";
import { errorMessage } from "@/lib/api";
import type { PlanInfo, Subscription } from "@/lib/types";

/** The balance under which the low-balance warning shows when the server's config is not at hand (spec: 50). */
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

export type PlanId = PlanInfo["id"];
export type PaidPlanId = Exclude<PlanId, "free">;
export const PAID_PLAN_IDS: readonly PaidPlanId[] = ["basic", "professional", "enterprise"];

export function isPaidPlanId(value: unknown): value is PaidPlanId {
  return typeof value === "string" && (PAID_PLAN_IDS as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting. Times are shown in UTC, as the product keeps them (DESIGN.md, section 4).

const numberFormat = new Intl.NumberFormat("en-US");
const wholeUsd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const centsUsd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const fourDecimalsUsd = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 4,
  maximumFractionDigits: 4,
});
const dateFormat = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** 12500 as "12,500". */
export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

/** "1 credit", "1,000 credits". */
export function formatCredits(n: number): string {
  return `${formatNumber(n)} ${Math.abs(n) === 1 ? "credit" : "credits"}`;
}

/** A plan price in whole US dollars, as the spec formats currency: 3000 cents as "$30". */
export function formatPlanPrice(cents: number): string {
  return wholeUsd.format(cents / 100);
}

/** An amount charged, to the cent: 4167 as "$41.67". */
export function formatCents(cents: number): string {
  return centsUsd.format(cents / 100);
}

/** Dollars to the cent: 33.69 as "$33.69". */
export function formatDollars(dollars: number): string {
  return centsUsd.format(dollars);
}

/** Overage figures, shown to four decimals (spec, section 9): 0.03 as "$0.0300". */
export function formatDollars4(dollars: number): string {
  return fourDecimalsUsd.format(dollars);
}

/** A timestamp as "Jan 21, 2026" (UTC); the text itself when it is not a date. */
export function formatDate(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : dateFormat.format(ms);
}

/** A signed ledger amount: "+1,000" or "−5" (a true minus sign). */
export function formatSignedCredits(amount: number): string {
  if (amount > 0) return `+${formatNumber(amount)}`;
  if (amount < 0) return `\u2212${formatNumber(-amount)}`;
  return "0";
}

/** "60 requests/min", or "Unlimited" for a plan without a cap (rateCap 0). */
export function formatRateCap(rateCap: number): string {
  return rateCap > 0 ? `${formatNumber(rateCap)} requests/min` : "Unlimited";
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

export interface BalanceView {
  /** What can still be spent: the balance, never below zero. */
  available: number;
  /** Credits used beyond the balance this period (a negative balance), billed as overage. */
  overageUsed: number;
}

/** A balance below zero means overage credits were used: none are available, and the overage is said. */
export function balanceView(balance: number): BalanceView {
  return balance < 0 ? { available: 0, overageUsed: -balance } : { available: balance, overageUsed: 0 };
}

/** Credits used this period as a whole percent of the plan's credits, capped at 100 (spec, section 9). */
export function usagePercent(used: number, planCredits: number): number {
  if (!(planCredits > 0) || !(used > 0)) return 0;
  return Math.min(100, Math.round((used / planCredits) * 100));
}

/** The low-balance warning shows when credits are under the threshold (spec: under 50, so not at 50). */
export function isLowBalance(credits: number, threshold: number = DEFAULT_LOW_BALANCE): boolean {
  return credits < threshold;
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

/** The limit as shown on the screen: "$50.00", or "No limit". */
export function formatOverageLimit(limit: number | null | undefined): string {
  return limit === null || limit === undefined ? "No limit" : formatDollars(limit);
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
  return errorMessage(err, fallback);
}
