// Stripe.js, for stripe mode only. The card form (itself loaded lazily, see payment-form.tsx) imports this module,
// and the payment flow imports it dynamically when the bank asks a card on file for authentication, so the test
// mode never loads Stripe. The "pure" entry does not add Stripe's script to the page when imported; loadStripe does,
// when first called.
import { loadStripe } from "@stripe/stripe-js/pure";
import type { Stripe } from "@stripe/stripe-js";
import { PAYMENT_FALLBACK, PaymentProviderError } from "../billing-helpers";

const stripes = new Map<string, Promise<Stripe | null>>();

/** Stripe.js for a publishable key, loaded once per page. */
export function getStripe(publishableKey: string): Promise<Stripe | null> {
  let stripe = stripes.get(publishableKey);
  if (!stripe) {
    stripe = loadStripe(publishableKey);
    stripes.set(publishableKey, stripe);
  }
  return stripe;
}

/**
 * Lets the customer answer their bank for a payment the card on file could not make alone (requires_action):
 * confirmCardPayment with the client secret only shows Stripe's own 3-D Secure window and pays with the payment's
 * card. A failed or abandoned authentication is Stripe's message as a PaymentProviderError.
 */
export async function authenticateWithStripe(publishableKey: string, clientSecret: string): Promise<void> {
  const stripe = await getStripe(publishableKey);
  if (!stripe) throw new PaymentProviderError(PAYMENT_FALLBACK);
  const { error } = await stripe.confirmCardPayment(clientSecret);
  if (error) throw new PaymentProviderError(error.message || PAYMENT_FALLBACK);
}
