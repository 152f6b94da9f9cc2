// Pure rules of the API Keys screen: the key form's validation (working-screens spec, section 5), the plan caps on
// rate limits (DESIGN.md, section 5) and formatting. No React and no I/O here, so each rule is tested on its own.
import { z } from "zod";
import { errorMessage } from "@/lib/api";
import { requestsAMinute } from "@/lib/format";
import type { ApiKey, User } from "@/lib/types";

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 1000;
/** A new key's limit on a plan without a cap (Enterprise); see defaultRateLimit. */
export const DEFAULT_RATE_LIMIT = 100;
export const KEY_NAME_MAX = 100;
/** The most live keys an account may have (apikey.MaxPerAccount on the server). */
export const MAX_KEYS_PER_ACCOUNT = 20;

export const NAME_REQUIRED = "Please enter a key name";
export const NAME_TOO_LONG = `Key name must be at most ${KEY_NAME_MAX} characters`;
// The history's key filter names dashboard calls "dashboard" (internal/apikey MsgNameReserved).
export const NAME_RESERVED = '"Dashboard" is reserved for calls made in the dashboard; please choose another name';
export const RATE_LIMIT_INVALID = `Rate limit must be a whole number from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}`;

// The spec's failure texts (section 8).
export const FETCH_FAILED = "Failed to fetch API keys";
export const CREATE_FAILED = "Failed to create API key";
export const DELETE_FAILED = "Failed to delete API key";

/**
 * The Generate New Key form. The rate limit is kept as the text typed (a number input can hold "1.5" or nothing)
 * and becomes an integer only when it is a whole number in range, so the request always carries an integer.
 */
export const generateKeySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, NAME_REQUIRED)
    .max(KEY_NAME_MAX, NAME_TOO_LONG)
    .refine((n) => n.toLowerCase() !== "dashboard", NAME_RESERVED),
  rateLimit: z
    .string()
    .trim()
    .regex(/^\d+$/, RATE_LIMIT_INVALID)
    .transform((v) => Number.parseInt(v, 10))
    .refine((n) => n >= RATE_LIMIT_MIN && n <= RATE_LIMIT_MAX, RATE_LIMIT_INVALID),
});
export type GenerateKeyInput = z.input<typeof generateKeySchema>;
export type GenerateKeyValues = z.output<typeof generateKeySchema>;

export type Plan = User["plan"];

/** Requests a minute a plan allows any one key, whatever the key's own limit; null means no cap. */
export const PLAN_RATE_CAPS: Record<Plan, number | null> = {
  free: 60,
  basic: 60,
  professional: 120,
  enterprise: null,
};

export const PLAN_LABELS: Record<Plan, string> = {
  free: "Free",
  basic: "Basic",
  professional: "Professional",
  enterprise: "Enterprise",
};

/**
 * The limit the Generate New Key form starts at: the plan's cap, the limit a key really gets (apikey.DefaultFor on the
 * server, which applies it too when the field is not sent), or DEFAULT_RATE_LIMIT on a plan without a cap.
 */
export function defaultRateLimit(plan: Plan): number {
  return PLAN_RATE_CAPS[plan] ?? DEFAULT_RATE_LIMIT;
}

/** The plans in order, cheapest first (the order of PLAN_LABELS). */
export const PLANS = Object.keys(PLAN_LABELS) as Plan[];

/**
 * Every plan's cap in a few words, from PLAN_RATE_CAPS: plans with the same cap side by side are named together,
 * "Free and Basic 60, Professional 120, Enterprise uncapped".
 */
export function planCapsSummary(caps: Record<Plan, number | null> = PLAN_RATE_CAPS): string {
  const groups: { plans: string[]; cap: number | null }[] = [];
  for (const plan of PLANS) {
    const last = groups[groups.length - 1];
    if (last && last.cap === caps[plan]) last.plans.push(PLAN_LABELS[plan]);
    else groups.push({ plans: [PLAN_LABELS[plan]], cap: caps[plan] });
  }
  return groups
    .map((g) => {
      const names = g.plans.length > 1 ? `${g.plans.slice(0, -1).join(", ")} and ${g.plans[g.plans.length - 1]}` : g.plans[0];
      return `${names} ${g.cap === null ? "uncapped" : g.cap}`;
    })
    .join(", ");
}

/**
 * What the API documentation says of one plan's rate limits, from the plan table: the cap every key is held to and
 * the limit a new key starts at (defaultRateLimit, the limit the server gives a key created without one).
 */
export function planRateLimitLine(plan: Plan, caps: Record<Plan, number | null> = PLAN_RATE_CAPS): string {
  const cap = caps[plan];
  const start = cap ?? DEFAULT_RATE_LIMIT;
  return cap === null
    ? `${PLAN_LABELS[plan]}: no cap; a new key starts at ${requestsAMinute(start)} and may be set up to ${RATE_LIMIT_MAX}.`
    : `${PLAN_LABELS[plan]}: at most ${requestsAMinute(cap)} per key (and for all of an account's keys together); a new key starts at ${start}.`;
}

/** The sentence under the rate limit field: what the current plan does to the limit being chosen. */
export function planCapNote(plan: Plan): string {
  const cap = PLAN_RATE_CAPS[plan];
  const label = PLAN_LABELS[plan];
  if (cap === null) return `Your ${label} plan has no cap: each key gets the limit you set here.`;
  return `Your ${label} plan caps every key at ${requestsAMinute(cap)}, so a higher limit applies only after an upgrade (${planCapsSummary()}).`;
}

/** "100/min", or "100/min (60/min on your plan)" when the plan holds the key below its own limit. */
export function formatRateLimit(key: Pick<ApiKey, "rateLimit" | "effectiveRateLimit">): string {
  const own = `${key.rateLimit}/min`;
  if (key.effectiveRateLimit < key.rateLimit) return `${own} (${key.effectiveRateLimit}/min on your plan)`;
  return own;
}

// Dates are shown in UTC, as every time in the product is kept (DESIGN.md, section 4), so a day never shifts with the
// viewer's time zone.
const dateFormat = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** A timestamp as "Jan 21, 2026"; null (a key never used) as "Never". */
export function formatKeyDate(value: string | null): string {
  if (value === null) return "Never";
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : dateFormat.format(ms);
}

/**
 * The second line of a failure toast: the server's own sentence when it sent one, the connection problem when the
 * server could not be reached, else nothing (the toast's title already says what failed).
 */
export function failureDetail(err: unknown): string | undefined {
  return errorMessage(err, "") || undefined;
}
