import { useMemo, useState, type FormEvent } from "react";
import { CardElement, Elements, useElements, useStripe } from "@stripe/react-stripe-js";
import type { Stripe, StripeCardElement } from "@stripe/stripe-js";
import { ShieldCheck } from "lucide-react";
import { Button } from "@/components/ui/button";
import { PendingButton } from "@/components/ui/pending-button";
import { Label } from "@/components/ui/label";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { CARD_ELEMENT_MISSING, PAYMENT_FALLBACK, PaymentProviderError } from "../billing-helpers";
import { PAID, type PaymentCollector } from "../api/payment-flow";
import { getStripe } from "../api/stripe-client";
import type { CardFormProps } from "./test-card-form";

/**
 * The payments of Stripe mode, with the card Stripe Elements collected: createPaymentMethod for a subscription (or
 * a new card on file), confirmCardPayment for its first payment, and confirmCardPayment with the card for an
 * upgrade the card on file could not pay. Stripe shows the bank's authentication itself, so a confirmation that
 * returns without an error is paid; Stripe's own message for a refused card becomes a PaymentProviderError.
 */
export function stripeCollector(stripe: Stripe, card: StripeCardElement): PaymentCollector {
  const fail = (error: { message?: string } | undefined): never => {
    throw new PaymentProviderError(error?.message || PAYMENT_FALLBACK);
  };
  return {
    async createPaymentMethod() {
      const { paymentMethod, error } = await stripe.createPaymentMethod({ type: "card", card });
      if (error || !paymentMethod) return fail(error);
      return paymentMethod.id;
    },
    async confirmWithPaymentMethod(clientSecret) {
      // The server attached the payment method to the subscription's first payment.
      const { error } = await stripe.confirmCardPayment(clientSecret);
      if (error) fail(error);
      return PAID;
    },
    async confirmWithCard(clientSecret) {
      const { error } = await stripe.confirmCardPayment(clientSecret, { payment_method: { card } });
      if (error) fail(error);
      return PAID;
    },
  };
}

interface StripeCardFormProps extends CardFormProps {
  publishableKey: string;
}

/** The card form of Stripe mode: Stripe Elements' card field inside Stripe's Elements provider. */
export default function StripeCardForm({ publishableKey, ...props }: StripeCardFormProps) {
  const stripe = useMemo(() => getStripe(publishableKey), [publishableKey]);
  return (
    <Elements stripe={stripe}>
      <StripeCardFields {...props} />
    </Elements>
  );
}

function StripeCardFields({ submitLabel, onPay, onCancel, onBusyChange }: CardFormProps) {
  const stripe = useStripe();
  const elements = useElements();
  const [busy, setBusy] = useState(false);
  const [cardError, setCardError] = useState<string | null>(null);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!stripe || !elements || busy) return;
    const card = elements.getElement(CardElement);
    if (!card) {
      toast({ variant: "destructive", title: CARD_ELEMENT_MISSING, description: "Reload the page and try again." });
      return;
    }
    setBusy(true);
    onBusyChange?.(true);
    try {
      await onPay(stripeCollector(stripe, card));
    } catch {
      // onPay has said what went wrong; the card stays typed for another try.
    } finally {
      setBusy(false);
      onBusyChange?.(false);
    }
  };

  return (
    <form onSubmit={(e) => void onSubmit(e)} noValidate className="space-y-4" aria-label="Card details">
      <div className="space-y-2">
        <Label htmlFor="stripe-card">Card</Label>
        <div id="stripe-card" className="rounded-md border border-input bg-background px-3 py-3">
          {stripe ? (
            <CardElement
              options={{ hidePostalCode: false, style: { base: { fontSize: "16px" } } }}
              onChange={(event) => setCardError(event.error?.message ?? null)}
            />
          ) : (
            <Spinner className="h-4 w-4" label="Loading the card form" />
          )}
        </div>
        {cardError ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {cardError}
          </p>
        ) : null}
        <p className="flex items-center gap-1.5 text-xs text-muted-foreground">
          <ShieldCheck className="h-3.5 w-3.5" aria-hidden="true" />
          Your card is sent to Stripe directly; Valuator keeps only its brand and last four digits.
        </p>
      </div>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button type="button" variant="outline" disabled={busy} onClick={onCancel}>
          Cancel
        </Button>
        <PendingButton type="submit" pending={busy} disabled={!stripe}>
          {busy ? "Processing..." : submitLabel}
        </PendingButton>
      </div>
    </form>
  );
}
