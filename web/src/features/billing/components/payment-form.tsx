import { lazy, Suspense } from "react";
import { CreditCard } from "lucide-react";
import { Spinner } from "@/components/ui/spinner";
import type { BillingConfig } from "@/lib/types";
import { TestCardForm, type CardFormProps } from "./test-card-form";

// Stripe.js and its React bindings are needed only in stripe mode: their module loads on first use there.
const StripeCardForm = lazy(() => import("./stripe-card-form"));

export const PAYMENTS_DISABLED_TEXT =
  "Payments are not configured on this server, so plans cannot be bought or upgraded here. Ask the server's operator to set up Stripe (or the test mode).";

/** Says plainly that this server takes no payments (config mode `disabled`). */
export function PaymentsDisabledNote() {
  return (
    <div role="note" data-testid="payments-disabled" className="flex gap-3 rounded-md border bg-muted/40 p-3 text-sm">
      <CreditCard className="mt-0.5 h-4 w-4 shrink-0 text-muted-foreground" aria-hidden="true" />
      <p>{PAYMENTS_DISABLED_TEXT}</p>
    </div>
  );
}

interface PaymentFormProps extends CardFormProps {
  config: Pick<BillingConfig, "mode" | "publishableKey">;
  /** Why a card is asked for, or why the last one failed (the provider's words), shown above the form. */
  message?: string | null;
}

/**
 * The card form of the server's payment mode (the built-in test mode, Stripe Elements, or none), under the message
 * of the last refusal. The message sits in a fixed slot before the form, so setting it never remounts the form and
 * the card typed stays for another try.
 */
export function PaymentForm({ config, message, ...props }: PaymentFormProps) {
  return (
    <div className="space-y-4">
      {message ? (
        <p role="alert" data-testid="payment-message" className="rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive">
          {message}
        </p>
      ) : null}
      <ModeForm config={config} {...props} />
    </div>
  );
}

function ModeForm({ config, ...props }: CardFormProps & Pick<PaymentFormProps, "config">) {
  if (config.mode === "test") return <TestCardForm {...props} />;
  if (config.mode === "stripe") {
    if (!config.publishableKey) {
      return (
        <p role="alert" className="text-sm text-destructive">
          Stripe is selected on this server but its publishable key is missing, so the card form cannot load.
        </p>
      );
    }
    return (
      <Suspense
        fallback={
          <div className="flex justify-center py-6">
            <Spinner label="Loading the card form" />
          </div>
        }
      >
        <StripeCardForm publishableKey={config.publishableKey} {...props} />
      </Suspense>
    );
  }
  return <PaymentsDisabledNote />;
}
