// The static pricing content (spec, product-and-account section 9; DESIGN.md section 5). The server holds the
// billing truth; these figures are what the public pages promise and must match it.

import { groupedNumberFormat } from "@/lib/number-format";

export interface Plan {
  id: "free" | "basic" | "professional" | "enterprise";
  name: string;
  /** Monthly price in whole dollars. */
  priceUsd: number;
  credits: number;
  /** Requests per minute per API key; null means no plan cap. */
  rateLimitPerMinute: number | null;
  /** Properties per batch upload. */
  batchSize: number;
  overage: boolean;
  support: string;
  sla: boolean;
  popular?: boolean;
  tagline: string;
}

export const OVERAGE_PER_CREDIT_USD = 0.03;
export const FREE_CREDITS = 100;
export const CUSTOM_PRICING_ABOVE_CREDITS = 50_000;
export const BATCH_FILE_MAX_MB = 50;

export const FREE_PLAN: Plan = {
  id: "free",
  name: "Free",
  priceUsd: 0,
  credits: FREE_CREDITS,
  rateLimitPerMinute: 60,
  batchSize: 100,
  overage: false,
  support: "Help Center & email",
  sla: false,
  tagline: "Try every feature with no card.",
};

export const PAID_PLANS: readonly Plan[] = [
  {
    id: "basic",
    name: "Basic",
    priceUsd: 30,
    credits: 1_000,
    rateLimitPerMinute: 60,
    batchSize: 1_000,
    overage: true,
    support: "Email support",
    sla: true,
    tagline: "For individual agents and small projects.",
  },
  {
    id: "professional",
    name: "Professional",
    priceUsd: 125,
    credits: 5_000,
    rateLimitPerMinute: 120,
    batchSize: 10_000,
    overage: true,
    support: "Priority email support",
    sla: true,
    popular: true,
    tagline: "For brokerages, investors and growing apps.",
  },
  {
    id: "enterprise",
    name: "Enterprise",
    priceUsd: 200,
    credits: 10_000,
    rateLimitPerMinute: null,
    batchSize: 50_000,
    overage: true,
    support: "Priority email & a dedicated account manager",
    sla: true,
    tagline: "For lenders, platforms and portfolio teams.",
  },
];

export const ALL_PLANS: readonly Plan[] = [FREE_PLAN, ...PAID_PLANS];

// Not Intl.NumberFormat itself: a first Intl formatter delayed the pricing page's paint (lib/number-format.ts).
const number = groupedNumberFormat();

export function formatNumber(n: number): string {
  return number.format(n);
}

export function formatRateLimit(plan: Plan): string {
  return plan.rateLimitPerMinute === null ? "Unlimited" : `${plan.rateLimitPerMinute} / min`;
}

/** What one included credit costs on the plan, to three decimals ("$0.025"). */
export function pricePerCredit(plan: Plan): string {
  return `$${(plan.priceUsd / plan.credits).toFixed(3)}`;
}

/** A plan by its id; an unknown or missing id is the Free plan (as on the server: a rule never loosens on bad data). */
export function planById(id: string | null | undefined): Plan {
  return ALL_PLANS.find((p) => p.id === id) ?? FREE_PLAN;
}

/** The plan after this one in the table (the upgrade to offer), or null for the top plan. */
export function nextPlan(plan: Plan): Plan | null {
  const i = ALL_PLANS.findIndex((p) => p.id === plan.id);
  return i >= 0 && i < ALL_PLANS.length - 1 ? ALL_PLANS[i + 1]! : null;
}

/**
 * The one sentence every screen uses for the batch size: the user's own plan and limit, and the next plan's, e.g.
 * "Your Free plan: up to 100 properties per upload (Basic: 1,000)"; the top plan has no next ("Your Enterprise
 * plan: up to 50,000 properties per upload"). `statedLimit` is the limit the server stated for the user's plan,
 * when it has, and wins over the table's figure.
 */
export function batchLimitLine(planId: string | null | undefined, statedLimit?: number): string {
  const plan = planById(planId);
  const next = nextPlan(plan);
  const own = `Your ${plan.name} plan: up to ${formatNumber(statedLimit ?? plan.batchSize)} properties per upload`;
  return next ? `${own} (${next.name}: ${formatNumber(next.batchSize)})` : own;
}
