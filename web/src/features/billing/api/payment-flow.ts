import { ApiError } from "@/lib/api";
import type { PlanChange, TestCardRequest } from "@/lib/types";
import { CardFieldError, cardFieldOf } from "../billing-helpers";
import { confirmTestPayment, createTestPaymentMethod, type TestConfirmResult } from "./billing-api";

// How a payment is made, the same for the two card forms (the built-in test mode and Stripe Elements): the form
// hands the flow a PaymentCollector for the card typed, and the flow calls the server in the order the contract
// gives (api/openapi.yaml, tag Billing). An upgrade is paid by the card on file without any of this unless the
// provider asks for the customer: to authenticate with their bank, or for another card.

/** What confirming a payment came to: paid, or the bank asks the customer to authenticate first. */
export type ConfirmResult = TestConfirmResult;

export const PAID: ConfirmResult = { status: "succeeded", message: null };

/** The card a person typed, as the payment provider of the current mode can use it. */
export interface PaymentCollector {
  /** Makes a payment method of the card (to subscribe, or to replace the card on file); a bad field is a CardFieldError. */
  createPaymentMethod(): Promise<string>;
  /** Confirms a payment with a payment method this form made (a subscription's first payment, which holds it). */
  confirmWithPaymentMethod(clientSecret: string, paymentMethodId: string): Promise<ConfirmResult>;
  /** Confirms an open payment with the card itself (another card, after the card on file was declined). */
  confirmWithCard(clientSecret: string): Promise<ConfirmResult>;
}

/** A payment the checkout opened: it is paid, or withdrawn when the customer walks away. */
export interface OpenPayment {
  /** Null only if the server left it out; such a payment cannot be withdrawn and simply expires. */
  id: number | null;
  clientSecret: string;
  amountCents: number;
}

/** The payment a change of plan left for the browser (requires_action, requires_payment_method); null if none. */
export function openPaymentOf(change: PlanChange): OpenPayment | null {
  if (!change.clientSecret) return null;
  return { id: change.paymentId ?? null, clientSecret: change.clientSecret, amountCents: change.chargeCents };
}

/**
 * The test mode's stand-in for the bank's 3-D Secure page: the customer's answer confirms the payment with its own
 * card (no paymentMethodId: the card on file, or the one the subscription was started with). A failed
 * authentication is a 402 with the provider's message, as Stripe's decline is.
 */
export function authenticateTestPayment(clientSecret: string, authentication: "complete" | "fail"): Promise<ConfirmResult> {
  return confirmTestPayment({ clientSecret, authentication });
}

/** Stripe mode: Stripe.js shows its own authentication window; loaded only when it is needed. */
export async function authenticateInStripe(publishableKey: string, clientSecret: string): Promise<void> {
  const { authenticateWithStripe } = await import("./stripe-client");
  await authenticateWithStripe(publishableKey, clientSecret);
}

/** The test-mode card form's values, as typed and checked by its schema. */
export type TestCardValues = Required<Pick<TestCardRequest, "number" | "expMonth" | "expYear" | "cvc">> & { name: string };

/**
 * The test mode's card: POST /api/billing/test-mode/payment-methods makes the payment method (a 400 names the
 * field at fault, which becomes a CardFieldError), POST /api/billing/test-mode/confirm confirms a payment with it,
 * as Stripe's confirmCardPayment would (a declined card answers 402 with the provider's message; a card that needs
 * the bank's authentication answers requires_action).
 */
export function testModeCollector(values: TestCardValues): PaymentCollector {
  const createPaymentMethod = async () => {
    const body: TestCardRequest = {
      number: values.number,
      expMonth: values.expMonth,
      expYear: values.expYear,
      cvc: values.cvc,
      ...(values.name ? { name: values.name } : {}),
    };
    try {
      return (await createTestPaymentMethod(body)).id;
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && err.body) {
        const serverField = err.body.field ?? Object.keys(err.body.fields ?? {})[0];
        const field = cardFieldOf(serverField);
        const message = (serverField && err.body.fields?.[serverField]) || err.body.error;
        if (field) throw new CardFieldError(field, message);
      }
      throw err;
    }
  };
  const confirmWithPaymentMethod = (clientSecret: string, paymentMethodId: string) =>
    confirmTestPayment({ clientSecret, paymentMethodId });
  return {
    createPaymentMethod,
    confirmWithPaymentMethod,
    confirmWithCard: async (clientSecret) => confirmWithPaymentMethod(clientSecret, await createPaymentMethod()),
  };
}
