import { useState } from "react";
import { RefreshCw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import type { BillingConfig, PlanChange, PlanInfo } from "@/lib/types";
import {
  CHANGE_FAILED,
  PAYMENT_FALLBACK,
  SUBSCRIBE_FAILED,
  failureText,
  formatCents,
  formatCredits,
  formatDate,
  formatPlanPrice,
  type PaidPlanId,
} from "../billing-helpers";
import { useProration } from "../api/billing-api";
import { needsCard, requestPlanChange, runSubscribe, type PaymentCollector } from "../api/payment-flow";
import { PaymentForm } from "./payment-form";

export type CheckoutKind = "subscribe" | "upgrade" | "downgrade";

export interface CheckoutTarget {
  plan: PlanInfo;
  kind: CheckoutKind;
}

interface CheckoutDialogProps {
  /** The plan being bought or changed to; null keeps the dialog closed. */
  target: CheckoutTarget | null;
  config: Pick<BillingConfig, "mode" | "publishableKey">;
  /** The plan the account is on now, if it pays for one. */
  currentPlan: PlanInfo | null;
  onClose: () => void;
  /** Called when the server has been asked to change anything, so the screen reads it all again. */
  onChanged: () => void;
}

/**
 * Buying a plan. A new subscription asks for the card at once. An upgrade first shows its prorated charge, then
 * asks the server for the change and, when the charge needs the card, collects it and confirms the payment. A
 * downgrade says when it takes effect and needs no card.
 */
export function CheckoutDialog({ target, config, currentPlan, onClose, onChanged }: CheckoutDialogProps) {
  const [busy, setBusy] = useState(false);

  const onOpenChange = (open: boolean) => {
    if (!open && !busy) onClose();
  };

  return (
    <Dialog open={target !== null} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-md">
        {target ? (
          // A fresh flow for every plan chosen: no step or answer of another plan is kept.
          <CheckoutFlow
            key={`${target.kind}-${target.plan.id}`}
            target={target}
            config={config}
            currentPlan={currentPlan}
            onClose={onClose}
            onChanged={onChanged}
            onBusyChange={setBusy}
          />
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

interface CheckoutFlowProps extends Omit<CheckoutDialogProps, "target"> {
  target: CheckoutTarget;
  onBusyChange: (busy: boolean) => void;
}

function CheckoutFlow({ target, config, currentPlan, onClose, onChanged, onBusyChange }: CheckoutFlowProps) {
  const { plan, kind } = target;
  const planId = plan.id as PaidPlanId;
  // An upgrade whose charge the server wants paid in the browser: its payment to confirm.
  const [payment, setPayment] = useState<(PlanChange & { clientSecret: string }) | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const proration = useProration(kind === "subscribe" ? null : planId);
  const price = `${formatPlanPrice(plan.priceCents)}/month`;

  const setBusy = (busy: boolean) => {
    setSubmitting(busy);
    onBusyChange(busy);
  };

  const fail = (title: string, err: unknown) => {
    toast({ variant: "destructive", title, description: failureText(err, PAYMENT_FALLBACK) });
  };

  const subscribe = async (card: PaymentCollector) => {
    try {
      await runSubscribe(planId, card);
    } catch (err) {
      fail(SUBSCRIBE_FAILED, err);
      // A refused first payment still leaves a record (and maybe an incomplete subscription) on the server.
      onChanged();
      throw err;
    }
    toast({ title: "Subscription Created", description: `You are now on the ${plan.name} plan.` });
    onChanged();
    onClose();
  };

  const planUpdated = (change: PlanChange) => {
    const description =
      change.change === "downgrade"
        ? `Your plan switches to ${plan.name} on ${formatDate(change.effectiveAt)}.`
        : `You are now on the ${plan.name} plan.`;
    toast({ title: "Plan Updated", description });
    onChanged();
    onClose();
  };

  const confirmChange = async () => {
    setBusy(true);
    try {
      const change = await requestPlanChange(planId);
      if (needsCard(change)) {
        setPayment(change);
        return;
      }
      planUpdated(change);
    } catch (err) {
      fail(CHANGE_FAILED, err);
      onChanged();
    } finally {
      setBusy(false);
    }
  };

  const payUpgrade = async (card: PaymentCollector) => {
    if (!payment) return;
    try {
      await card.confirmWithCard(payment.clientSecret);
    } catch (err) {
      fail(CHANGE_FAILED, err);
      onChanged();
      throw err;
    }
    planUpdated(payment);
  };

  if (kind === "subscribe") {
    return (
      <>
        <DialogHeader>
          <DialogTitle>Subscribe to {plan.name}</DialogTitle>
          <DialogDescription>
            {`${price}, billed monthly, with ${formatCredits(plan.credits)} each month. Unused credits roll over for one month. Cancel any time; the plan then runs to the end of the period.`}
          </DialogDescription>
        </DialogHeader>
        <PaymentForm
          config={config}
          submitLabel={`Subscribe for ${price}`}
          onPay={subscribe}
          onCancel={onClose}
          onBusyChange={onBusyChange}
        />
      </>
    );
  }

  if (payment) {
    return (
      <>
        <DialogHeader>
          <DialogTitle>Pay for the upgrade to {plan.name}</DialogTitle>
          <DialogDescription>
            {`Enter the card to pay the prorated ${formatCents(payment.chargeCents)} now. The upgrade and its ${formatCredits(payment.credits)} apply once the payment goes through.`}
          </DialogDescription>
        </DialogHeader>
        <PaymentForm
          config={config}
          submitLabel={`Pay ${formatCents(payment.chargeCents)}`}
          onPay={payUpgrade}
          onCancel={onClose}
          onBusyChange={onBusyChange}
        />
      </>
    );
  }

  const upgrade = kind === "upgrade";
  const terms = proration.data;
  return (
    <>
      <DialogHeader>
        <DialogTitle>{upgrade ? `Upgrade to ${plan.name}` : `Switch to ${plan.name}`}</DialogTitle>
        <DialogDescription>{`${plan.name}: ${price} with ${formatCredits(plan.credits)} each month.`}</DialogDescription>
      </DialogHeader>
      <div className="space-y-3 text-sm" data-testid="plan-change-terms" aria-live="polite">
        {proration.isPending ? (
          <div className="flex justify-center py-4">
            <Spinner label="Loading the charge" />
          </div>
        ) : proration.isError ? (
          <div role="alert" className="space-y-2 rounded-md border border-destructive/40 p-3">
            <p>{`The terms of this change could not be loaded. ${failureText(proration.error, "")}`.trim()}</p>
            <Button type="button" size="sm" variant="outline" onClick={() => void proration.refetch()} disabled={proration.isFetching}>
              <RefreshCw aria-hidden="true" />
              Retry
            </Button>
          </div>
        ) : terms && upgrade ? (
          <>
            <p className="rounded-md bg-muted/60 p-3">
              You pay <strong data-testid="proration-charge">{formatCents(terms.chargeCents)}</strong> now, prorated for
              the rest of this billing period, and get <strong>{formatCredits(terms.credits)}</strong> at once.
            </p>
            <p className="text-muted-foreground">
              {`The upgrade takes effect immediately. From your next billing date the plan costs ${price}.`}
            </p>
          </>
        ) : terms ? (
          <>
            <p className="rounded-md bg-muted/60 p-3">
              {`The switch takes effect at the end of the current period, on `}
              <strong>{formatDate(terms.effectiveAt)}</strong>. Nothing is charged now.
            </p>
            <p className="text-muted-foreground">
              {`You keep ${currentPlan?.name ?? "your current plan"} and its credits until then; from that date the plan costs ${price}.`}
            </p>
          </>
        ) : null}
      </div>
      <DialogFooter>
        <Button type="button" variant="outline" disabled={submitting} onClick={onClose}>
          Cancel
        </Button>
        <Button
          type="button"
          disabled={submitting || (upgrade && !terms)}
          onClick={() => void confirmChange()}
        >
          {submitting ? "Processing..." : upgrade ? "Confirm Upgrade" : "Confirm Switch"}
        </Button>
      </DialogFooter>
    </>
  );
}
