import { useState } from "react";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import type { FocusTarget } from "@/components/ui/focus";
import { toast } from "@/components/ui/use-toast";
import type { BillingConfig } from "@/lib/types";
import { CardFieldError, failureText, formatCard } from "../billing-helpers";
import { useUpdatePaymentMethod } from "../api/billing-api";
import type { PaymentCollector } from "../api/payment-flow";
import { PaymentForm } from "./payment-form";

const UPDATE_FALLBACK = "The card could not be saved. Please try again.";

interface UpdateCardDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  config: Pick<BillingConfig, "mode" | "publishableKey">;
  /** Where focus goes on close if the button that opened the dialog is gone (see DialogContent). */
  returnFocusTo?: FocusTarget;
}

/**
 * Replaces the card on file, which pays renewals and upgrades: the card form makes a payment method (the test
 * mode's, or Stripe's createPaymentMethod), then POST /api/billing/payment-method makes it the subscription's.
 * Nothing is charged. A card the provider refuses (402) is said in the form, which keeps the card typed.
 */
export function UpdateCardDialog({ open, onOpenChange, config, returnFocusTo }: UpdateCardDialogProps) {
  const [busy, setBusy] = useState(false);
  return (
    <Dialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent className="max-w-md" returnFocusTo={returnFocusTo}>
        {open ? <UpdateCardForm config={config} onDone={() => onOpenChange(false)} onBusyChange={setBusy} /> : null}
      </DialogContent>
    </Dialog>
  );
}

interface UpdateCardFormProps {
  config: UpdateCardDialogProps["config"];
  onDone: () => void;
  onBusyChange: (busy: boolean) => void;
}

function UpdateCardForm({ config, onDone, onBusyChange }: UpdateCardFormProps) {
  const update = useUpdatePaymentMethod();
  const [message, setMessage] = useState<string | null>(null);

  const save = async (card: PaymentCollector) => {
    setMessage(null);
    try {
      const sub = await update.mutateAsync(await card.createPaymentMethod());
      toast({
        title: "Card Updated",
        description: sub.paymentMethod
          ? `${formatCard(sub.paymentMethod)} now pays your subscription.`
          : "Your new card now pays your subscription.",
      });
      onDone();
    } catch (err) {
      // A field the provider faults is marked at the field itself; anything else is said above the form.
      if (!(err instanceof CardFieldError)) setMessage(failureText(err, UPDATE_FALLBACK));
      throw err;
    }
  };

  return (
    <>
      <DialogHeader>
        <DialogTitle>Update card</DialogTitle>
        <DialogDescription>
          The new card pays your renewals and upgrades from now on. Nothing is charged now.
        </DialogDescription>
      </DialogHeader>
      <PaymentForm config={config} message={message} submitLabel="Save card" onPay={save} onCancel={onDone} onBusyChange={onBusyChange} />
    </>
  );
}
