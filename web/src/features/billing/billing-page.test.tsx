import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import type { BillingConfig, CreditHistory, MeteredUsage, PaymentHistory, Subscription, User } from "@/lib/types";
import { Header } from "@/app/shell/header";
import {
  dismissToasts,
  errorBody,
  makeBalance,
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
const UPDATE_CARD = "POST /api/billing/payment-method";
const withdrawRoute = (id: number) => `POST /api/billing/payments/${id}/cancel`;
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
  /** Renders the shell's header above the screen, to compare the balance it shows. */
  withHeader?: boolean;
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
  withHeader = false,
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
    "GET /healthz": { body: { status: "ok" } },
    ...routes,
  });
  const u = userEvent.setup(fakeTimers ? { advanceTimers: vi.advanceTimersByTime.bind(vi) } : {});
  renderWithProviders(
    <Routes>
      <Route
        path="/billing"
        element={
          <>
            {withHeader ? <Header onOpenMenu={() => {}} /> : null}
            <BillingPage />
          </>
        }
      />
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
    expect(await within(available).findByTestId("available-credits")).toHaveTextContent(/^1,234 credits$/);
    expect(within(available).getByText("left to spend")).toBeInTheDocument();

    const usage = screen.getByTestId("card-usage");
    expect(await within(usage).findByText("45%")).toBeInTheDocument();
    expect(within(usage).getByText("450 of 1,000 credits used")).toBeInTheDocument();
    expect(within(usage).getByRole("progressbar", { name: "Plan credits used this period" })).toHaveAttribute("aria-valuenow", "45");

    const plan = screen.getByTestId("card-current-plan");
    expect(await within(plan).findByText("Basic")).toBeInTheDocument();
    expect(within(plan).getByText("$30/month · 1,000 credits per month")).toBeInTheDocument();
    expect(within(plan).getByText("Renews on Mar 1, 2026")).toBeInTheDocument();
  });

  it("in overage on Basic: the header and the card say the same balance, and the banner says it keeps working", async () => {
    await renderBilling({
      withHeader: true,
      user: makeUser({ plan: "basic", credits: -10 }),
      usage: makeUsage({ creditsUsedThisPeriod: 1010, overageCredits: 10, balance: -10 }),
    });
    const card = await screen.findByTestId("available-credits");
    const header = screen.getByTestId("credits-balance");
    expect(card.textContent).toBe("0 credits · 10 overage ($0.30)");
    expect(header.textContent).toBe(card.textContent);
    expect(screen.getByTestId("balance-note")).toHaveTextContent("Plan credits used up: overage is billed with your next invoice");

    const banner = screen.getByTestId("low-balance-warning");
    expect(banner).toHaveAttribute("role", "status");
    expect(banner).toHaveTextContent("You are in overage at $0.03 a credit; raise your plan or set a limit.");
    expect(banner).not.toHaveTextContent("Choose a plan with more credits");

    expect(await within(screen.getByTestId("card-usage")).findByText("100%")).toBeInTheDocument();
    expect(screen.getByText("1,010 of 1,000 credits used")).toBeInTheDocument();
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
    expect(within(card).getByTestId("estimated-overage")).toHaveTextContent(/^\$3\.69$/);
    expect(within(card).getByTestId("plan-price")).toHaveTextContent(/^\$30$/);
    expect(within(card).getByTestId("upcoming-charge")).toHaveTextContent(/^\$33\.69$/);
    expect(within(card).getByText("Total upcoming charge")).toBeInTheDocument();
    expect(within(card).getByTestId("carried-credits")).toHaveTextContent(
      "120 credits carried over from last period expire at the end of this one, on Mar 1, 2026.",
    );
  });

  it("after cancelling shows one upcoming figure with its reason, and no plan price", async () => {
    const cancelled = makeUsage({ nextPlanType: "free", nextPlanPriceCents: 0, upcomingCharge: 0, upcomingChargeCents: 0, endsAt: PERIOD_END });
    await renderBilling({ sub: makeSubscription({ cancelAtPeriodEnd: true }), usage: cancelled });
    const card = screen.getByTestId("metered-usage-card");
    expect(await within(card).findByTestId("upcoming-charge")).toHaveTextContent(/^\$0: your plan ends on Mar 1, 2026$/);
    expect(within(card).queryByTestId("plan-price")).not.toBeInTheDocument();
    expect(within(card).queryByText(/Plan price/)).not.toBeInTheDocument();
  });

  it("after cancelling with overage used says the figure is overage only", async () => {
    await renderBilling({
      sub: makeSubscription({ cancelAtPeriodEnd: true }),
      usage: makeUsage({
        nextPlanType: "free",
        nextPlanPriceCents: 0,
        overageCredits: 10,
        estimatedOverageChargeCents: 30,
        upcomingChargeCents: 30,
        endsAt: PERIOD_END,
      }),
    });
    expect(await screen.findByTestId("upcoming-charge")).toHaveTextContent(/^\$0\.30: overage only; your plan ends on Mar 1, 2026$/);
  });

  it("after a scheduled downgrade prices the next period at the cheaper plan", async () => {
    await renderBilling({
      sub: makeSubscription({ planType: "professional", pendingPlanType: "basic" }),
      usage: makeUsage({ planType: "professional", nextPlanType: "basic", nextPlanPriceCents: 3000, upcomingChargeCents: 3000 }),
    });
    const card = screen.getByTestId("metered-usage-card");
    expect(await within(card).findByText("Plan price (Basic from Mar 1, 2026)")).toBeInTheDocument();
    expect(within(card).getByTestId("plan-price")).toHaveTextContent(/^\$30$/);
    expect(within(card).getByTestId("upcoming-charge")).toHaveTextContent(/^\$30$/);
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
  it("on Free under 50 credits says to upgrade and points at the plans", async () => {
    await renderBilling({ user: makeUser({ credits: 49 }), sub: FREE_SUB, usage: FREE_USAGE });
    const warning = await screen.findByTestId("low-balance-warning");
    expect(warning).toHaveAttribute("role", "status");
    expect(warning).toHaveTextContent("Low credit balance");
    expect(warning).toHaveTextContent("You have 49 credits left, under the 50-credit alert level. Upgrade to keep looking up.");
    await plansShown();
    await userEvent.click(within(warning).getByRole("button", { name: "View plans" }));
    expect(screen.getByRole("heading", { name: "Plans" })).toHaveFocus();
  });

  it("low on Basic says the plan keeps working in overage, up to the limit", async () => {
    const balance = makeBalance({ planType: "basic", credits: 12, overageLimitCents: 500, overageLeftCents: 500, state: "low" });
    await renderBilling({ user: makeUser({ plan: "basic", credits: 12, creditBalance: balance }) });
    expect(await screen.findByTestId("low-balance-warning")).toHaveTextContent(
      "You have 12 credits left, under the 50-credit alert level. Past zero your Basic plan keeps working at $0.03 a credit (overage) up to your $5 limit.",
    );
  });

  it("with the overage limit used up says calls are refused until the period ends, as an alert", async () => {
    const balance = makeBalance({
      planType: "basic",
      credits: 0,
      overageCredits: 167,
      overageCents: 501,
      overageLimitCents: 500,
      overageLeftCents: 0,
      state: "limit_reached",
    });
    await renderBilling({ user: makeUser({ plan: "basic", credits: -167, creditBalance: balance }) });
    const warning = await screen.findByTestId("low-balance-warning");
    expect(warning).toHaveAttribute("role", "alert");
    expect(warning).toHaveTextContent(
      "Your $5 overage limit is used up: lookups and API calls are refused until Mar 1, 2026. Raise the limit or your plan.",
    );
    expect(screen.getByTestId("available-credits")).toHaveTextContent("0 credits · 167 overage ($5.01)");
  });

  it("on an empty Free account says when the free credits renew", async () => {
    await renderBilling({ user: makeUser({ credits: 0 }), sub: FREE_SUB, usage: FREE_USAGE });
    expect(await screen.findByTestId("low-balance-warning")).toHaveTextContent(
      "You have no credits left. Upgrade to keep looking up; your free credits renew on Mar 1, 2026.",
    );
  });

  it("does not show while the balance is ok", async () => {
    await renderBilling({ user: makeUser({ credits: 50 }), sub: FREE_SUB, usage: FREE_USAGE });
    expect(await screen.findByTestId("available-credits")).toHaveTextContent(/^50 credits$/);
    await plansShown();
    expect(screen.queryByTestId("low-balance-warning")).not.toBeInTheDocument();
  });

  it("names the server's alert level", async () => {
    const balance = makeBalance({ credits: 80, state: "low" });
    await renderBilling({ user: makeUser({ credits: 80, creditBalance: balance }), sub: FREE_SUB, usage: FREE_USAGE, config: makeConfig({ lowBalance: 100 }) });
    expect(await screen.findByTestId("low-balance-warning")).toHaveTextContent("under the 100-credit alert level");
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

describe("updating the card on file", () => {
  const newCard = { id: "pm_new_card", brand: "mastercard", last4: "4444", expMonth: 3, expYear: 2031 };

  it("saves another card with the card form, toasts 'Card Updated' and shows it", async () => {
    const { requests, state, user } = await renderBilling({
      routes: {
        [PAYMENT_METHODS]: { body: newCard },
        [UPDATE_CARD]: () => {
          state.sub = makeSubscription({ paymentMethod: { brand: "mastercard", last4: "4444", expMonth: 3, expYear: 2031 } });
          return { body: state.sub };
        },
      },
    });
    const card = await screen.findByTestId("subscription-card");
    expect(within(card).getByTestId("payment-method")).toHaveTextContent("Visa •••• 4242");
    const open = within(card).getByRole("button", { name: "Update card" });
    await user.click(open);
    const dialog = await screen.findByRole("dialog", { name: "Update card" });
    expect(dialog).toHaveTextContent("Nothing is charged now.");
    await fillCard(user, dialog, { number: "5555 5555 5555 4444", expiry: "03/31" });
    await user.click(within(dialog).getByRole("button", { name: "Save card" }));

    expect(await screen.findByText("Card Updated")).toBeInTheDocument();
    expect(within(toastItem("Card Updated")).getByText("Mastercard •••• 4444 now pays your subscription.")).toBeInTheDocument();
    expect(posts(requests)).toEqual([
      { call: PAYMENT_METHODS, body: { number: "5555555555554444", expMonth: 3, expYear: 2031, cvc: "123", name: "Jane Doe" } },
      { call: UPDATE_CARD, body: { paymentMethodId: "pm_new_card" } },
    ]);
    await waitFor(() => expect(within(card).getByTestId("payment-method")).toHaveTextContent("Mastercard •••• 4444"));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(open).toHaveFocus());
  });

  it("shows the provider's refusal in the form and keeps the card typed", async () => {
    const { user } = await renderBilling({
      routes: {
        [PAYMENT_METHODS]: { body: { ...newCard, id: "pm_0341", brand: "visa", last4: "0341" } },
        [UPDATE_CARD]: { status: 402, body: errorBody("Your card was declined.", { code: "card_declined" }) },
      },
    });
    await user.click(await screen.findByRole("button", { name: "Update card" }));
    const dialog = await screen.findByRole("dialog", { name: "Update card" });
    await fillCard(user, dialog, { number: "4000 0000 0000 0341" });
    await user.click(within(dialog).getByRole("button", { name: "Save card" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Your card was declined.");
    expect(within(dialog).getByLabelText("Card number")).toHaveValue("4000 0000 0000 0341");
    expect(screen.queryByText("Card Updated")).not.toBeInTheDocument();
  });

  it("is not offered without a paid plan", async () => {
    await renderBilling({ user: makeUser(), sub: FREE_SUB, usage: FREE_USAGE });
    await screen.findByTestId("free-plan-note");
    expect(screen.queryByRole("button", { name: "Update card" })).not.toBeInTheDocument();
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
    expect(within(toastItem("Limit Updated")).getByText("Overage is now capped at $50 a billing period.")).toBeInTheDocument();
    expect(calls(requests, "PUT", "/api/user/overage-limit").map((r) => r.body)).toEqual([{ limit: 50 }]);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByTestId("overage-limit-value")).toHaveTextContent(/^\$50$/));
    // The profile is read again: its balance carries what is left of the limit.
    expect(calls(requests, "GET", "/api/user/profile").length).toBeGreaterThan(1);
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
    await waitFor(() => expect(screen.getByTestId("overage-limit-value")).toHaveTextContent("$40"));
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
    await waitFor(() => expect(screen.getByTestId("overage-limit-value")).toHaveTextContent("$40"));
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
    await waitFor(() => expect(screen.getByRole("button", { name: "Set Usage Limit" })).toHaveFocus());
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

  it("asks for the bank's authentication when the card needs it (4000 0025 0000 3155), then subscribes", async () => {
    const { requests, user } = await renderBilling(
      freeSetup({
        [PAYMENT_METHODS]: { body: { id: "pm_3ds", brand: "visa", last4: "3155", expMonth: 12, expYear: 2030 } },
        [SUBSCRIBE]: { body: { clientSecret: "pi_11_secret", paymentId: 11, amountCents: 3000, planType: "basic" } },
        [CONFIRM]: (req) =>
          (req.body as { authentication?: string }).authentication
            ? { body: { status: "succeeded", message: null } }
            : { body: { status: "requires_action", message: "Your bank asks you to authenticate this payment." } },
      }),
    );
    await plansShown();
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await fillCard(user, dialog, { number: "4000 0025 0000 3155" });
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));

    const auth = await screen.findByRole("dialog", { name: "Confirm the payment" });
    expect(auth).toHaveTextContent("Test mode: your bank asks you to confirm this payment of $30.");
    await user.click(within(auth).getByRole("button", { name: "Complete authentication" }));
    expect(await screen.findByText("Subscription Created")).toBeInTheDocument();
    expect(posts(requests).map((p) => p.call)).toEqual([PAYMENT_METHODS, SUBSCRIBE, CONFIRM, CONFIRM]);
    expect(posts(requests)[3]?.body).toEqual({ clientSecret: "pi_11_secret", authentication: "complete" });
    expect(calls(requests, "POST", "/api/billing/payments/11/cancel")).toHaveLength(0);
  });

  it("closing after a declined card withdraws the subscription's payment", async () => {
    const { requests, user } = await renderBilling(
      freeSetup({
        [PAYMENT_METHODS]: { body: { id: "pm_test_2", brand: "visa", last4: "0002", expMonth: 12, expYear: 2030 } },
        [SUBSCRIBE]: { body: { clientSecret: "pi_2_secret", paymentId: 10, amountCents: 3000, planType: "basic" } },
        [CONFIRM]: { status: 402, body: errorBody("Your card was declined.", { code: "card_declined" }) },
        [withdrawRoute(10)]: { body: makePayment({ id: 10, status: "failed", receiptUrl: null }) },
      }),
    );
    await plansShown();
    await user.click(planButton("basic"));
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    await fillCard(user, dialog, { number: "4000000000000002" });
    await user.click(within(dialog).getByRole("button", { name: "Subscribe for $30/month" }));
    expect(await screen.findByText("Subscription Failed")).toBeInTheDocument();
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Your card was declined.");

    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(calls(requests, "POST", "/api/billing/payments/10/cancel")).toHaveLength(1));
    await waitFor(() => expect(planButton("basic")).toHaveFocus());
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
    const { user } = await renderBilling({ ...freeSetup({}), route: "/billing?plan=basic" });
    const dialog = await screen.findByRole("dialog", { name: "Subscribe to Basic" });
    expect(within(dialog).getByLabelText("Card number")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/billing$/));
    // No button opened it: on close, focus goes to the plans' heading, not to the page's body.
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole("heading", { name: "Plans" })).toHaveFocus());
  });

  it("ignores an unknown plan in the link", async () => {
    await renderBilling({ ...freeSetup({}), route: "/billing?plan=platinum" });
    await plansShown();
    await waitFor(() => expect(screen.getByTestId("location")).toHaveTextContent(/^\/billing$/));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

describe("changing plan", () => {
  const upgradeTo = async (user: ReturnType<typeof userEvent.setup>, id = "professional", name = "Professional") => {
    await plansShown();
    await user.click(planButton(id));
    const dialog = await screen.findByRole("dialog", { name: `Upgrade to ${name}` });
    await within(dialog).findByTestId("proration-charge");
    return dialog;
  };
  const paidChange = makePlanChange({ paymentStatus: "succeeded", paymentId: 12 });
  const needsAuth = makePlanChange({
    paymentStatus: "requires_action",
    paymentId: 12,
    clientSecret: "pi_12_secret",
    message: "Your bank asks you to authenticate this payment.",
  });
  const declined = makePlanChange({
    paymentStatus: "requires_payment_method",
    paymentId: 12,
    clientSecret: "pi_12_secret",
    message: "Your card was declined.",
  });
  const card = { id: "pm_new", brand: "visa", last4: "3155", expMonth: 12, expYear: 2030 };

  it("upgrades in one click with the card on file: the charge, the card and the credits, no card form", async () => {
    const { requests, user } = await renderBilling({
      routes: { [prorationRoute("professional")]: { body: makePlanChange() }, [CHANGE]: { body: paidChange } },
    });
    const dialog = await upgradeTo(user);
    expect(within(dialog).getByTestId("plan-change-terms")).toHaveTextContent(
      "You pay $63.33 now with Visa •••• 4242, prorated for the rest of this billing period, and get 2,666 credits at once.",
    );
    expect(within(dialog).queryByLabelText("Card number")).not.toBeInTheDocument();
    expect(posts(requests)).toEqual([]);

    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(within(toastItem("Plan Updated")).getByText("You are now on the Professional plan.")).toBeInTheDocument();
    expect(posts(requests)).toEqual([{ call: CHANGE, body: { planType: "professional" } }]);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    // Focus goes back to the button that opened the dialog.
    await waitFor(() => expect(planButton("professional")).toHaveFocus());
  });

  it("sends one change for a double click", async () => {
    let answer!: (reply: { body: unknown }) => void;
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: () => new Promise((resolve) => (answer = resolve)),
      },
    });
    const dialog = await upgradeTo(user);
    await user.dblClick(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    // Unavailable while the change is sent (the second click is ignored), but it keeps focus.
    expect(within(dialog).getByRole("button", { name: "Processing..." })).toHaveAttribute("aria-disabled", "true");
    answer({ body: paidChange });
    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(calls(requests, "POST", "/api/billing/change-plan")).toHaveLength(1);
  });

  it("says so when the same upgrade is already being paid", async () => {
    const { user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: makePlanChange({ paymentStatus: "processing", paymentId: 12 }) },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    expect(await screen.findByText("Payment Processing")).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("when the bank asks to authenticate: the test mode's authentication step, then done", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: needsAuth },
        [CONFIRM]: { body: { status: "succeeded", message: null } },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const auth = await screen.findByRole("dialog", { name: "Confirm the payment" });
    expect(auth).toHaveTextContent("Test mode: your bank asks you to confirm this payment of $63.33.");
    expect(within(auth).getByTestId("authentication-message")).toHaveTextContent("Your bank asks you to authenticate this payment.");
    expect(within(auth).getByRole("button", { name: "Complete authentication" })).toHaveFocus();
    await user.click(within(auth).getByRole("button", { name: "Complete authentication" }));

    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(posts(requests)).toEqual([
      { call: CHANGE, body: { planType: "professional" } },
      { call: CONFIRM, body: { clientSecret: "pi_12_secret", authentication: "complete" } },
    ]);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(calls(requests, "POST", "/api/billing/payments/12/cancel")).toHaveLength(0);
  });

  it("a failed authentication offers the card form, and another card pays", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: needsAuth },
        [PAYMENT_METHODS]: { body: { ...card, id: "pm_other", last4: "4242" } },
        [CONFIRM]: (req) =>
          (req.body as { authentication?: string }).authentication === "fail"
            ? { status: 402, body: errorBody("We are unable to authenticate your payment method.", { code: "card_declined" }) }
            : { body: { status: "succeeded", message: null } },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const auth = await screen.findByRole("dialog", { name: "Confirm the payment" });
    await user.click(within(auth).getByRole("button", { name: "Fail authentication" }));

    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    const pay = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    expect(within(pay).getByRole("alert")).toHaveTextContent("We are unable to authenticate your payment method.");
    await fillCard(user, pay);
    await user.click(within(pay).getByRole("button", { name: "Pay $63.33" }));

    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(posts(requests).map((p) => p.call)).toEqual([CHANGE, CONFIRM, PAYMENT_METHODS, CONFIRM]);
    expect(posts(requests)[3]?.body).toEqual({ clientSecret: "pi_12_secret", paymentMethodId: "pm_other" });
  });

  it("when the card on file is declined: the provider's message and the card form; a card needing authentication goes on to it", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: declined },
        [PAYMENT_METHODS]: { body: card },
        [CONFIRM]: (req) =>
          (req.body as { authentication?: string }).authentication
            ? { body: { status: "succeeded", message: null } }
            : { body: { status: "requires_action", message: "Your bank asks you to authenticate this payment." } },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const pay = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    expect(within(pay).getByRole("alert")).toHaveTextContent("Your card was declined.");
    await fillCard(user, pay, { number: "4000 0025 0000 3155" });
    await user.click(within(pay).getByRole("button", { name: "Pay $63.33" }));

    const auth = await screen.findByRole("dialog", { name: "Confirm the payment" });
    await user.click(within(auth).getByRole("button", { name: "Complete authentication" }));
    expect(await screen.findByText("Plan Updated")).toBeInTheDocument();
    expect(posts(requests)).toEqual([
      { call: CHANGE, body: { planType: "professional" } },
      {
        call: PAYMENT_METHODS,
        body: { number: "4000002500003155", expMonth: 12, expYear: 2030, cvc: "123", name: "Jane Doe" },
      },
      { call: CONFIRM, body: { clientSecret: "pi_12_secret", paymentMethodId: "pm_new" } },
      { call: CONFIRM, body: { clientSecret: "pi_12_secret", authentication: "complete" } },
    ]);
  });

  it("closing the dialog while the payment is open withdraws it and reads the payments again", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: declined },
        [withdrawRoute(12)]: { body: makePayment({ id: 12, status: "failed", receiptUrl: null }) },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const pay = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    const reads = calls(requests, "GET", "/api/billing/payments?limit=10").length;
    await user.click(within(pay).getByRole("button", { name: "Cancel" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(calls(requests, "POST", "/api/billing/payments/12/cancel")).toHaveLength(1));
    await waitFor(() => expect(calls(requests, "GET", "/api/billing/payments?limit=10").length).toBeGreaterThan(reads));
    await waitFor(() => expect(planButton("professional")).toHaveFocus());
  });

  it("Escape at the authentication step withdraws the payment too, and ignores the server's refusal", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: needsAuth },
        [withdrawRoute(12)]: { status: 409, body: errorBody("This payment is no longer open.", { code: "conflict" }) },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    await screen.findByRole("dialog", { name: "Confirm the payment" });
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(calls(requests, "POST", "/api/billing/payments/12/cancel")).toHaveLength(1));
    expect(screen.queryByText("Error")).not.toBeInTheDocument();
  });

  it("a payment gone stale (409) says the server's words and starts over from the terms", async () => {
    const { requests, user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: needsAuth },
        [CONFIRM]: { status: 409, body: errorBody("This payment has expired; nothing was charged.", { code: "conflict" }) },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const auth = await screen.findByRole("dialog", { name: "Confirm the payment" });
    await user.click(within(auth).getByRole("button", { name: "Complete authentication" }));

    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    expect(within(toastItem("Plan Change Failed")).getByText("This payment has expired; nothing was charged.")).toBeInTheDocument();
    const again = await screen.findByRole("dialog", { name: "Upgrade to Professional" });
    // Closed on the server already: closing the dialog withdraws nothing.
    await user.click(within(again).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(calls(requests, "POST", "/api/billing/payments/12/cancel")).toHaveLength(0);
  });

  it("payments unavailable (503): the server's words, nothing charged, the dialog stays", async () => {
    const { user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: {
          status: 503,
          body: errorBody("Payments are unavailable right now; you were not charged. Try again in a few minutes.", { code: "unavailable" }),
        },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    expect(
      within(toastItem("Plan Change Failed")).getByText("Payments are unavailable right now; you were not charged. Try again in a few minutes."),
    ).toBeInTheDocument();
    expect(screen.getByRole("dialog", { name: "Upgrade to Professional" })).toBeInTheDocument();
  });

  it("downgrades at the period end without a card", async () => {
    const downgrade = makePlanChange({ planType: "basic", change: "downgrade", requiresPayment: false, paymentMethod: null, chargeCents: 0, credits: 0, effectiveAt: PERIOD_END });
    const { requests, user } = await renderBilling({
      sub: makeSubscription({ planType: "professional" }),
      routes: { [prorationRoute("basic")]: { body: downgrade }, [CHANGE]: { body: downgrade } },
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
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    expect(within(toastItem("Plan Change Failed")).getByText("A payment for this subscription is still pending")).toBeInTheDocument();
  });

  it("toasts 'Plan Change Failed' and keeps the card form when another card is declined too", async () => {
    const { user } = await renderBilling({
      routes: {
        [prorationRoute("professional")]: { body: makePlanChange() },
        [CHANGE]: { body: declined },
        [PAYMENT_METHODS]: { body: { ...card, id: "pm_bad", last4: "0002" } },
        [CONFIRM]: { status: 402, body: errorBody("Your card has insufficient funds.", { code: "card_declined" }) },
      },
    });
    const dialog = await upgradeTo(user);
    await user.click(within(dialog).getByRole("button", { name: "Confirm Upgrade" }));
    const pay = await screen.findByRole("dialog", { name: "Pay for the upgrade to Professional" });
    await fillCard(user, pay, { number: "4000 0000 0000 0002" });
    await user.click(within(pay).getByRole("button", { name: "Pay $63.33" }));
    expect(await screen.findByText("Plan Change Failed")).toBeInTheDocument();
    expect(within(toastItem("Plan Change Failed")).getByText("Your card has insufficient funds.")).toBeInTheDocument();
    await waitFor(() => expect(within(pay).getByRole("alert")).toHaveTextContent("Your card has insufficient funds."));
    expect(within(pay).getByLabelText("Card number")).toHaveValue("4000 0000 0000 0002");
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
      ]),
      routes: { "GET /api/billing/payments/8/receipt": { body: "<html>receipt</html>" } },
    });
    const table = await screen.findByTestId("payments-table");
    const [upgrade] = within(table).getAllByTestId("payment-row") as [HTMLElement];
    expect(upgrade).toHaveTextContent("Feb 1, 2026");
    expect(upgrade).toHaveTextContent("Upgrade to Professional (prorated)");
    expect(upgrade).toHaveTextContent("Professional");
    expect(upgrade).toHaveTextContent("$63.33");
    expect(upgrade).toHaveTextContent("Paid");

    const link = within(upgrade).getByRole("link", { name: /Receipt/ });
    expect(link).toHaveAttribute("href", "/api/billing/payments/8/receipt");
    await user.click(link);
    expect(await screen.findByText("Download Started")).toBeInTheDocument();
    const read = calls(requests, "GET", "/api/billing/payments/8/receipt");
    expect(read).toHaveLength(1);
    expect(read[0]?.headers.Authorization).toBe("Bearer tok-1");
    expect(downloads.names()).toEqual(["receipt-8.html"]);
  });

  it("gives every payment a status, a receipt only where money moved, and the reason a payment closed", async () => {
    const noReceipt = { receiptUrl: null };
    await renderBilling({
      payments: paymentsPage([
        makePayment({ id: 9, status: "pending", open: true, expiresAt: "2026-02-11T09:05:00Z", ...noReceipt }),
        makePayment({ id: 8, status: "failed", open: true, failureMessage: "Your card was declined.", ...noReceipt }),
        makePayment({ id: 7, status: "cancelled", failureMessage: "Closed by the customer before it was paid.", ...noReceipt }),
        makePayment({ id: 6, status: "expired", failureMessage: "Not paid within 24 hours.", ...noReceipt }),
        makePayment({ id: 5, status: "refunded" }),
        makePayment({ id: 4, status: "invoiced", kind: "overage", ...noReceipt }),
        makePayment({ id: 3, status: "succeeded", amountCents: 12500, amount: 125 }),
      ]),
    });
    const table = await screen.findByTestId("payments-table");
    const rows = within(table).getAllByTestId("payment-row");
    const status = (row: HTMLElement) => within(row).getByText(/^(Paid|Declined|Expired|Refunded|Cancelled|Pending|Invoiced)$/).textContent;
    expect(rows.map(status)).toEqual(["Pending", "Declined", "Cancelled", "Expired", "Refunded", "Invoiced", "Paid"]);
    const withReceipt = rows.filter((r) => within(r).queryByRole("link", { name: /Receipt/ }) !== null).map(status);
    expect(withReceipt).toEqual(["Refunded", "Paid"]);
    expect(within(rows[0]!).getByText("No receipt")).toBeInTheDocument();

    expect(rows[0]).toHaveTextContent("Awaiting payment; expires Feb 11, 2026, 09:05 UTC");
    expect(rows[1]).toHaveTextContent("Your card was declined.");
    expect(rows[2]).toHaveTextContent("Closed by the customer before it was paid.");
    expect(rows[3]).toHaveTextContent("Not paid within 24 hours.");
    expect(rows[6]).toHaveTextContent("$125");
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
