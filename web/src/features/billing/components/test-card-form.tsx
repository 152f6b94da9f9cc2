import type { ChangeEvent } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { FlaskConical } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PendingButton } from "@/components/ui/pending-button";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import {
  CardFieldError,
  formatCardNumberInput,
  formatExpiryInput,
  testCardSchema,
  type TestCardInput,
  type TestCardParsed,
} from "../billing-helpers";
import { testModeCollector, type PaymentCollector } from "../api/payment-flow";

export interface CardFormProps {
  /** The submit button's text ("Subscribe for $30/month", "Pay $41.67", "Save card"). */
  submitLabel: string;
  /** Runs the payment with the card typed. It toasts its own failures and rejects, so the form stays filled. */
  onPay: (card: PaymentCollector) => Promise<void>;
  onCancel: () => void;
  /** Reports whether a payment is under way, so the dialog around the form cannot be closed meanwhile. */
  onBusyChange?: (busy: boolean) => void;
}

const DEFAULTS: TestCardInput = { number: "", expiry: "", cvc: "", name: "" };

/**
 * The built-in test-mode card form: no real card is charged. The server checks the card as Stripe's test mode
 * would, and its message for a bad field is shown at that field.
 */
export function TestCardForm({ submitLabel, onPay, onCancel, onBusyChange }: CardFormProps) {
  const {
    register,
    handleSubmit,
    setError,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<TestCardInput, unknown, TestCardParsed>({
    resolver: zodResolver(testCardSchema),
    mode: "onSubmit",
    defaultValues: DEFAULTS,
  });

  const onSubmit = async (values: TestCardParsed) => {
    onBusyChange?.(true);
    try {
      await onPay(
        testModeCollector({
          number: values.number,
          expMonth: values.expiry.month,
          expYear: values.expiry.year,
          cvc: values.cvc,
          name: values.name,
        }),
      );
    } catch (err) {
      if (err instanceof CardFieldError) setError(err.field, { type: "server", message: err.message }, { shouldFocus: true });
    } finally {
      onBusyChange?.(false);
    }
  };

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4" aria-label="Card details" data-testid="test-card-form">
      <div role="note" className="space-y-1 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        <p className="flex items-center gap-2 font-semibold">
          <FlaskConical className="h-4 w-4 shrink-0" aria-hidden="true" />
          <Badge variant="warning">Test mode</Badge>
          <span>No real card is charged.</span>
        </p>
        <p>
          Card <span className="whitespace-nowrap font-mono">4242 4242 4242 4242</span> succeeds;{" "}
          <span className="whitespace-nowrap font-mono">4000 0000 0000 0002</span> is declined;{" "}
          <span className="whitespace-nowrap font-mono">4000 0025 0000 3155</span> asks for your bank&apos;s
          authentication. Use any future expiry date and any 3-digit CVC.
        </p>
      </div>
      <Field id="card-number" label="Card number" error={errors.number?.message}>
        <Input
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="4242 4242 4242 4242"
          maxLength={23}
          {...fieldA11y("card-number", errors.number?.message)}
          {...register("number", {
            onChange: (e: ChangeEvent<HTMLInputElement>) => setValue("number", formatCardNumberInput(e.target.value)),
          })}
        />
      </Field>
      <div className="grid grid-cols-2 gap-3">
        <Field id="card-expiry" label="Expiry (MM/YY)" error={errors.expiry?.message}>
          <Input
            inputMode="numeric"
            autoComplete="cc-exp"
            placeholder="MM/YY"
            maxLength={7}
            {...fieldA11y("card-expiry", errors.expiry?.message)}
            {...register("expiry", {
              onChange: (e: ChangeEvent<HTMLInputElement>) => setValue("expiry", formatExpiryInput(e.target.value)),
            })}
          />
        </Field>
        <Field id="card-cvc" label="CVC" error={errors.cvc?.message}>
          <Input
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="123"
            maxLength={4}
            {...fieldA11y("card-cvc", errors.cvc?.message)}
            {...register("cvc")}
          />
        </Field>
      </div>
      <Field id="card-name" label="Name on card" error={errors.name?.message}>
        <Input autoComplete="cc-name" maxLength={200} {...fieldA11y("card-name", errors.name?.message)} {...register("name")} />
      </Field>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button type="button" variant="outline" disabled={isSubmitting} onClick={onCancel}>
          Cancel
        </Button>
        <PendingButton type="submit" pending={isSubmitting}>
          {isSubmitting ? "Processing..." : submitLabel}
        </PendingButton>
      </div>
    </form>
  );
}
