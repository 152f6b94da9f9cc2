import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import type { BillingConfig, CreditHistory, MeteredUsage, PaymentHistory, Subscription, User } from "@/lib/types";
import {
  dismissToasts,
  errorBody,
  makeUser,
  mockFetch,
  renderWithProviders,
  type FakeRequest,
  type FakeRoute,
} from "@/test/utils";
import { BillingPage } from "./billing-page";
import {
  FREE_SUB,
  FREE_USAGE,
  PERIOD_END,
  creditPage,
  entriesFrom,
  makeConfig,
  makeEntry,
  makePayment,
  makePlanChange,
  makeSubscription,
  makeUsage,
  paymentsPage,
} from "./test-fixtures";

// The screen reads several calls and runs multi-step payment flows; the limit is for a stuck test only.
vi.setConfig({ testTimeout: 20_000 });

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const PROFILE = "GET /api/user/profile";
const CONFIG = "GET /api/billing/config";
const SUBSCRIPTION = "GET /api/billing/subscription";
const USAGE = "GET /api/billing/metered-usage";
const LIMIT = "GET /api/user/overage-limit";
const SET_LIMIT = "PUT /api/user/overage-limit";
const CREDITS = "GET /api/billing/credits/history?limit=10";
const PAYMENTS = "GET /api/billing/payments?limit=10";
const PAYMENT_METHODS = "POST /api/billing/test-mode/payment-methods";
const SUBSCRIBE = "POST /api/billing/subscribe";
const CONFIRM = "POST /api/billing/test-mode/confirm";
const CHANGE = "POST /api/billing/change-plan";
const CANCEL = "POST /api/billing/cancel";
const prorationRoute = (plan: string) => `GET /api/billing/proration?planType=${plan}`;

interface Setup {
  user?: User;
  sub?: Subscription;
  usage?: MeteredUsage;
  config?: BillingConfig;
  limit?: number | null;
  credits?: CreditHistory;
  payments?: PaymentHistory;
  routes?: Record<string, FakeRoute>;
  route?: string;
  fakeTimers?: boolean;
}

/**
 * Renders Billing for a signed-in user. The profile, subscription, usage and limit answer from `state`, which tests
 * change to play the server; `routes` add to or override the rest.
 */
async function renderBilling({
  user = makeUser({ plan: "basic", credits: 1234 }),
  sub = makeSubscription(),
  usage = makeUsage(),
  config = makeConfig(),
  limit = null,
  credits = creditPage(entriesFrom(3, 1), null),
  payments = paymentsPage([makePayment()]),
  routes = {},
  route = "/billing",
  fakeTimers = false,
}: Setup = {}) {
  localStorage.setItem("token", "tok-1");
  const state = { user, sub, usage, limit };
  const server = mockFetch({
    [PROFILE]: () => ({ body: state.user }),
    [CONFIG]: { body: config },
    [SUBSCRIPTION]: () => ({ body: state.sub }),
    [USAGE]: () => ({ body: state.usage }),
    [LIMIT]: () => ({ body: { overageLimit: state.limit } }),
    [CREDITS]: { body: credits },
    [PAYMENTS]: { body: payments },
    ...routes,
  });
  const u = userEvent.setup(fakeTimers ? { advanceTimers: vi.advanceTimersByTime.bind(vi) } : {});
  renderWithProviders(
    <Routes>
      <Route path="/billing" element={<BillingPage />} />
    </Routes>,
    { route },
  );
  await screen.findByRole("heading", { name: "Billing & Credits", level: 1 });
  return { ...server, state, user: u };
}

const calls = (requests: FakeRequest[], method: string, url: string) =>
  requests.filter((r) => r.method === method && r.url === url);
const posts = (requests: FakeRequest[]) =>
  requests.filter((r) => r.method !== "GET").map((r) => ({ call: `${r.method} ${r.url}`, body: r.body }));
const toastItem = (title: string) => screen.getByText(title).closest("li")!;
const planCard = (id: string) => screen.getByTestId(`plan-${id}`);
const planButton = (id: string) => within(planCard(id)).getByRole("button");

async function plansShown() {
  await screen.findByTestId("plan-basic");
}

async function fillCard(
  user: ReturnType<typeof userEvent.setup>,
  dialog: HTMLElement,
  { number = "4242 4242 4242 4242", expiry = "12/30", cvc = "123", name = "Jane Doe" } = {},
) {
  await user.type(within(dialog).getByLabelText("Card number"), number);
  await user.type(within(dialog).getByLabelText("Expiry (MM/YY)"), expiry);
  await user.type(within(dialog).getByLabelText("CVC"), cvc);
  if (name) await user.type(within(dialog).getByLabelText("Name on card"), name);
}

describe("the cards", () => {
  it("shows the balance, the usage as a share of the plan and the current plan", async () => {
    await renderBilling({ usage: makeUsage({ creditsUsedThisPeriod: 450 }) });

    const available = screen.getByTestId("card-available-credits");
    expect(await within(available).findByText("1,234")).toBeInTheDocument();
    expect(within(available).getByText("credits left to spend")).toBeInTheDocument();

    const usage = screen.getByTestId("card-usage");
    expect(await within(usage).findByText("45%")).toBeInTheDocument();
    expect(within(usage).getByText("450 of 1,000 credits used")).toBeInTheDocument();
    expect(within(usage).getByRole("progressbar", { name: "Plan credits used this period" })).toHaveAttribute("aria-valuenow", "45");

    const plan = screen.getByTestId("card-current-plan");
    expect(await within(plan).findByText("Basic")).toBeInTheDocument();
    expect(within(plan).getByText("$30/month · 1,000 credits per month")).toBeInTheDocument();
    expect(within(plan).getByText("Renews on Mar 1, 2026")).toBeInTheDocument();
  });

  it("caps the usage at 100% and says a negative balance is overage, with 0 available", async () => {
    await renderBilling({
      user: makeUser({ plan: "basic", credits: -123 }),
      usage: makeUsage({ creditsUsedThisPeriod: 1123, overageCredits: 123, balance: -123 }),
    });
    const available = screen.getByTestId("card-available-credits");
    expect(await within(available).findByText("123 overage credits used this period")).toBeInTheDocument();
    expect(within(available).getByTestId("available-credits")).toHaveTextContent("0");
    expect(await within(screen.getByTestId("card-usage")).findByText("100%")).toBeInTheDocument();
    expect(screen.getByText("1,123 of 1,000 credits used")).toBeInTheDocument();
  });

  it("shows the metered usage: overage to four decimals and the server's upcoming charge", async () => {
    await renderBilling({
      usage: makeUsage({
        creditsUsedThisPeriod: 1123,
        overageCredits: 123,
        estimatedOverageCharge: 3.69,
        estimatedOverageChargeCents: 369,
        upcomingCharge: 33.69,
        upcomingChargeCents: 3369,
        carriedCredits: 120,
      }),
    });
    const card = screen.getByTestId("metered-usage-card");
    expect(await within(card).findByTestId("credits-included")).toHaveTextContent("1,000");
    expect(within(card).getByTestId("overage-credits")).toHaveTextContent("123");
    expect(within(card).getByTestId("cost-per-credit")).toHaveTextContent("$0.0300");
    expect(within(card).getByTestId("estimated-overage")).toHaveTextContent("$3.6900");
    expect(within(card).getByTestId("plan-price")).toHaveTextContent("$30.00");
    expect(within(card).getByTestId("upcoming-charge")).toHaveTextContent("$33.69");
    expect(within(card).getByText("Total upcoming charge")).toBeInTheDocument();
    expect(within(card).getByTestId("carried-credits")).toHaveTextContent(
      "120 credits carried over from last period expire at the end of this one, on Mar 1, 2026.",
    );
  });

  it("on the Free plan says there is no subscription", async () => {
    await renderBilling({ user: makeUser(), sub: FREE_SUB, usage: FREE_USAGE });
    expect(await screen.findByTestId("free-plan-note")).toHaveTextContent("You are on the Free plan: no subscription.");
    expect(screen.queryByRole("button", { name: "Cancel subscription" })).not.toBeInTheDocument();
    expect(await within(screen.getByTestId("card-current-plan")).findByText("Free")).toBeInTheDocument();
    expect(screen.getByText("Free credits renew on Mar 1, 2026")).toBeInTheDocument();
    expect(screen.getByTestId("cost-per-credit")).toHaveTextContent("No overage on Free");
  });
});

describe("the low-balance warning", () => {
  it("shows under 50 credits and points at the plans", async () => {
    await renderBilling({ user: makeUser({ credits: 49 }), sub: FREE_SUB, usage: FREE_USAGE });
    const warning = await screen.findByTestId("low-balance-warning");
    expect(warning).toHaveTextContent("Low credit balance");
    expect(warning).toHaveTextContent("You have 49 credits left");
    await plansShown();
    await userEvent.click(within(warning).getByRole("button", { name: "View plans" }));
    expect(screen.getByRole("heading", { name: "Plans" })).toHaveFocus();
  });

  it("does not show at 50 credits", async () => {
    await renderBilling({ user: makeUser({ credits: 50 }), sub: FREE_SUB, usage: FREE_USAGE });
    expect(await within(screen.getByTestId("card-available-credits")).findByText("50")).toBeInTheDocument();
    await plansShown();
    expect(screen.queryByTestId("low-balance-warning")).not.toBeInTheDocument();
  });

  it("follows the server's threshold", async () => {
    await renderBilling({ user: makeUser({ credits: 80 }), sub: FREE_SUB, usage: FREE_USAGE, config: makeConfig({ lowBalance: 100 }) });
    expect(await screen.findByTestId("low-balance-warning")).toHaveTextContent("under the 100 credits alert level");
  });
});

describe("subscription details", () => {
  it("shows the plan, an active badge, the period end and the card", async () => {
    await renderBilling();
    const card = await screen.findByTestId("subscription-card");
    const status = within(card).getByTestId("subscription-status");
    expect(status).toHaveTextContent("Active");
    expect(status.className).toContain("bg-primary");
    expect(card).toHaveTextContent("Current period ends");
    expect(card).toHaveTextContent("Mar 1, 2026");
    expect(within(card).getByTestId("payment-method")).toHaveTextContent("Visa •••• 4242");
    expect(within(card).getByRole("button", { name: "Cancel subscription" })).toBeInTheDocument();
    expect(within(card).queryByTestId("cancels-at-period-end")).not.toBeInTheDocument();
  });

  it("shows any other status with a secondary badge", async () => {
    await renderBilling({ sub: makeSubscription({ status: "past_due" }) });
    const status = await screen.findByTestId("subscription-status");
    expect(status).toHaveTextContent("Past due");
    expect(status.className).toContain("bg-secondary");
  });

  it("shows 'Cancels at period end' and hides the cancel button", async () => {
    await renderBilling({ sub: makeSubscription({ cancelAtPeriodEnd: true }) });
    const card = await screen.findByTestId("subscription-card");
    expect(within(card).getByTestId("cancels-at-period-end")).toHaveTextContent("Cancels at period end");
    expect(within(card).queryByRole("button", { name: "Cancel subscription" })).not.toBeInTheDocument();
    expect(screen.getByText("Ends on Mar 1, 2026")).toBeInTheDocument();
  });

  it("shows a scheduled downgrade", async () => {
    await renderBilling({ sub: makeSubscription({ planType: "professional", pendingPlanType: "basic" }) });
    expect(await screen.findByTestId("pending-plan")).toHaveTextContent("Switches to Basic on Mar 1, 2026");
    await plansShown();
    expect(planButton("basic")).toBeDisabled();
  });

  it("cancels after a confirmation, toasts and then shows the badge instead of the button", async () => {
    const { requests, state, user } = await renderBilling({
      routes: {
        [CANCEL]: () => {
          state.sub = makeSubscription({ cancelAtPeriodEnd: true });
          return { body: state.sub };
        },
      },
    });
    const card = await screen.findByTestId("subscription-card");
    await user.click(within(card).getByRole("button", { name: "Cancel subscription" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Cancel your subscription?" });
    expect(dialog).toHaveTextContent("stays active until Mar 1, 2026");
    await user.click(within(dialog).getByRole("button", { name: "Cancel subscription" }));

    expect(await screen.findByText("Subscription Canceled")).toBeInTheDocument();
    expect(within(toastItem("Subscription Canceled")).getByText("Your subscription will end at the current period.")).toBeInTheDocument();
    expect(calls(requests, "POST", "/api/billing/cancel")).toHaveLength(1);
    expect(await within(card).findByTestId("cancels-at-period-end")).toBeInTheDocument();
    expect(within(card).queryByRole("button", { name: "Cancel subscription" })).not.toBeInTheDocument();
  });

  it("sends nothing when the confirmation is dismissed", async () => {
    const { requests, user } = await renderBilling();
    await user.click(await screen.findByRole("button", { name: "Cancel subscription" }));
    const dialog = await screen.findByRole("alertdialog");
    await user.click(within(dialog).getByRole("button", { name: "Keep subscription" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(calls(requests, "POST", "/api/billing/cancel")).toHaveLength(0);
  });

  it("toasts 'Error' when the cancel fails", async () => {
    const { user } = await renderBilling({
      routes: { [CANCEL]: { status: 503, body: errorBody("Payments are unavailable right now", { code: "unavailable" }) } },
    });
    await user.click(await screen.findByRole("button", { name: "Cancel subscription" }));
    const dialog = await screen.findByRole("alertdialog");
    await user.click(within(dialog).getByRole("button", { name: "Cancel subscription" }));
    expect(await screen.findByText("Error")).toBeInTheDocument();
    expect(within(toastItem("Error")).getByText("Payments are unavailable right now")).toBeInTheDocument();
    expect(screen.getByRole("alertdialog")).toBeInTheDocument();
  });
});

describe("the plan buttons", () => {
  const labels = () => ["basic", "professional", "enterprise"].map((id) => planButton(id).textContent);

  it("on Free: Get Started on all three", async () => {
    await renderBilling({ user: makeUser(), sub: FREE_SUB, usage: FREE_USAGE });
    await plansShown();
    expect(labels()).toEqual(["Get Started", "Get Started", "Get Started"]);
    for (const id of ["basic", "professional", "enterprise"]) expect(planButton(id)).toBeEnabled();
  });

  it("on Basic: Current Plan disabled, Choose Professional, Choose Enterprise", async () => {
    await renderBilling();
    await plansShown();
    expect(labels()).toEqual(["Current Plan", "Choose Professional", "Choose Enterprise"]);
    expect(planButton("basic")).toBeDisabled();
    expect(planButton("professional")).toBeEnabled();
  });

  it("on Professional: Switch to Basic, Current Plan, Choose Enterprise", async () => {
    await renderBilling({ sub: makeSubscription({ planType: "professional" }) });
    await plansShown();
    expect(labels()).toEqual(["Switch to Basic", "Current Plan", "Choose Enterprise"]);
  });

  it("shows each plan's price in whole dollars, credits, rate cap and batch size", async () => {
    await renderBilling();
    await plansShown();
    const basic = planCard("basic");
    expect(within(basic).getByText("$30")).toBeInTheDocument();
    expect(within(basic).getByText("1,000 credits per month")).toBeInTheDocument();
    expect(within(basic).getByText("Rate limit: 60 requests/min")).toBeInTheDocument();
    expect(within(basic).getByText("Batch uploads up to 1,000 properties")).toBeInTheDocument();
    expect(within(planCard("professional")).getByText("$125")).toBeInTheDocument();
    expect(within(planCard("professional")).getByText("Rate limit: 120 requests/min")).toBeInTheDocument();
    expect(within(planCard("enterprise")).getByText("$200")).toBeInTheDocument();
    expect(within(planCard("enterprise")).getByText("Rate limit: Unlimited")).toBeInTheDocument();
    expect(within(planCard("enterprise")).getByText("Batch uploads up to 50,000 properties")).toBeInTheDocument();
  });

  it("with payments disabled says so and offers no card form", async () => {
    await renderBilling({ user: makeUser(), sub: FREE_SUB, usage: FREE_USAGE, config: makeConfig({ mode: "disabled" }) });
    await plansShown();
    expect(screen.getByTestId("payments-disabled")).toHaveTextContent("Payments are not configured on this server");
    expect(planButton("basic")).toBeDisabled();
    expect(screen.queryByLabelText("Card number")).not.toBeInTheDocument();
  });
});

describe("the overage limit dialog", () => {
  async function openLimit(user: ReturnType<typeof userEvent.setup>) {
    const button = await screen.findByRole("button", { name: "Set Usage Limit" });
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    return screen.findByRole("dialog", { name: "Custom Usage Limit" });
  }

  it("shows the current limit, or No limit", async () => {
    await renderBilling({ limit: 75.5 });
    await waitFor(() => expect(screen.getByTestId("overage-limit-value")).toHaveTextContent("$75.50"));
  });

  it("saves a value with Save, toasts 'Limit Updated' and shows it", async () => {
    const { requests, state, user } = await renderBilling({
      routes: {
        [SET_LIMIT]: (req) => {
          state.limit = (req.body as { limit: number | null }).limit;
          return { body: { overageLimit: state.limit } };
        },
      },
    });
    expect(await screen.findByTestId("overage-limit-value")).toHaveTextContent("No limit");
    const dialog = await openLimit(user);
    expect(within(dialog).getByTestId("overage-limit-max")).toHaveTextContent("Maximum: $300.00 (ten times your plan price)");
    await user.type(within(dialog).getByLabelText("Overage limit (USD)"), "50");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    expect(await screen.findByText("Limit Updated")).toBeInTheDocument();
    expect(calls(requests, "PUT", "/api/user/overage-limit").map((r) => r.body)).toEqual([{ limit: 50 }]);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(await screen.findByText("$50.00")).toBeInTheDocument();
  });

  it("saves with the Enter key", async () => {
    const { requests, user } = await renderBilling({ routes: { [SET_LIMIT]: { body: { overageLimit: 12.5 } } } });
    const dialog = await openLimit(user);
    await user.type(within(dialog).getByLabelText("Overage limit (USD)"), "12.5{Enter}");
    expect(await screen.findByText("Limit Updated")).toBeInTheDocument();
    expect(calls(requests, "PUT", "/api/user/overage-limit").map((r) => r.body)).toEqual([{ limit: 12.5 }]);
  });

  it("saves empty as no limit", async () => {
    const { requests, user } = await renderBilling({ limit: 40, routes: { [SET_LIMIT]: { body: { overageLimit: null } } } });
    await waitFor(() => expect(screen.getByTestId("overage-limit-value")).toHaveTextContent("$40.00"));
    const dialog = await openLimit(user);
    const input = within(dialog).getByLabelText("Overage limit (USD)");
    expect(input).toHaveValue("40.00");
    await user.clear(input);
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Limit Updated")).toBeInTheDocument();
    expect(calls(requests, "PUT", "/api/user/overage-limit").map((r) => r.body)).toEqual([{ limit: null }]);
  });

  it("'Reset to plan limit' saves null", async () => {
    const { requests, user } = await renderBilling({ limit: 40, routes: { [SET_LIMIT]: { body: { overageLimit: null } } } });
    await waitFor(() => expect(screen.getByTestId("overage-limit-value")).toHaveTextContent("$40.00"));
    const dialog = await openLimit(user);
    await user.click(within(dialog).getByRole("button", { name: "Reset to plan limit" }));
    expect(await screen.findByText("Limit Updated")).toBeInTheDocument();
    expect(calls(requests, "PUT", "/api/user/overage-limit").map((r) => r.body)).toEqual([{ limit: null }]);
  });

  it("Cancel sends nothing", async () => {
    const { requests, user } = await renderBilling();
    const dialog = await openLimit(user);
    await user.type(within(dialog).getByLabelText("Overage limit (USD)"), "99");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(calls(requests, "PUT", "/api/user/overage-limit")).toHaveLength(0);
  });

  it.each(["abc", "-5", "1e3"])("refuses %s with 'Invalid Input' and sends nothing", async (typed) => {
    const { requests, user } = await renderBilling();
    const dialog = await openLimit(user);
    await user.type(within(dialog).getByLabelText("Overage limit (USD)"), typed);
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    const message = "Please enter a valid positive number or leave empty to remove limit.";
    expect(await within(dialog).findByText(message)).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Overage limit (USD)")).toHaveAttribute("aria-invalid", "true");
    expect(await screen.findByText("Invalid Input")).toBeInTheDocument();
    expect(within(toastItem("Invalid Input")).getByText(message)).toBeInTheDocument();
    expect(calls(requests, "PUT", "/api/user/overage-limit")).toHaveLength(0);
  });

  it("states 1000.00 as the maximum without a paid plan", async () => {
    const { user } = await renderBilling({ user: makeUser(), sub: FREE_SUB, usage: FREE_USAGE });
    await plansShown();
    const dialog = await openLimit(user);
    expect(within(dialog).getByTestId("overage-limit-max")).toHaveTextContent("Maximum: $1000.00");
  });
});

describe("subscribing in test mode", () => {
  const freeSetup = (routes: Record<string, FakeRoute>): Setup => ({ user: makeUser(), sub: FREE_SUB, usage: FREE_USAGE, routes });

  it("makes the payment method, subscribes, confirms, and toasts 'Subscription Created'", async () => {
    const { requests, user } = await renderBilling(
      freeSetup({
        [PAYMENT_METHODS]: { body: { id: "pm_test_1", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 } },
        [SUBSCRIBE]: { body: { clientSecret: "pi_1_secret_abc", paymentId: 9, amountCents: 3000, planType: "basic" } },
        [CONFIRM]: { body: { status: "succeeded" } },
      }),
    );
    await plansShown();
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    expect(within(dialog).getByText("Test mode")).toBeInTheDocument();
    expect(dialog).toHaveTextContent("4242 4242 4242 4242 succeeds");
    expect(dialog).toHaveTextContent("4000 0000 0000 0002 is declined");
    await fillCard(user, dialog);
    expect(within(dialog).getByLabelText("Card number")).toHaveValue("4242 4242 4242 4242");
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));

    expect(await screen.findByText("Subscription Created")).toBeInTheDocument();
    expect(posts(requests)).toEqual([
      {
        call: PAYMENT_METHODS,
        body: { number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123", name: "Jane Doe" },
      },
      { call: SUBSCRIBE, body: { planType: "basic", paymentMethodId: "pm_test_1" } },
      { call: CONFIRM, body: { clientSecret: "pi_1_secret_abc", paymentMethodId: "pm_test_1" } },
    ]);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("toasts 'Subscription Failed' with the provider's message when the card is declined", async () => {
    const { requests, user } = await renderBilling(
      freeSetup({
        [PAYMENT_METHODS]: { body: { id: "pm_test_2", brand: "visa", last4: "0002", expMonth: 12, expYear: 2030 } },
        [SUBSCRIBE]: { body: { clientSecret: "pi_2_secret", paymentId: 10, amountCents: 3000, planType: "basic" } },
        [CONFIRM]: { status: 402, body: errorBody("Your card was declined.", { code: "card_declined" }) },
      }),
    );
    await plansShown();
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await fillCard(user, dialog, { number: "4000000000000002" });
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));

    expect(await screen.findByText("Subscription Failed")).toBeInTheDocument();
    expect(within(toastItem("Subscription Failed")).getByText("Your card was declined.")).toBeInTheDocument();
    expect(screen.queryByText("Subscription Created")).not.toBeInTheDocument();
    expect(calls(requests, "POST", "/api/billing/test-mode/confirm")).toHaveLength(1);
    // The form stays, filled, for another card.
    expect(screen.getByRole("dialog", { name: "Subscribe to Basic" })).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Card number")).toHaveValue("4000 0000 0000 0002");
  });

  it("shows the server's message at the field it names", async () => {
    const { requests, user } = await renderBilling(
      freeSetup({
        [PAYMENT_METHODS]: {
          status: 400,
          body: errorBody("Your card's expiration year is in the past.", { field: "expYear", code: "invalid_expiry_year" }),
        },
      }),
    );
    await plansShown();
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Professional" });
    await fillCard(user, dialog, { expiry: "01/20" });
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $125/month" }));

    const expiry = within(dialog).getByLabelText("Expiry (MM/YY)");
    await waitFor(() => expect(expiry).toHaveAttribute("aria-invalid", "true"));
    expect(within(dialog).getByText("Your card's expiration year is in the past.")).toBeInTheDocument();
    expect(await screen.findByText("Subscription Failed")).toBeInTheDocument();
    expect(calls(requests, "POST", "/api/billing/subscribe")).toHaveLength(0);
  });

  it("checks the card's shape before sending anything", async () => {
    const { requests, user } = await renderBilling(freeSetup({}));
    await plansShown();
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await user.type(within(dialog).getByLabelText("Card number"), "4242");
    await user.type(within(dialog).getByLabelText("Expiry (MM/YY)"), "13/30");
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));
    expect(await within(dialog).findByText("Enter the card number (12 to 19 digits)")).toBeInTheDocument();
    expect(within(dialog).getByText("Enter the expiry date as MM/YY")).toBeInTheDocument();
    expect(within(dialog).getByText("Enter the 3 or 4 digit security code")).toBeInTheDocument();
    expect(posts(requests)).toEqual([]);
  });

  it("opens the payment form of the plan in /billing?plan=basic", async () => {
    await renderBilling({ ...freeSetup({}), route: "/billing?plan=basic" });
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    expect(within(dialog).getByLabelText("Card number")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/billing$/));
  });

  it("ignores an unknown plan in the link", async () => {
    await renderBilling({ ...freeSetup({}), route: "/billing?plan=platinum" });
    await plansShown();
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/billing$/));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

describe("changing plan", () => {
  it("upgrades: shows the prorated charge, then collects the card and confirms, and toasts 'Plan Updated'", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange({ clientSecret: null, paymentId: null }) },
        [CHANGE]: { body: makePlanChange() },
        [PAYMENT_METHODS]: { body: { id: "pm_up", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 } },
        [CONFIRM]: { body: { status: "succeeded" } },
      },
    });
    await plansShown();
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    expect(await within(dialog).findByTestId("proration-charge")).toHaveTextContent("$63.33");
    expect(dialog).toHaveTextContent("get 2,666 credits at once");
    expect(posts(requests)).toEqual([]);

    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const payDialog = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    await fillCard(user, payDialog);
    await user.click(within(payDialog).getByRole("button", { name: "Pay $63.33" }));

    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(posts(requests)).toEqual([
      { call: CHANGE, body: { planType: "professional" } },
      {
        call: PAYMENT_METHODS,
        body: { number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123", name: "Jane Doe" },
      },
      { call: CONFIRM, body: { clientSecret: "pi_upgrade_secret_1", paymentMethodId: "pm_up" } },
    ]);
  });

  it("upgrades without a card when the server charged the saved one", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("enterprise")]: { body: makePlanChange({ planType: "enterprise" }) },
        [CHANGE]: { body: makePlanChange({ planType: "enterprise", requiresPayment: false, clientSecret: null }) },
      },
    });
    await plansShown();
    await user.click(planButton("enterprise"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Enterprise" });
    await within(dialog).findByTestId("proration-charge");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(posts(requests).map((p) => p.call)).toEqual([CHANGE]);
  });

  it("downgrades at the period end without a card", async () => {
    const { requests, user } = await renderBilling({
      sub: makeSubscription({ planType: "professional" }),
      routes: {
        [prorationRoute("basic")]: {
          body: makePlanChange({ planType: "basic", change: "downgrade", requiresPayment: false, clientSecret: null, chargeCents: 0, credits: 0, effectiveAt: PERIOD_END }),
        },
        [CHANGE]: {
          body: makePlanChange({ planType: "basic", change: "downgrade", requiresPayment: false, clientSecret: null, chargeCents: 0, credits: 0, effectiveAt: PERIOD_END }),
        },
      },
    });
    await plansShown();
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Switch to Basic" });
    expect(await within(dialog).findByText("Mar 1, 2026")).toBeInTheDocument();
    expect(dialog).toHaveTextContent("takes effect at the end of the current period");
    expect(dialog).toHaveTextContent("Nothing is charged now");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Switch" }));

    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(within(toastItem("Plan Updated")).getByText("Your plan switches to Basic on Mar 1, 2026.")).toBeInTheDocument();
    expect(posts(requests)).toEqual([{ call: CHANGE, body: { planType: "basic" } }]);
    expect(screen.queryByLabelText("Card number")).not.toBeInTheDocument();
  });

  it("toasts 'Plan Change Failed' with the server's message", async () => {
    const { user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { status: 409, body: errorBody("A payment for this subscription is still pending", { code: "conflict" }) },
      },
    });
    await plansShown();
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    await within(dialog).findByTestId("proration-charge");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    expect(within(toastItem("Plan Change Failed")).getByText("A payment for this subscription is still pending")).toBeInTheDocument();
  });

  it("toasts 'Plan Change Failed' when the upgrade's card is declined", async () => {
    const { user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: makePlanChange() },
        [PAYMENT_METHODS]: { body: { id: "pm_bad", brand: "visa", last4: "0002", expMonth: 12, expYear: 2030 } },
        [CONFIRM]: { status: 402, body: errorBody("Your card was declined.", { code: "card_declined" }) },
      },
    });
    await plansShown();
    await user.click(planButton("professional"));
    const dialog = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    await within(dialog).findByTestId("proration-charge");
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const payDialog = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    await fillCard(user, payDialog, { number: "4000 0000 0000 0002" });
    await user.click(within(payDialog).getByRole("button", { name: "Pay $63.33" }));
    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    expect(within(toastItem("Plan Change Failed")).getByText("Your card was declined.")).toBeInTheDocument();
  });
});

describe("after subscribing", () => {
  it("reads the billing data and the profile at once and again 2 seconds later", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { requests, user } = await renderBilling({
      user: makeUser(),
      sub: FREE_SUB,
      usage: FREE_USAGE,
      fakeTimers: true,
      routes: {
        [PAYMENT_METHODS]: { body: { id: "pm_test_1", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 } },
        [SUBSCRIBE]: { body: { clientSecret: "pi_1_secret", paymentId: 9, amountCents: 3000, planType: "basic" } },
        [CONFIRM]: { body: { status: "succeeded" } },
      },
    });
    await plansShown();
    await screen.findByTestId("credit-history-table");
    await screen.findByTestId("payments-table");
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await fillCard(user, dialog);

    const reads = () => ({
      subscription: calls(requests, "GET", "/api/billing/subscription").length,
      usage: calls(requests, "GET", "/api/billing/metered-usage").length,
      credits: calls(requests, "GET", "/api/billing/credits/history?limit=10").length,
      payments: calls(requests, "GET", "/api/billing/payments?limit=10").length,
      profile: calls(requests, "GET", "/api/user/profile").length,
    });
    const before = reads();
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));
    expect(await screen.findByText("Subscription Created")).toBeInTheDocument();

    // At once: every read once more.
    const once = { subscription: before.subscription + 1, usage: before.usage + 1, credits: before.credits + 1, payments: before.payments + 1, profile: before.profile + 1 };
    await waitFor(() => expect(reads()).toEqual(once));

    // Not again before 2 seconds...
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1500);
    });
    expect(reads()).toEqual(once);

    // ...then once more.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(600);
    });
    const twice = { subscription: before.subscription + 2, usage: before.usage + 2, credits: before.credits + 2, payments: before.payments + 2, profile: before.profile + 2 };
    await waitFor(() => expect(reads()).toEqual(twice));
  });
});

describe("credit history", () => {
  it("shows the first 10 entries with signed amounts, and 'Show more' loads the next page", async () => {
    const first = [
      makeEntry(20, { description: "Basic plan credits", amount: 1000, balance: 1011, kind: "grant", createdAt: "2026-02-01T00:00:05Z" }),
      ...entriesFrom(19, 11),
    ];
    const { requests, user } = await renderBilling({
      credits: creditPage(first, 11),
      routes: { "GET /api/billing/credits/history?limit=10&before=11": { body: creditPage(entriesFrom(10, 6), null) } },
    });
    const table = await screen.findByTestId("credit-history-table");
    const rows = () => within(table).getAllByTestId("credit-row");
    expect(rows()).toHaveLength(10);
    const top = rows()[0]!;
    expect(top).toHaveTextContent("Feb 1, 2026");
    expect(top).toHaveTextContent("Basic plan credits");
    const grant = within(top).getByTestId("credit-amount");
    expect(grant).toHaveTextContent("+1,000");
    expect(grant.className).toContain("text-green");
    expect(top).toHaveTextContent("1,011");
    const spend = within(rows()[1]!).getByTestId("credit-amount");
    expect(spend).toHaveTextContent("\u22121");
    expect(spend.className).toContain("text-red");

    await user.click(screen.getByRole("button", { name: "Show more" }));
    await waitFor(() => expect(rows()).toHaveLength(15));
    expect(calls(requests, "GET", "/api/billing/credits/history?limit=10&before=11")).toHaveLength(1);
    expect(screen.queryByRole("button", { name: "Show more" })).not.toBeInTheDocument();
  });

  it("offers no 'Show more' when there is nothing older", async () => {
    await renderBilling();
    const table = await screen.findByTestId("credit-history-table");
    expect(within(table).getAllByTestId("credit-row")).toHaveLength(3);
    expect(screen.queryByRole("button", { name: "Show more" })).not.toBeInTheDocument();
  });
});

describe("payment history", () => {
  /** Stands in object URLs (jsdom has none) and catches the download link's click. */
  function catchDownloads() {
    const blobs: Blob[] = [];
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return "blob:receipt";
    });
    URL.revokeObjectURL = vi.fn();
    onTestFinished(() => {
      URL.createObjectURL = original.create;
      URL.revokeObjectURL = original.revoke;
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const names = () => click.mock.contexts.map((a) => (a as HTMLAnchorElement).download);
    return { blobs, click, names };
  }

  it("lists payments with plan, amount and status, and downloads a receipt with the session", async () => {
    const downloads = catchDownloads();
    const { requests, user } = await renderBilling({
      payments: paymentsPage([
        makePayment({ id: 8, kind: "upgrade", planType: "professional", description: "Upgrade to Professional (prorated)", amountCents: 6333, amount: 63.33 }),
        makePayment({ id: 7, status: "failed", failureMessage: "Your card was declined.", receiptUrl: "" }),
      ]),
      routes: { "GET /api/billing/payments/8/receipt": { body: "<html>receipt</html>" } },
    });
    const table = await screen.findByTestId("payments-table");
    const [upgrade, failed] = within(table).getAllByTestId("payment-row") as [HTMLElement, HTMLElement];
    expect(upgrade).toHaveTextContent("Feb 1, 2026");
    expect(upgrade).toHaveTextContent("Upgrade to Professional (prorated)");
    expect(upgrade).toHaveTextContent("Professional");
    expect(upgrade).toHaveTextContent("$63.33");
    expect(upgrade).toHaveTextContent("Paid");
    expect(failed).toHaveTextContent("Failed");
    expect(failed).toHaveTextContent("Your card was declined.");
    expect(within(failed).queryByRole("link", { name: /Receipt/ })).not.toBeInTheDocument();

    const link = within(upgrade).getByRole("link", { name: /Receipt/ });
    expect(link).toHaveAttribute("href", "/api/billing/payments/8/receipt");
    await user.click(link);
    expect(await screen.findByText("Download Started")).toBeInTheDocument();
    const read = calls(requests, "GET", "/api/billing/payments/8/receipt");
    expect(read).toHaveLength(1);
    expect(read[0]?.headers.Authorization).toBe("Bearer tok-1");
    expect(downloads.names()).toEqual(["receipt-8.html"]);
  });

  it("says so when a receipt cannot be downloaded", async () => {
    const downloads = catchDownloads();
    const { user } = await renderBilling({
      routes: { "GET /api/billing/payments/7/receipt": { status: 404, body: errorBody("Payment not found", { code: "not_found" }) } },
    });
    const table = await screen.findByTestId("payments-table");
    await user.click(within(table).getByRole("link", { name: /Receipt/ }));
    expect(await screen.findByText("Download Failed")).toBeInTheDocument();
    expect(downloads.click).not.toHaveBeenCalled();
  });
});
