// Test data for the Billing tests (imported by tests only, never by the screen): the server's answers as
// api/openapi.yaml shapes them.
import type {
  BillingConfig,
  CreditHistory,
  CreditHistoryEntry,
  MeteredUsage,
  PaymentHistory,
  PaymentRecord,
  PlanChange,
  PlanInfo,
  Subscription,
} from "@/lib/types";
import { makeBalance } from "@/test/utils";

const MB = 1 << 20;

export const CARD_ON_FILE = { brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 };

export const PLANS: PlanInfo[] = [
  { id: "free", name: "Free", priceCents: 0, credits: 100, rateCap: 60, batchRows: 100, storageBytes: 10 * MB, overageCents: 0 },
  { id: "basic", name: "Basic", priceCents: 3000, credits: 1000, rateCap: 60, batchRows: 1000, storageBytes: 50 * MB, overageCents: 3 },
  {
    id: "professional",
    name: "Professional",
    priceCents: 12500,
    credits: 5000,
    rateCap: 120,
    batchRows: 10000,
    storageBytes: 250 * MB,
    overageCents: 3,
  },
  {
    id: "enterprise",
    name: "Enterprise",
    priceCents: 20000,
    credits: 10000,
    rateCap: 0,
    batchRows: 50000,
    storageBytes: 1024 * MB,
    overageCents: 3,
  },
];

export function makeConfig(overrides: Partial<BillingConfig> = {}): BillingConfig {
  return { mode: "test", publishableKey: "", plans: PLANS, lowBalance: 50, ...overrides };
}

export const PERIOD_START = "2026-02-01T00:00:00Z";
export const PERIOD_END = "2026-03-01T00:00:00Z";

export function makeSubscription(overrides: Partial<Subscription> = {}): Subscription {
  return {
    planType: "basic",
    status: "active",
    currentPeriodStart: PERIOD_START,
    currentPeriodEnd: PERIOD_END,
    cancelAtPeriodEnd: false,
    pendingPlanType: null,
    paymentMethod: CARD_ON_FILE,
    provider: "test",
    ...overrides,
  };
}

export const FREE_SUB = makeSubscription({ planType: "free", status: "none", paymentMethod: null, provider: "" });

export function makeUsage(overrides: Partial<MeteredUsage> = {}): MeteredUsage {
  return {
    hasSubscription: true,
    planType: "basic",
    creditsIncluded: 1000,
    overageCredits: 0,
    costPerCredit: 0.03,
    costPerCreditCents: 3,
    estimatedOverageCharge: 0,
    estimatedOverageChargeCents: 0,
    planPrice: 30,
    planPriceCents: 3000,
    upcomingCharge: 30,
    upcomingChargeCents: 3000,
    nextPlanType: "basic",
    nextPlanPriceCents: 3000,
    endsAt: null,
    creditsUsedThisPeriod: 0,
    carriedCredits: 0,
    balance: 1000,
    creditBalance: makeBalance({ planType: "basic", credits: 1000 }),
    overageLimit: null,
    periodStart: PERIOD_START,
    periodEnd: PERIOD_END,
    ...overrides,
  };
}

export const FREE_USAGE = makeUsage({
  hasSubscription: false,
  planType: "free",
  creditsIncluded: 100,
  costPerCredit: 0,
  costPerCreditCents: 0,
  planPrice: 0,
  planPriceCents: 0,
  upcomingCharge: 0,
  upcomingChargeCents: 0,
  nextPlanType: "free",
  nextPlanPriceCents: 0,
  balance: 100,
  creditBalance: makeBalance(),
});

export function makeEntry(id: number, overrides: Partial<CreditHistoryEntry> = {}): CreditHistoryEntry {
  return {
    id,
    description: `Property valuation #${id}`,
    createdAt: "2026-02-10T12:00:00Z",
    amount: -1,
    balance: 500 + id,
    kind: "usage",
    ...overrides,
  };
}

/** Entries with ids from `from` down to `to`, newest (highest id) first. */
export function entriesFrom(from: number, to: number): CreditHistoryEntry[] {
  const out: CreditHistoryEntry[] = [];
  for (let id = from; id >= to; id--) out.push(makeEntry(id));
  return out;
}

export function creditPage(data: CreditHistoryEntry[], nextBefore: number | null): CreditHistory {
  return { data, pagination: { limit: 10, hasMore: nextBefore !== null, nextBefore } };
}

export function makePayment(overrides: Partial<PaymentRecord> = {}): PaymentRecord {
  const id = overrides.id ?? 7;
  return {
    id,
    createdAt: "2026-02-01T00:00:05Z",
    kind: "subscription",
    planType: "basic",
    description: "Basic plan, Feb 1 to Mar 1, 2026",
    amountCents: 3000,
    amount: 30,
    status: "succeeded",
    open: false,
    expiresAt: null,
    failureMessage: "",
    receiptUrl: `/api/billing/payments/${id}/receipt`,
    ...overrides,
  };
}

export function paymentsPage(data: PaymentRecord[]): PaymentHistory {
  return { data, pagination: { limit: 10, hasMore: false, nextBefore: null } };
}

/** The proration preview of an upgrade to Professional, paid by the card on file; a change's answer overrides it. */
export function makePlanChange(overrides: Partial<PlanChange> = {}): PlanChange {
  return {
    planType: "professional",
    change: "upgrade",
    requiresPayment: true,
    clientSecret: null,
    paymentId: null,
    paymentStatus: "none",
    message: null,
    paymentMethod: CARD_ON_FILE,
    chargeCents: 6333,
    credits: 2666,
    effectiveAt: "2026-02-10T12:00:00Z",
    ...overrides,
  };
}
