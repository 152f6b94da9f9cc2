import { useState } from "react";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import type { FocusTarget } from "@/components/ui/focus";
import { formatCredits } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import type { BillingConfig, PlanInfo } from "@/lib/types";
import { BankAuthentication } from "./bank-authentication";
import { PaymentForm } from "./payment-form";
import { PlanChangeTerms } from "./plan-change-terms";
import { useCheckout, type CheckoutKind } from "./use-checkout";

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
  /** Where focus goes on close when no button opened the dialog (a deep link) or it is gone (see DialogContent). */
  returnFocusTo?: FocusTarget;
}

/**
 * Buying a plan. A new subscription asks for the card at once. A change of plan first shows its terms; an upgrade
 * is then paid by the card on file in one step, and only if the provider asks does the dialog go on to the bank's
 * authentication or a form for another card. A downgrade says when it takes effect and needs no card.
 */
export function CheckoutDialog({ target, config, currentPlan, onClose, onChanged, returnFocusTo }: CheckoutDialogProps) {
  const [busy, setBusy] = useState(false);

  const onOpenChange = (open: boolean) => {
    if (!open && !busy) onClose();
  };

  return (
    <Dialog open={target !== null} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-md" returnFocusTo={returnFocusTo}>
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

interface CheckoutFlowProps extends Omit<CheckoutDialogProps, "target" | "returnFocusTo"> {
  target: CheckoutTarget;
  onBusyChange: (busy: boolean) => void;
}

function CheckoutFlow({ target, config, currentPlan, onClose, onChanged, onBusyChange }: CheckoutFlowProps) {
  const { plan, kind } = target;
  const { step, busy, confirmChange, authenticate, pay } = useCheckout({ kind, plan, config, onClose, onChanged, onBusyChange });
  const price = `${formatMoney(plan.priceCents)}/month`;

  if (step.name === "terms") {
    return (
      <PlanChangeTerms
        plan={plan}
        upgrade={kind === "upgrade"}
        currentPlan={currentPlan}
        busy={busy}
        onConfirm={() => void confirmChange()}
        onCancel={onClose}
      />
    );
  }

  if (step.name === "authenticate") {
    return (
      <BankAuthentication
        amountCents={step.payment.amountCents}
        message={step.message}
        busy={busy}
        onAnswer={(answer) => void authenticate(answer)}
      />
    );
  }

  const subscribing = kind === "subscribe";
  const charge = formatMoney(step.payment?.amountCents ?? plan.priceCents);
  return (
    <>
      <DialogHeader>
        <DialogTitle>{subscribing ? `Subscribe to ${plan.name}` : `Pay for the upgrade to ${plan.name}`}</DialogTitle>
        <DialogDescription>
          {subscribing
            ? `${price}, billed monthly, with ${formatCredits(plan.credits)} each month. Unused credits roll over for one month. Cancel any time; the plan then runs to the end of the period.`
            : `Enter another card to pay the prorated ${charge} now. The upgrade and its credits apply once the payment goes through.`}
        </DialogDescription>
      </DialogHeader>
      <PaymentForm
        config={config}
        message={step.message}
        submitLabel={subscribing ? `Subscribe for ${price}` : `Pay ${charge}`}
        onPay={pay}
        onCancel={onClose}
        onBusyChange={onBusyChange}
      />
    </>
  );
}
