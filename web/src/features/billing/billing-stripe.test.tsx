import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { Route, Routes } from "react-router";
import { dismissToasts, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { BillingPage } from "./billing-page";
import {
  FREE_SUB,
  FREE_USAGE,
  creditPage,
  makeConfig,
  makePlanChange,
  makeSubscription,
  makeUsage,
  paymentsPage,
} from "./test-fixtures";

// Stripe mode with Stripe.js and its React bindings stood in: the tests pin which Stripe calls the screen makes, in
// what order with the server's, and what it shows for Stripe's answers. (The real Stripe.js is a script from
// js.stripe.com, which a unit test must not load.)

vi.setConfig({ testTimeout: 20_000 });

// The card form is its own chunk, imported when a dialog first needs it: on a loaded machine that first import (and
// its transform) has taken over the default second of findBy (a .ci/run beside two other test runs failed here).
const CARD_FORM_LOADS = { timeout: 10_000 };

const stripe = vi.hoisted(() => ({
  loadStripe: vi.fn(),
  createPaymentMethod: vi.fn(),
  confirmCardPayment: vi.fn(),
  cardElement: { id: "card-element" } as object | null,
}));

vi.mock("@stripe/stripe-js/pure", () => ({ loadStripe: stripe.loadStripe }));

vi.mock("@stripe/react-stripe-js", () => {
  const fakeStripe = {
    createPaymentMethod: stripe.createPaymentMethod,
    confirmCardPayment: stripe.confirmCardPayment,
  };
  return {
    Elements: ({ children }: { children: ReactNode }) => children,
    CardElement: () => <div data-testid="stripe-card-element" />,
    useStripe: () => fakeStripe,
    useElements: () => ({ getElement: () => stripe.cardElement }),
  };
});

beforeEach(() => {
  stripe.cardElement = { id: "card-element" };
  // Stripe.js itself, as the authentication step loads it outside the Elements provider.
  stripe.loadStripe.mockResolvedValue({ confirmCardPayment: stripe.confirmCardPayment });
  stripe.createPaymentMethod.mockResolvedValue({ paymentMethod: { id: "pm_stripe_1" } });
  stripe.confirmCardPayment.mockResolvedValue({ paymentIntent: { status: "succeeded" } });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.clearAllMocks();
  dismissToasts();
});

async function renderStripeBilling(routes: Record<string, FakeRoute>, { paid = false } = {}) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({
    "GET /api/user/profile": { body: makeUser({ plan: paid ? "basic" : "free" }) },
    "GET /api/billing/config": { body: makeConfig({ mode: "stripe", publishableKey: "pk_test_123" }) },
    "GET /api/billing/subscription": { body: paid ? makeSubscription({ provider: "stripe" }) : FREE_SUB },
    "GET /api/billing/metered-usage": { body: paid ? makeUsage() : FREE_USAGE },
    "GET /api/user/overage-limit": { body: { overageLimit: null } },
    "GET /api/billing/credits/history?limit=10": { body: creditPage([], null) },
    "GET /api/billing/payments?limit=10": { body: paymentsPage([]) },
    ...routes,
  });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/billing" element={<BillingPage />} />
    </Routes>,
    { route: "/billing" },
  );
  await screen.findByTestId("plan-basic");
  return { ...server, user };
}

const planButton = (id: string) => within(screen.getByTestId(`plan-${id}`)).getByRole("button");

describe("Stripe mode", () => {
  it("subscribes: createPaymentMethod, then subscribe, then confirmCardPayment with the client secret", async () => {
    const { requests, user } = await renderStripeBilling({
      "POST /api/billing/subscribe": { body: { clientSecret: "pi_9_secret_x", paymentId: 9, amountCents: 3000, planType: "basic" } },
    });
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    expect(await within(dialog).findByTestId("stripe-card-element", {}, CARD_FORM_LOADS)).toBeInTheDocument();
    expect(within(dialog).queryByText("Test mode")).not.toBeInTheDocument();
    expect(stripe.loadStripe).toHaveBeenCalledWith("pk_test_123");

    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));
    expect(await screen.findByText("Subscription Created")).toBeInTheDocument();

    expect(stripe.createPaymentMethod).toHaveBeenCalledWith({ type: "card", card: { id: "card-element" } });
    const subscribe = requests.filter((r) => r.method === "POST");
    expect(subscribe.map((r) => [r.url, r.body])).toEqual([
      ["/api/billing/subscribe", { planType: "basic", paymentMethodId: "pm_stripe_1" }],
    ]);
    expect(stripe.confirmCardPayment).toHaveBeenCalledWith("pi_9_secret_x");
    expect(stripe.createPaymentMethod.mock.invocationCallOrder[0]).toBeLessThan(stripe.confirmCardPayment.mock.invocationCallOrder[0]!);
  });

  it("shows Stripe's message when the payment is refused", async () => {
    stripe.confirmCardPayment.mockResolvedValue({ error: { message: "Your card has insufficient funds." } });
    const { user } = await renderStripeBilling({
      "POST /api/billing/subscribe": { body: { clientSecret: "pi_9_secret_x", paymentId: 9, amountCents: 3000, planType: "basic" } },
    });
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await within(dialog).findByTestId("stripe-card-element", {}, CARD_FORM_LOADS);
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));
    expect(await screen.findByText("Subscription Failed")).toBeInTheDocument();
    expect(within(screen.getByText("Subscription Failed").closest("li")!).getByText("Your card has insufficient funds.")).toBeInTheDocument();
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Your card has insufficient funds.");
  });

  it("lets Stripe authenticate an upgrade the bank asks about: confirmCardPayment(clientSecret) alone, no card form", async () => {
    const { requests, user } = await renderStripeBilling(
      {
        "GET /api/billing/proration?planType=professional": { body: makePlanChange() },
        "POST /api/billing/change-plan": {
          body: makePlanChange({ paymentStatus: "requires_action", paymentId: 12, clientSecret: "pi_up_secret", message: "Authentication required." }),
        },
      },
      { paid: true },
    );
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    await within(dialog).findByTestId("proration-charge");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));

    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(stripe.confirmCardPayment).toHaveBeenCalledWith("pi_up_secret");
    expect(screen.queryByTestId("stripe-card-element")).not.toBeInTheDocument();
    expect(requests.filter((r) => r.method === "POST").map((r) => r.url)).toEqual(["/api/billing/change-plan"]);
  });

  it("a failed Stripe authentication offers the card form with Stripe's message", async () => {
    stripe.confirmCardPayment.mockResolvedValueOnce({ error: { message: "We are unable to authenticate your payment method." } });
    const { user } = await renderStripeBilling(
      {
        "GET /api/billing/proration?planType=professional": { body: makePlanChange() },
        "POST /api/billing/change-plan": {
          body: makePlanChange({ paymentStatus: "requires_action", paymentId: 12, clientSecret: "pi_up_secret" }),
        },
      },
      { paid: true },
    );
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    await within(dialog).findByTestId("proration-charge");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const pay = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    expect(within(pay).getByRole("alert")).toHaveTextContent("We are unable to authenticate your payment method.");
    expect(await within(pay).findByTestId("stripe-card-element", {}, CARD_FORM_LOADS)).toBeInTheDocument();
  });

  it("pays a declined upgrade with another card: confirmCardPayment(clientSecret, {payment_method: {card}})", async () => {
    const { requests, user } = await renderStripeBilling(
      {
        "GET /api/billing/proration?planType=professional": { body: makePlanChange() },
        "POST /api/billing/change-plan": {
          body: makePlanChange({ paymentStatus: "requires_payment_method", paymentId: 12, clientSecret: "pi_up_secret", message: "Your card was declined." }),
        },
      },
      { paid: true },
    );
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    await within(dialog).findByTestId("proration-charge");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const pay = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    expect(within(pay).getByRole("alert")).toHaveTextContent("Your card was declined.");
    await within(pay).findByTestId("stripe-card-element", {}, CARD_FORM_LOADS);
    await user.click(within(pay).getByRole("button", { name: "Pay $63.33" }));

    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(stripe.confirmCardPayment).toHaveBeenCalledWith("pi_up_secret", { payment_method: { card: { id: "card-element" } } });
    expect(stripe.createPaymentMethod).not.toHaveBeenCalled();
    expect(requests.filter((r) => r.method === "POST").map((r) => r.url)).toEqual(["/api/billing/change-plan"]);
  });

  it("updates the card on file with createPaymentMethod, then POST /api/billing/payment-method", async () => {
    const { requests, user } = await renderStripeBilling(
      { "POST /api/billing/payment-method": { body: makeSubscription({ provider: "stripe" }) } },
      { paid: true },
    );
    await user.click(await screen.findByRole("button", { name: "Update card" }));
    const dialog = await screen.findByRole("dialog", { name: "Update card" });
    await within(dialog).findByTestId("stripe-card-element", {}, CARD_FORM_LOADS);
    await user.click(within(dialog).getByRole("button", { name: "Save card" }));
    expect(await screen.findByText("Card Updated")).toBeInTheDocument();
    expect(stripe.createPaymentMethod).toHaveBeenCalledWith({ type: "card", card: { id: "card-element" } });
    expect(stripe.confirmCardPayment).not.toHaveBeenCalled();
    expect(requests.filter((r) => r.method === "POST").map((r) => [r.url, r.body])).toEqual([
      ["/api/billing/payment-method", { paymentMethodId: "pm_stripe_1" }],
    ]);
  });

  it("toasts 'Card element not found' and sends nothing when the card field is missing", async () => {
    stripe.cardElement = null;
    const { requests, user } = await renderStripeBilling({});
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await within(dialog).findByTestId("stripe-card-element", {}, CARD_FORM_LOADS);
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));
    expect(await screen.findByText("Card element not found")).toBeInTheDocument();
    await waitFor(() => expect(requests.filter((r) => r.method === "POST")).toEqual([]));
    expect(stripe.createPaymentMethod).not.toHaveBeenCalled();
  });
});
