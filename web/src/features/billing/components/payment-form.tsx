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

/** The card form of the server's payment mode: the built-in test mode, Stripe Elements, or none. */
export function PaymentForm({ config, ...props }: CardFormProps & { config: Pick<BillingConfig, "mode" | "publishableKey"> }) {
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
