// The console's rules and wording, apart from the screens so they can be tested alone.
import { ApiError } from "@/lib/api";

export { isOperator } from "@/lib/roles";

/** Whether a failed call was the server saying the caller is not an operator. */
export function isForbidden(err: unknown): boolean {
  return err instanceof ApiError && err.status === 403;
}

export const OPERATORS_ONLY = "Only Valuator operators can open this page.";

// The contract's limits (POST /api/admin/accounts/{id}/credits, /suspend, /reinstate, /close, /refund).
export const MAX_CREDIT_ADJUSTMENT = 1_000_000;
export const REASON_MIN = 3;
export const REASON_MAX = 500;
export const MESSAGE_MAX = 4000;

const count = new Intl.NumberFormat("en-US");

export function formatCount(n: number): string {
  return count.format(n);
}

/** The validation message of a reason, naming the field; null when it is fine. */
export function reasonError(reason: string): string | null {
  const r = reason.trim();
  if (r.length === 0) return "Reason is required: say why, for the audit log.";
  if (r.length < REASON_MIN) return `Reason must be at least ${REASON_MIN} characters.`;
  if (r.length > REASON_MAX) return `Reason must be at most ${REASON_MAX} characters.`;
  return null;
}

/**
 * The validation of a credit adjustment's amount as typed (a positive number of credits; the dialog's mode gives
 * the sign): the credits, or the message naming the field.
 */
export function parseAmount(text: string): { ok: true; credits: number } | { ok: false; message: string } {
  const t = text.trim().replace(/,/g, "");
  if (t === "") return { ok: false, message: "Amount is required." };
  if (!/^\d+$/.test(t)) return { ok: false, message: "Amount must be a whole number of credits, like 250." };
  const n = Number(t);
  if (n === 0) return { ok: false, message: "Amount must be at least 1 credit." };
  if (n > MAX_CREDIT_ADJUSTMENT) return { ok: false, message: `Amount must be at most ${formatCount(MAX_CREDIT_ADJUSTMENT)} credits.` };
  return { ok: true, credits: n };
}

/** A message's validation (customer chat and operator reply alike). */
export function messageError(body: string, field = "Message"): string | null {
  if (body.trim().length === 0) return `${field} is required.`;
  if (body.length > MESSAGE_MAX) return `${field} must be at most ${formatCount(MESSAGE_MAX)} characters.`;
  return null;
}

export function signedCredits(n: number): string {
  return n > 0 ? `+${formatCount(n)}` : formatCount(n);
}

const dateTime = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZone: "UTC",
  timeZoneName: "short",
});
const dateOnly = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** A time of the API (RFC 3339, UTC) as "Jan 5, 2026, 3:04 PM UTC"; a dash when missing or unreadable. */
export function formatWhen(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function formatDay(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(d.getTime()) ? iso : dateOnly.format(d);
}

const PLAN_NAMES: Record<string, string> = {
  free: "Free",
  basic: "Basic",
  professional: "Professional",
  enterprise: "Enterprise",
};

export function planLabel(plan: string | null | undefined): string {
  if (!plan) return "—";
  return PLAN_NAMES[plan] ?? plan;
}

export const STATUS_LABELS: Record<string, string> = { active: "Active", suspended: "Suspended", closed: "Closed" };

/**
 * What a refund does to the plan (issue 36, L-4): a full refund of the payment for the current period ends the paid
 * plan at once (back to Free, nothing renews); a partial refund (made at Stripe) keeps it.
 */
export const REFUND_ENDS_PLAN = "A full refund also ends the plan at once; a partial refund keeps it.";

/** The refund dialog's words about the plan: an overage payment paid for credits already used, not for the plan. */
export function refundPlanText(kind: string): string {
  return kind === "overage" ? "Refunding overage keeps the plan." : REFUND_ENDS_PLAN;
}

/** What an account action is called and what it answers, by action. */
export const ACCOUNT_ACTIONS = {
  suspend: {
    title: "Suspend account",
    button: "Suspend",
    done: "Account suspended",
    describe: (email: string) =>
      `${email} can no longer sign in or use its API keys; its batch jobs wait. Nothing is deleted, and you can reinstate it.`,
  },
  reinstate: {
    title: "Reinstate account",
    button: "Reinstate",
    done: "Account reinstated",
    describe: (email: string) => `${email} can sign in and use its API keys again; its held batch jobs resume.`,
  },
  close: {
    title: "Close account",
    button: "Close account",
    done: "Account closed",
    describe: (email: string) => `${email} is closed for good: the customer can no longer sign in. This cannot be undone here.`,
  },
} as const;

/**
 * An audit row's before and after as "balance: 12 → 262; amount: 250": a figure both have shows its change, one only
 * the after has (what the action added, like the amount) shows its value.
 */
export function describeChange(before: Record<string, unknown> | null, after: Record<string, unknown> | null): string {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  if (keys.length === 0) return "—";
  const show = (v: unknown) => (v === undefined ? "—" : v === null ? "none" : typeof v === "object" ? JSON.stringify(v) : String(v));
  return keys
    .map((k) => (before && k in before ? `${k}: ${show(before[k])} → ${show(after?.[k])}` : `${k}: ${show(after?.[k])}`))
    .join("; ");
}

/** An action's code (suspend, credits_adjusted) as words. */
export function actionLabel(action: string): string {
  const words = action.replace(/[_.-]+/g, " ").trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : action;
}

/**
 * A query of the person-lookup audit or the opt-out log as one line: the server keeps the fields asked about as
 * JSON text (AdminPersonAudit.query, AdminOptOut.query), shown as "name: John Smith, city: Austin" without the
 * empty ones; text that is not a JSON object is shown as it is.
 */
export function queryText(q: string): string {
  let fields: unknown;
  try {
    fields = JSON.parse(q);
  } catch {
    return q || "—";
  }
  if (!fields || typeof fields !== "object" || Array.isArray(fields)) return q || "—";
  const line = Object.entries(fields as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(", ");
  return line || "—";
}
