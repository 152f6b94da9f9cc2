import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api";
import { makeBalance } from "@/test/utils";
import {
  CardFieldError,
  INVALID_LIMIT,
  PAYMENTS_UNAVAILABLE,
  PaymentProviderError,
  attachmentFileName,
  balanceAdvice,
  cardDigits,
  cardFieldOf,
  failureText,
  formatCard,
  formatCardBrand,
  formatCardNumberInput,
  formatCreditRate,
  formatDate,
  formatDateTime,
  formatExpiryInput,
  formatOverageLimit,
  formatRateCap,
  formatSignedCredits,
  hasPaidPlan,
  isCardDeclined,
  isPaidPlanId,
  isStalePayment,
  overageLimitMax,
  overageLimitText,
  paidPlans,
  parseExpiry,
  parseOverageLimit,
  planAction,
  planName,
  receiptFileName,
  testCardSchema,
  upcomingCharge,
  usagePercent,
} from "./billing-helpers";
import { PERIOD_END, PLANS, makeUsage } from "./test-fixtures";

const plan = (id: string) => PLANS.find((p) => p.id === id)!;

describe("money and numbers", () => {
  it.each([
    [formatCreditRate(0.03), "$0.0300"],
    [formatCreditRate(0.0275), "$0.0275"],
    [formatCreditRate(0), "$0.0000"],
    [formatSignedCredits(1000), "+1,000"],
    [formatSignedCredits(-5), "\u22125"],
    [formatSignedCredits(0), "0"],
    [formatRateCap(60), "60 requests/min"],
    [formatRateCap(1), "1 request/min"],
    [formatRateCap(0), "Unlimited"],
  ])("%s is %s", (got, want) => {
    expect(got).toBe(want);
  });

  it("writes dates in UTC", () => {
    expect(formatDate("2026-03-01T00:00:00Z")).toBe("Mar 1, 2026");
    expect(formatDate("2026-02-28T23:59:59Z")).toBe("Feb 28, 2026");
    expect(formatDate("not a date")).toBe("not a date");
    expect(formatDateTime("2026-02-11T09:05:00Z")).toBe("Feb 11, 2026, 09:05 UTC");
    expect(formatDateTime("not a date")).toBe("not a date");
  });

  it("names card brands and plans", () => {
    expect(formatCardBrand("visa")).toBe("Visa");
    expect(formatCardBrand("amex")).toBe("American Express");
    expect(formatCardBrand("")).toBe("Card");
    expect(formatCardBrand("elo")).toBe("Elo");
    expect(formatCard({ brand: "visa", last4: "4242" })).toBe("Visa \u2022\u2022\u2022\u2022 4242");
    expect(planName("professional", PLANS)).toBe("Professional");
    expect(planName("starter")).toBe("Starter");
    expect(planName(null)).toBe("");
  });
});

describe("balance and usage", () => {
  it("is a whole percent of the plan's credits, capped at 100", () => {
    expect(usagePercent(450, 1000)).toBe(45);
    expect(usagePercent(1, 3)).toBe(33);
    expect(usagePercent(1000, 1000)).toBe(100);
    expect(usagePercent(1500, 1000)).toBe(100);
    expect(usagePercent(0, 1000)).toBe(0);
    expect(usagePercent(10, 0)).toBe(0);
    expect(usagePercent(-5, 100)).toBe(0);
  });

});

describe("the balance banner's advice", () => {
  const basic = { planName: "Basic", threshold: 50, periodEnd: PERIOD_END };
  const free = { planName: "Free", threshold: 50, periodEnd: PERIOD_END };

  it("says nothing while the balance is ok", () => {
    expect(balanceAdvice(makeBalance({ credits: 80 }), free)).toBeNull();
  });

  it("low on Free: upgrade", () => {
    expect(balanceAdvice(makeBalance({ credits: 12 }), free)).toEqual({
      title: "Low credit balance",
      text: "You have 12 credits left, under the 50-credit alert level. Upgrade to keep looking up.",
      blocking: false,
    });
    expect(balanceAdvice(makeBalance({ credits: 1 }), free)?.text).toMatch(/^You have 1 credit left,/);
  });

  it("low on a paid plan: it keeps working in overage, up to the limit if one is set", () => {
    const low = makeBalance({ planType: "basic", credits: 12 });
    expect(balanceAdvice(low, basic)?.text).toBe(
      "You have 12 credits left, under the 50-credit alert level. Past zero your Basic plan keeps working at $0.03 a credit (overage).",
    );
    expect(balanceAdvice({ ...low, overageLimitCents: 500, overageLeftCents: 500 }, basic)?.text).toBe(
      "You have 12 credits left, under the 50-credit alert level. Past zero your Basic plan keeps working at $0.03 a credit (overage) up to your $5 limit.",
    );
    expect(balanceAdvice(low, basic)?.blocking).toBe(false);
  });

  it("overage: the rate, and what is left of a limit", () => {
    const overage = makeBalance({ planType: "basic", credits: 0, overageCredits: 10 });
    expect(balanceAdvice(overage, basic)).toEqual({
      title: "Using overage credits",
      text: "You are in overage at $0.03 a credit; raise your plan or set a limit.",
      blocking: false,
    });
    expect(balanceAdvice({ ...overage, overageLimitCents: 500, overageLeftCents: 470 }, basic)?.text).toBe(
      "You are in overage at $0.03 a credit; raise your plan or the limit. $4.70 of your $5 limit left.",
    );
  });

  it("limit reached: refused until the period ends", () => {
    const reached = makeBalance({
      planType: "basic",
      credits: 0,
      overageCredits: 167,
      overageLimitCents: 500,
      overageLeftCents: 0,
      state: "limit_reached",
    });
    expect(balanceAdvice(reached, basic)).toEqual({
      title: "Overage limit reached",
      text: "Your $5 overage limit is used up: lookups and API calls are refused until Mar 1, 2026. Raise the limit or your plan.",
      blocking: true,
    });
  });

  it("empty on Free: upgrade, or wait for the renewal", () => {
    expect(balanceAdvice(makeBalance({ credits: 0 }), free)).toEqual({
      title: "No credits left",
      text: "You have no credits left. Upgrade to keep looking up; your free credits renew on Mar 1, 2026.",
      blocking: true,
    });
    expect(balanceAdvice(makeBalance({ credits: 0 }), { ...free, periodEnd: null })?.text).toBe(
      "You have no credits left. Upgrade to keep looking up; your free credits renew at the end of the billing period.",
    );
  });
});

describe("the upcoming charge", () => {
  it("is the plan price plus overage while the plan renews", () => {
    expect(upcomingCharge(makeUsage({ upcomingChargeCents: 3030 }), PLANS)).toEqual({
      planPrice: { label: "Plan price", value: "$30" },
      total: "$30.30",
    });
  });

  it("names the cheaper plan of a scheduled downgrade and from when", () => {
    const usage = makeUsage({ planType: "professional", nextPlanType: "basic", nextPlanPriceCents: 3000, upcomingChargeCents: 3000 });
    expect(upcomingCharge(usage, PLANS)).toEqual({
      planPrice: { label: "Plan price (Basic from Mar 1, 2026)", value: "$30" },
      total: "$30",
    });
  });

  it("after a cancellation is one figure with its reason", () => {
    const cancelled = makeUsage({ nextPlanType: "free", nextPlanPriceCents: 0, upcomingChargeCents: 0, endsAt: PERIOD_END });
    expect(upcomingCharge(cancelled, PLANS)).toEqual({ planPrice: null, total: "$0: your plan ends on Mar 1, 2026" });
    expect(upcomingCharge({ ...cancelled, upcomingChargeCents: 30 }, PLANS)).toEqual({
      planPrice: null,
      total: "$0.30: overage only; your plan ends on Mar 1, 2026",
    });
  });
});

describe("plan buttons", () => {
  it("offers Get Started on every plan without a paid plan", () => {
    for (const id of ["basic", "professional", "enterprise"]) {
      expect(planAction(plan(id), null, false)).toEqual({ kind: "subscribe", label: "Get Started", disabled: false });
    }
  });

  it("disables the current plan, offers Choose on dearer plans and Switch to on cheaper ones", () => {
    const pro = plan("professional");
    expect(planAction(pro, pro, true)).toEqual({ kind: "current", label: "Current Plan", disabled: true });
    expect(planAction(plan("enterprise"), pro, true)).toEqual({ kind: "upgrade", label: "Choose Enterprise", disabled: false });
    expect(planAction(plan("basic"), pro, true)).toEqual({ kind: "downgrade", label: "Switch to Basic", disabled: false });
  });

  it("counts only active and past-due subscriptions as a paid plan", () => {
    expect(hasPaidPlan({ planType: "basic", status: "active" })).toBe(true);
    expect(hasPaidPlan({ planType: "basic", status: "past_due" })).toBe(true);
    expect(hasPaidPlan({ planType: "basic", status: "incomplete" })).toBe(false);
    expect(hasPaidPlan({ planType: "basic", status: "canceled" })).toBe(false);
    expect(hasPaidPlan({ planType: "free", status: "none" })).toBe(false);
    expect(hasPaidPlan(undefined)).toBe(false);
  });

  it("lists the paid plans cheapest first and knows their ids", () => {
    expect(paidPlans([...PLANS].reverse()).map((p) => p.id)).toEqual(["basic", "professional", "enterprise"]);
    expect(isPaidPlanId("basic")).toBe(true);
    expect(isPaidPlanId("free")).toBe(false);
    expect(isPaidPlanId(null)).toBe(false);
  });
});

describe("the overage limit", () => {
  it.each([
    ["", null],
    ["   ", null],
    ["50", 50],
    ["0", 0],
    ["12.5", 12.5],
    ["$75", 75],
    [" 1000.00 ", 1000],
    ["0.125", 0.13],
    [".5", 0.5],
  ])("reads %j as %j", (text, limit) => {
    expect(parseOverageLimit(text)).toEqual({ ok: true, limit });
  });

  it.each(["abc", "-5", "-0.01", "1e3", "0x10", "12,5", "5 dollars", "Infinity", "NaN"])("refuses %j", (text) => {
    expect(parseOverageLimit(text)).toEqual({ ok: false, message: INVALID_LIMIT });
  });

  it("states ten times the plan price, 1000.00 without a plan", () => {
    expect(overageLimitMax(30)).toBe("300.00");
    expect(overageLimitMax(125)).toBe("1250.00");
    expect(overageLimitMax(0)).toBe("1000.00");
    expect(overageLimitMax(null)).toBe("1000.00");
  });

  it("shows the limit or No limit", () => {
    expect(formatOverageLimit(null)).toBe("No limit");
    expect(formatOverageLimit(50)).toBe("$50");
    expect(formatOverageLimit(12.5)).toBe("$12.50");
    expect(formatOverageLimit(0.07)).toBe("$0.07");
    expect(overageLimitText(null)).toBe("");
    expect(overageLimitText(12.5)).toBe("12.50");
  });
});

describe("the test-mode card form", () => {
  it("reads expiry dates", () => {
    expect(parseExpiry("12/30")).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry("1/2031")).toEqual({ month: 1, year: 2031 });
    expect(parseExpiry(" 07 / 29 ")).toEqual({ month: 7, year: 2029 });
    expect(parseExpiry("13/30")).toBeNull();
    expect(parseExpiry("00/30")).toBeNull();
    expect(parseExpiry("1230")).toBeNull();
  });

  it("formats the inputs as they are typed", () => {
    expect(formatCardNumberInput("4242424242424242")).toBe("4242 4242 4242 4242");
    expect(formatCardNumberInput("4242 42")).toBe("4242 42");
    expect(formatCardNumberInput("4242-4242-x")).toBe("4242 4242");
    expect(formatExpiryInput("1230")).toBe("12/30");
    expect(formatExpiryInput("12/")).toBe("12");
    expect(formatExpiryInput("1")).toBe("1");
    expect(cardDigits("4242 4242-4242 4242")).toBe("4242424242424242");
  });

  it("checks the card's shape and sends digits and numbers", () => {
    expect(testCardSchema.parse({ number: "4242 4242 4242 4242", expiry: "12/30", cvc: "123", name: " Jane " })).toEqual({
      number: "4242424242424242",
      expiry: { month: 12, year: 2030 },
      cvc: "123",
      name: "Jane",
    });
    const bad = testCardSchema.safeParse({ number: "4242", expiry: "99/99", cvc: "12", name: "" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path[0]).sort()).toEqual(["cvc", "expiry", "number"]);
  });

  it("maps the server's card fields to the form's", () => {
    expect(cardFieldOf("number")).toBe("number");
    expect(cardFieldOf("expMonth")).toBe("expiry");
    expect(cardFieldOf("expYear")).toBe("expiry");
    expect(cardFieldOf("cvc")).toBe("cvc");
    expect(cardFieldOf("planType")).toBeNull();
    expect(cardFieldOf(undefined)).toBeNull();
  });
});

describe("failure texts", () => {
  it("uses the provider's or the server's sentence, else the fallback", () => {
    const declined = new ApiError(402, JSON.stringify({ error: "Your card was declined.", code: "card_declined", requestId: "r" }));
    expect(failureText(declined, "fallback")).toBe("Your card was declined.");
    expect(failureText(new PaymentProviderError("Your card has expired."), "fallback")).toBe("Your card has expired.");
    expect(failureText(new CardFieldError("cvc", "Your card's security code is incorrect."), "fallback")).toBe(
      "Your card's security code is incorrect.",
    );
    expect(failureText(new ApiError(502, "<html>Bad gateway</html>"), "fallback")).toBe("fallback");
    expect(failureText(new Error("boom"), "fallback")).toBe("fallback");
  });

  it("says nothing was charged on a 503, in the server's words or its own", () => {
    const unavailable = JSON.stringify({ error: "Payments are down", code: "unavailable", requestId: "r" });
    expect(failureText(new ApiError(503, unavailable), "fallback")).toBe("Payments are down");
    expect(failureText(new ApiError(503, "Service Unavailable"), "fallback")).toBe(PAYMENTS_UNAVAILABLE);
  });

  it("tells a stale payment (409) and a declined card (402) apart", () => {
    expect(isStalePayment(new ApiError(409, "{}"))).toBe(true);
    expect(isStalePayment(new ApiError(402, "{}"))).toBe(false);
    expect(isCardDeclined(new ApiError(402, "{}"))).toBe(true);
    expect(isCardDeclined(new PaymentProviderError("declined"))).toBe(false);
  });
});

describe("receipt file names", () => {
  it("takes the server's name, else receipt-{id}.html", () => {
    expect(attachmentFileName('attachment; filename="receipt-2026-02-01.html"')).toBe("receipt-2026-02-01.html");
    expect(attachmentFileName("attachment; filename*=UTF-8''re%C3%A7u.html")).toBe("reçu.html");
    expect(attachmentFileName('attachment; filename="../../etc/passwd"')).toBe("passwd");
    expect(attachmentFileName(null)).toBeNull();
    expect(receiptFileName(8, null)).toBe("receipt-8.html");
    expect(receiptFileName(8, 'attachment; filename="r.html"')).toBe("r.html");
  });
});
