import { useEffect, useRef, useState } from "react";
import { toast } from "@/components/ui/use-toast";
import type { BillingConfig, PlanChange, PlanInfo } from "@/lib/types";
import {
  CHANGE_FAILED,
  CardFieldError,
  PAYMENT_FALLBACK,
  PaymentProviderError,
  SUBSCRIBE_FAILED,
  failureText,
  formatDate,
  isCardDeclined,
  isStalePayment,
  type PaidPlanId,
} from "../billing-helpers";
import { changePlan, subscribe, useWithdrawPayment } from "../api/billing-api";
import {
  authenticateInStripe,
  authenticateTestPayment,
  openPaymentOf,
  type ConfirmResult,
  type OpenPayment,
  type PaymentCollector,
} from "../api/payment-flow";

export type CheckoutKind = "subscribe" | "upgrade" | "downgrade";

/**
 * Where a checkout stands. `terms`: a change of plan shows what it costs (or when it applies) before asking the
 * server. `card`: a card is needed, to subscribe or because the card on file was declined (`message` says why).
 * `authenticate`: the test mode's stand-in for the bank's 3-D Secure page (Stripe shows its own).
 */
export type CheckoutStep =
  | { name: "terms" }
  | { name: "card"; payment: OpenPayment | null; message: string | null }
  | { name: "authenticate"; payment: OpenPayment; message: string | null };

interface CheckoutOptions {
  kind: CheckoutKind;
  plan: PlanInfo;
  config: Pick<BillingConfig, "mode" | "publishableKey">;
  onClose: () => void;
  onChanged: () => void;
  /** Reports a payment under way, so the dialog cannot be closed in the middle of it. */
  onBusyChange: (busy: boolean) => void;
}

/**
 * The steps of buying or changing a plan and the calls behind them (api/openapi.yaml, tag Billing; DESIGN.md,
 * section 5: "a card on file pays upgrades without asking again unless the provider demands it"). A payment the
 * checkout opened and did not see paid is withdrawn when the checkout goes away (the dialog closed by Cancel,
 * Escape or the X, or another plan chosen), so no 'Pending' payment is left behind.
 */
export function useCheckout({ kind, plan, config, onClose, onChanged, onBusyChange }: CheckoutOptions) {
  const planType = plan.id as PaidPlanId;
  const first: CheckoutStep = kind === "subscribe" ? { name: "card", payment: null, message: null } : { name: "terms" };
  const [step, setStep] = useState<CheckoutStep>(first);
  const [busy, setBusy] = useState(false);
  // State updates land after the event: a ref stops a double click from sending a second request meanwhile.
  const busyRef = useRef(false);
  const openPaymentId = useRef<number | null>(null);
  const withdraw = useWithdrawPayment();

  useEffect(
    () => () => {
      if (openPaymentId.current !== null) withdraw(openPaymentId.current);
    },
    [withdraw],
  );

  const hold = (payment: OpenPayment) => {
    openPaymentId.current = payment.id;
    return payment;
  };

  const run = async (task: () => Promise<void>) => {
    if (busyRef.current) return;
    busyRef.current = true;
    setBusy(true);
    onBusyChange(true);
    try {
      await task();
    } finally {
      busyRef.current = false;
      setBusy(false);
      onBusyChange(false);
    }
  };

  const done = (title: string, description: string) => {
    openPaymentId.current = null;
    toast({ title, description });
    onChanged();
    onClose();
  };

  const paid = () =>
    kind === "subscribe"
      ? done("Subscription Created", `You are now on the ${plan.name} plan.`)
      : done("Plan Updated", `You are now on the ${plan.name} plan.`);

  const fail = (err: unknown) => {
    toast({
      variant: "destructive",
      title: kind === "subscribe" ? SUBSCRIBE_FAILED : CHANGE_FAILED,
      description: failureText(err, PAYMENT_FALLBACK),
    });
    // A refused payment still changed records on the server (the payment, perhaps an incomplete subscription).
    onChanged();
    // A stale payment is closed on the server and can no longer be paid: start over from the first step.
    if (isStalePayment(err)) {
      openPaymentId.current = null;
      setStep(first);
    }
  };

  const settle = (payment: OpenPayment, result: ConfirmResult) => {
    if (result.status === "succeeded") paid();
    else setStep({ name: "authenticate", payment, message: result.message });
  };

  const askForCard = (payment: OpenPayment, err: unknown) =>
    setStep({ name: "card", payment, message: failureText(err, PAYMENT_FALLBACK) });

  /** The server's answer to a change of plan: done, or what the provider asks of the customer. */
  const actOn = async (change: PlanChange) => {
    switch (change.paymentStatus) {
      case "none":
      case "succeeded":
        return change.change === "downgrade"
          ? done("Plan Updated", `Your plan switches to ${plan.name} on ${formatDate(change.effectiveAt)}.`)
          : paid();
      case "processing":
        return done(
          "Payment Processing",
          `Your payment for the ${plan.name} plan is being processed; the plan changes as soon as it goes through.`,
        );
      case "requires_action":
      case "requires_payment_method": {
        const payment = openPaymentOf(change);
        const providerSays = new PaymentProviderError(change.message || PAYMENT_FALLBACK);
        if (!payment) return fail(providerSays);
        hold(payment);
        if (change.paymentStatus === "requires_payment_method") return askForCard(payment, providerSays);
        if (config.mode !== "stripe") return setStep({ name: "authenticate", payment, message: change.message });
        try {
          await authenticateInStripe(config.publishableKey, payment.clientSecret);
          return paid();
        } catch (err) {
          fail(err);
          return askForCard(payment, err);
        }
      }
    }
  };

  const confirmChange = () =>
    run(async () => {
      let change: PlanChange;
      try {
        change = await changePlan({ planType });
      } catch (err) {
        return fail(err);
      }
      await actOn(change);
    });

  const authenticate = (answer: "complete" | "fail") =>
    run(async () => {
      if (step.name !== "authenticate") return;
      const { payment } = step;
      try {
        settle(payment, await authenticateTestPayment(payment.clientSecret, answer));
      } catch (err) {
        fail(err);
        // A failed authentication is a decline: another card may still pay.
        if (isCardDeclined(err)) askForCard(payment, err);
      }
    });

  /** The card form's payment; it rejects on failure so the form keeps the card typed and marks a field at fault. */
  const pay = async (card: PaymentCollector) => {
    try {
      if (kind === "subscribe") {
        const paymentMethodId = await card.createPaymentMethod();
        const answer = await subscribe({ planType, paymentMethodId });
        const payment = hold({ id: answer.paymentId, clientSecret: answer.clientSecret, amountCents: answer.amountCents });
        settle(payment, await card.confirmWithPaymentMethod(answer.clientSecret, paymentMethodId));
      } else if (step.name === "card" && step.payment) {
        settle(step.payment, await card.confirmWithCard(step.payment.clientSecret));
      }
    } catch (err) {
      fail(err);
      if (!(err instanceof CardFieldError) && !isStalePayment(err)) {
        setStep((s) => (s.name === "card" ? { ...s, message: failureText(err, PAYMENT_FALLBACK) } : s));
      }
      throw err;
    }
  };

  return { step, busy, confirmChange, authenticate, pay };
}
