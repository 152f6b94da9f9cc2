import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { PageHeader } from "@/app/shell/page-header";
import { Card, CardContent } from "@/components/ui/card";
import { errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import type { PlanInfo } from "@/lib/types";
import {
  DEFAULT_LOW_BALANCE,
  balanceAdvice,
  hasPaidPlan,
  isPaidPlanId,
  paidPlans,
  planAction,
  planName,
  type PlanAction,
} from "./billing-helpers";
import {
  useBillingConfig,
  useMeteredUsage,
  useOverageLimit,
  useRefreshAfterPlanChange,
  useSubscription,
} from "./api/billing-api";
import { CheckoutDialog, type CheckoutTarget } from "./components/checkout-dialog";
import { CreditHistoryCard } from "./components/credit-history-card";
import { LoadError } from "./components/load-error";
import { LowBalanceWarning } from "./components/low-balance-warning";
import { MeteredUsageCard } from "./components/metered-usage-card";
import { OverageLimitDialog } from "./components/overage-limit-dialog";
import { PaymentHistoryCard } from "./components/payment-history-card";
import { PlanSelection } from "./components/plan-selection";
import { SubscriptionCard } from "./components/subscription-card";
import { SummaryCards } from "./components/summary-cards";

// The Billing & Credits screen (working-screens spec, section 2): the balance, usage and plan cards, the
// low-balance warning, subscription details, metered usage and overage with the custom usage limit, plan selection
// with the payment form, credit history, and payments with their receipts. /billing?plan=<id> (from Pricing)
// opens that plan's payment or confirmation at once.

export function BillingPage() {
  const { user } = useAuth();
  const config = useBillingConfig();
  const subscription = useSubscription();
  const usage = useMeteredUsage();
  const limit = useOverageLimit();
  const refreshAfterChange = useRefreshAfterPlanChange();
  const [checkout, setCheckout] = useState<CheckoutTarget | null>(null);
  const [limitOpen, setLimitOpen] = useState(false);
  // The dialogs give focus back to the button that opened them (DialogContent); the payment dialog opened by a deep
  // link, which no button opened, gives it to the plans' heading.
  const plansHeading = useRef<HTMLHeadingElement>(null);
  const [params, setParams] = useSearchParams();

  const plans = config.data?.plans ?? [];
  const sub = subscription.data;
  const paid = hasPaidPlan(sub);
  const freePlan = plans.find((p) => p.id === "free") ?? null;
  // The plan the account has now: the subscribed one while it is paid for, else Free.
  const currentPlan = sub && config.data ? (paid ? (plans.find((p) => p.id === sub.planType) ?? null) : freePlan) : null;
  const paidCurrent = paid ? currentPlan : null;
  // One balance for the whole screen, the profile's: the header shows the same one, so they always agree.
  const balance = user?.creditBalance ?? null;
  const advice = balance
    ? balanceAdvice(balance, {
        planName: planName(balance.planType, plans),
        threshold: config.data?.lowBalance ?? DEFAULT_LOW_BALANCE,
        periodEnd: sub?.currentPeriodEnd ?? null,
      })
    : null;
  const mode = config.data?.mode ?? "disabled";
  const pending = sub?.pendingPlanType ? { planType: sub.pendingPlanType, at: sub.currentPeriodEnd } : null;

  const choosePlan = () => {
    plansHeading.current?.scrollIntoView({ behavior: "smooth", block: "start" });
    plansHeading.current?.focus({ preventScroll: true });
  };

  const select = (plan: PlanInfo, action: PlanAction) => {
    if (action.kind === "current") return;
    setCheckout({ plan, kind: action.kind });
  };

  // The deep link from Pricing: once the plans and the subscription are known, open the chosen plan's flow (the
  // card form for a new subscription), then drop the parameter so a reload does not open it again.
  const wanted = params.get("plan");
  useEffect(() => {
    if (wanted === null || !config.data || !sub) return;
    const plan = isPaidPlanId(wanted) ? paidPlans(config.data.plans).find((p) => p.id === wanted) : undefined;
    if (plan) {
      const action = planAction(plan, paidCurrent, paid);
      const needsCard = action.kind === "subscribe" || action.kind === "upgrade";
      const blocked = action.kind === "current" || sub.pendingPlanType === plan.id || (config.data.mode === "disabled" && needsCard);
      if (blocked) choosePlan();
      else setCheckout({ plan, kind: action.kind as CheckoutTarget["kind"] });
    }
    const next = new URLSearchParams(params);
    next.delete("plan");
    setParams(next, { replace: true });
  }, [wanted, config.data, sub, paidCurrent, paid, params, setParams]);

  const coreError = config.isError ? config.error : subscription.isError ? subscription.error : null;
  const retryCore = () => {
    if (config.isError) void config.refetch();
    if (subscription.isError) void subscription.refetch();
  };

  return (
    <div className="max-w-6xl space-y-6">
      <PageHeader title="Billing & Credits" subtitle="Your plan, credit balance and payments" />

      {advice && balance ? <LowBalanceWarning advice={advice} balance={balance} onChoosePlan={choosePlan} /> : null}

      {coreError ? (
        <Card data-testid="billing-error">
          <CardContent className="p-2">
            <LoadError
              message={errorMessage(coreError, "Failed to load your plan and billing details.")}
              onRetry={retryCore}
              busy={config.isFetching || subscription.isFetching}
            />
          </CardContent>
        </Card>
      ) : null}

      <SummaryCards
        balance={balance}
        usage={usage.data}
        usageFailed={usage.isError}
        subscription={sub}
        plan={currentPlan}
        planFailed={coreError !== null}
      />

      <div className="grid gap-6 lg:grid-cols-2">
        {sub ? (
          <SubscriptionCard subscription={sub} plans={plans} config={config.data} onChoosePlan={choosePlan} />
        ) : (
          <Card>
            <CardContent className="p-6 text-sm text-muted-foreground">{coreError ? "Subscription details are unavailable." : "Loading your subscription..."}</CardContent>
          </Card>
        )}
        {usage.isError ? (
          <Card data-testid="metered-usage-card">
            <CardContent className="p-2">
              <LoadError
                message={errorMessage(usage.error, "Failed to load metered usage.")}
                onRetry={() => void usage.refetch()}
                busy={usage.isFetching}
              />
            </CardContent>
          </Card>
        ) : (
          <MeteredUsageCard
            usage={usage.data}
            plans={plans}
            overageLimit={limit.data?.overageLimit}
            limitFailed={limit.isError}
            onEditLimit={() => setLimitOpen(true)}
          />
        )}
      </div>

      {config.data && sub ? (
        <PlanSelection
          ref={plansHeading}
          plans={paidPlans(plans)}
          current={paidCurrent}
          paid={paid}
          mode={mode}
          pending={pending}
          onSelect={select}
        />
      ) : null}

      <CreditHistoryCard />
      <PaymentHistoryCard plans={plans} />

      {config.data ? (
        <CheckoutDialog
          target={checkout}
          config={config.data}
          currentPlan={paidCurrent}
          onClose={() => setCheckout(null)}
          onChanged={refreshAfterChange}
          returnFocusTo={plansHeading}
        />
      ) : null}
      <OverageLimitDialog
        open={limitOpen}
        onOpenChange={setLimitOpen}
        current={limit.data?.overageLimit ?? null}
        planPrice={paidCurrent ? paidCurrent.priceCents / 100 : null}
      />
    </div>
  );
}
