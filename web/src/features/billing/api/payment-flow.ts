import { ApiError } from "@/lib/api";
import type { PlanChange, TestCardRequest } from "@/lib/types";
import { CardFieldError, cardFieldOf, type PaidPlanId } from "../billing-helpers";
import { changePlan, confirmTestPayment, createTestPaymentMethod, subscribe } from "./billing-api";

// How a payment is made, the same for the two card forms (the built-in test mode and Stripe Elements): the form
// hands the flow a PaymentCollector for the card typed, and the flow calls the server in the order the contract
// gives (api/openapi.yaml, tag Billing).

/** The card a person typed, as the payment provider of the current mode can use it. */
export interface PaymentCollector {
  /** Makes a payment method of the card (for subscribe); a bad field is a CardFieldError. */
  createPaymentMethod(): Promise<string>;
  /** Confirms a payment whose payment method the server already holds (the first payment of a subscription). */
  confirmWithPaymentMethod(clientSecret: string, paymentMethodId: string): Promise<void>;
  /** Confirms a payment with the card itself (an upgrade's prorated charge). */
  confirmWithCard(clientSecret: string): Promise<void>;
}

/** A new subscription: payment method, then subscribe, then confirm the first payment. */
export async function runSubscribe(planType: PaidPlanId, card: PaymentCollector): Promise<void> {
  const paymentMethodId = await card.createPaymentMethod();
  const { clientSecret } = await subscribe({ planType, paymentMethodId });
  if (clientSecret) await card.confirmWithPaymentMethod(clientSecret, paymentMethodId);
}

/** Asks for a change of plan; an upgrade may answer a payment to confirm with a card. */
export function requestPlanChange(planType: PaidPlanId): Promise<PlanChange> {
  return changePlan({ planType });
}

/** Whether a change of plan needs the card collected and the payment confirmed in the browser. */
export function needsCard(change: PlanChange): change is PlanChange & { clientSecret: string } {
  return change.requiresPayment && typeof change.clientSecret === "string" && change.clientSecret !== "";
}

/** The test-mode card form's values, as typed and checked by its schema. */
export type TestCardValues = Required<Pick<TestCardRequest, "number" | "expMonth" | "expYear" | "cvc">> & { name: string };

/**
 * The test mode's card: POST /api/billing/test-mode/payment-methods makes the payment method (a 400 names the
 * field at fault, which becomes a CardFieldError), POST /api/billing/test-mode/confirm confirms a payment with it,
 * as Stripe's confirmCardPayment would (a declined card answers 402 with the provider's message).
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
