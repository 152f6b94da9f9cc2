import { useCallback, useEffect, useRef } from "react";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiJson, apiRequest } from "@/lib/api";
import type { components } from "@/lib/api-types";
import { useAuth } from "@/lib/auth";
import type {
  BillingConfig,
  ChangePlanRequest,
  CreditHistory,
  MeteredUsage,
  OverageLimit,
  PaymentHistory,
  PaymentMethod,
  PaymentRecord,
  PlanChange,
  SubscribeRequest,
  SubscribeResponse,
  Subscription,
  TestCardRequest,
  TestConfirmRequest,
} from "@/lib/types";
import { HISTORY_PAGE_SIZE, PLAN_CHANGE_REFRESH_MS, receiptFileName, type PaidPlanId } from "../billing-helpers";

export type TestConfirmResult = components["schemas"]["TestConfirmResult"];
type UpdatePaymentMethodRequest = components["schemas"]["UpdatePaymentMethodRequest"];

// The Billing calls (working-screens spec, section 7; api/openapi.yaml, tag Billing):
// GET /api/billing/config: the payment mode (test, stripe, disabled), Stripe's publishable key, the plan table and
//   the low-balance threshold;
// GET /api/billing/subscription, /metered-usage: the plan, its period and the overage so far;
// GET /api/billing/credits/history and /payments: the ledger and the payments, newest first, 10 at a time, the next
//   page by `before=pagination.nextBefore`; GET /api/billing/payments/{id}/receipt: an HTML receipt (attachment),
//   only for money that moved; POST /api/billing/payments/{id}/cancel withdraws an open payment;
// GET /api/billing/proration?planType=: what a change of plan would cost now (and the card on file that pays it),
//   or when it takes effect;
// POST /api/billing/subscribe {planType, paymentMethodId} answers the first payment's clientSecret;
// POST /api/billing/change-plan {planType} answers the upgrade's paymentStatus: paid by the card on file, or what
//   the browser must do (authenticate, or take another card) with the payment's clientSecret;
// POST /api/billing/payment-method {paymentMethodId} replaces the card on file;
// POST /api/billing/cancel cancels at period end and answers the subscription;
// POST /api/billing/test-mode/payment-methods and /test-mode/confirm: the built-in test-mode card form's calls;
// GET and PUT /api/user/overage-limit: dollars, or null for no limit.
// Reads without parameters go through the default query function, which fetches the query key.

export const CONFIG_PATH = "/api/billing/config";
export const SUBSCRIPTION_PATH = "/api/billing/subscription";
export const METERED_USAGE_PATH = "/api/billing/metered-usage";
export const CREDIT_HISTORY_PATH = "/api/billing/credits/history";
export const PAYMENTS_PATH = "/api/billing/payments";
export const PRORATION_PATH = "/api/billing/proration";
export const SUBSCRIBE_PATH = "/api/billing/subscribe";
export const CHANGE_PLAN_PATH = "/api/billing/change-plan";
export const CANCEL_PATH = "/api/billing/cancel";
export const PAYMENT_METHOD_PATH = "/api/billing/payment-method";
export const TEST_PAYMENT_METHODS_PATH = "/api/billing/test-mode/payment-methods";
export const TEST_CONFIRM_PATH = "/api/billing/test-mode/confirm";
export const OVERAGE_LIMIT_PATH = "/api/user/overage-limit";

export const configQueryKey = [CONFIG_PATH] as const;
export const subscriptionQueryKey = [SUBSCRIPTION_PATH] as const;
export const meteredUsageQueryKey = [METERED_USAGE_PATH] as const;
export const overageLimitQueryKey = [OVERAGE_LIMIT_PATH] as const;
export const creditHistoryQueryKey = [CREDIT_HISTORY_PATH] as const;
export const paymentsQueryKey = [PAYMENTS_PATH] as const;

export function useBillingConfig() {
  return useQuery<BillingConfig>({ queryKey: configQueryKey });
}

export function useSubscription() {
  return useQuery<Subscription>({ queryKey: subscriptionQueryKey });
}

export function useMeteredUsage() {
  return useQuery<MeteredUsage>({ queryKey: meteredUsageQueryKey });
}

export function useOverageLimit() {
  return useQuery<OverageLimit>({ queryKey: overageLimitQueryKey });
}

/** One page of a cursor-paged list: `limit` entries, older than the entry id `before` when given. */
export function pageUrl(path: string, before: number | null, limit = HISTORY_PAGE_SIZE): string {
  const params = new URLSearchParams({ limit: String(limit) });
  if (before !== null) params.set("before", String(before));
  return `${path}?${params.toString()}`;
}

/** The credit ledger, 10 entries at a time; fetchNextPage reads the next older 10 ('Show more'). */
export function useCreditHistory() {
  return useInfiniteQuery({
    queryKey: creditHistoryQueryKey,
    queryFn: ({ pageParam }) => apiJson<CreditHistory>("GET", pageUrl(CREDIT_HISTORY_PATH, pageParam)),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.nextBefore : null) ?? undefined,
  });
}

/** Payments and invoices, 10 at a time. */
export function usePayments() {
  return useInfiniteQuery({
    queryKey: paymentsQueryKey,
    queryFn: ({ pageParam }) => apiJson<PaymentHistory>("GET", pageUrl(PAYMENTS_PATH, pageParam)),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.nextBefore : null) ?? undefined,
  });
}

export function prorationUrl(planType: PaidPlanId): string {
  return `${PRORATION_PATH}?planType=${encodeURIComponent(planType)}`;
}

/** What changing to a plan would cost now (an upgrade) or when it would take effect (a downgrade). */
export function useProration(planType: PaidPlanId | null) {
  return useQuery<PlanChange>({
    queryKey: [planType ? prorationUrl(planType) : PRORATION_PATH],
    enabled: planType !== null,
    // The charge shrinks as the period runs out: never show an old figure.
    staleTime: 0,
    gcTime: 0,
    refetchOnMount: "always",
  });
}

export function createTestPaymentMethod(body: TestCardRequest): Promise<PaymentMethod> {
  return apiJson<PaymentMethod>("POST", TEST_PAYMENT_METHODS_PATH, body);
}

/** Confirms a test-mode payment; a card that needs the bank's authentication answers requires_action. */
export function confirmTestPayment(body: TestConfirmRequest): Promise<TestConfirmResult> {
  return apiJson<TestConfirmResult>("POST", TEST_CONFIRM_PATH, body);
}

export function subscribe(body: SubscribeRequest): Promise<SubscribeResponse> {
  return apiJson<SubscribeResponse>("POST", SUBSCRIBE_PATH, body);
}

export function changePlan(body: ChangePlanRequest): Promise<PlanChange> {
  return apiJson<PlanChange>("POST", CHANGE_PLAN_PATH, body);
}

export function paymentCancelUrl(paymentId: number): string {
  return `${PAYMENTS_PATH}/${paymentId}/cancel`;
}

/**
 * Withdraws an open payment the customer walked away from (closed the dialog before it was paid), so no 'Pending'
 * payment is left behind, then reads the payments again. Its failure is ignored: a 409 means the payment closed on
 * its own meanwhile (paid, expired), and the server expires a forgotten one within 24 hours anyway.
 */
export function useWithdrawPayment() {
  const queryClient = useQueryClient();
  return useCallback(
    (paymentId: number) => {
      void apiRequest("POST", paymentCancelUrl(paymentId))
        .catch(() => undefined)
        .finally(() => void queryClient.invalidateQueries({ queryKey: paymentsQueryKey }));
    },
    [queryClient],
  );
}

/** Replaces the card on file with the payment method the card form made; a refused card is a 402. */
export function useUpdatePaymentMethod() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (paymentMethodId: string) =>
      apiJson<Subscription>("POST", PAYMENT_METHOD_PATH, { paymentMethodId } satisfies UpdatePaymentMethodRequest),
    onSuccess: (sub) => {
      queryClient.setQueryData<Subscription>(subscriptionQueryKey, sub);
      void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey });
    },
  });
}

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiJson<Subscription>("POST", CANCEL_PATH),
    onSuccess: (sub) => {
      queryClient.setQueryData<Subscription>(subscriptionQueryKey, sub);
      void queryClient.invalidateQueries({ queryKey: subscriptionQueryKey });
      // The next invoice no longer carries a plan price.
      void queryClient.invalidateQueries({ queryKey: meteredUsageQueryKey });
    },
  });
}

export function useSetOverageLimit() {
  const queryClient = useQueryClient();
  const { refreshUser } = useAuth();
  return useMutation({
    mutationFn: (limit: number | null) => apiJson<OverageLimit>("PUT", OVERAGE_LIMIT_PATH, { limit }),
    onSuccess: (saved) => {
      queryClient.setQueryData<OverageLimit>(overageLimitQueryKey, saved);
      void queryClient.invalidateQueries({ queryKey: overageLimitQueryKey });
      void queryClient.invalidateQueries({ queryKey: meteredUsageQueryKey });
      // The profile's balance carries what is left of the limit (and whether it is reached): the header and the
      // low-balance banner follow it.
      void refreshUser();
    },
  });
}

/**
 * After subscribing or changing plan: read the subscription, usage, ledger, payments and the profile again at once,
 * and once more after 2 seconds (spec, section 4), by when the payment's credits have landed on the server.
 */
export function useRefreshAfterPlanChange() {
  const queryClient = useQueryClient();
  const { refreshUser } = useAuth();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );

  return useCallback(() => {
    const refresh = () => {
      for (const queryKey of [subscriptionQueryKey, meteredUsageQueryKey, creditHistoryQueryKey, paymentsQueryKey]) {
        void queryClient.invalidateQueries({ queryKey });
      }
      void refreshUser();
    };
    refresh();
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      refresh();
    }, PLAN_CHANGE_REFRESH_MS);
  }, [queryClient, refreshUser]);
}

export interface DownloadedReceipt {
  blob: Blob;
  fileName: string;
}

/** A payment's receipt, read with the session like every other call, named by the server when it says. */
export async function fetchReceipt(payment: Pick<PaymentRecord, "id"> & { receiptUrl: string }): Promise<DownloadedReceipt> {
  const res = await apiRequest("GET", payment.receiptUrl);
  const blob = await res.blob();
  return { blob, fileName: receiptFileName(payment.id, res.headers.get("Content-Disposition")) };
}
