import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api";
import {
  CardFieldError,
  INVALID_LIMIT,
  PaymentProviderError,
  attachmentFileName,
  balanceView,
  cardDigits,
  cardFieldOf,
  failureText,
  formatCardBrand,
  formatCardNumberInput,
  formatCents,
  formatCredits,
  formatDate,
  formatDollars,
  formatDollars4,
  formatExpiryInput,
  formatOverageLimit,
  formatPlanPrice,
  formatRateCap,
  formatSignedCredits,
  hasPaidPlan,
  isLowBalance,
  isPaidPlanId,
  overageLimitMax,
  overageLimitText,
  paidPlans,
  parseExpiry,
  parseOverageLimit,
  planAction,
  planName,
  receiptFileName,
  testCardSchema,
  usagePercent,
} from "./billing-helpers";
import { PLANS } from "./test-fixtures";

const plan = (id: string) => PLANS.find((p) => p.id === id)!;

describe("money and numbers", () => {
  it.each([
    [formatPlanPrice(3000), "$30"],
    [formatPlanPrice(12500), "$125"],
    [formatPlanPrice(0), "$0"],
    [formatCents(6333), "$63.33"],
    [formatCents(123456), "$1,234.56"],
    [formatDollars(33.69), "$33.69"],
    [formatDollars(30), "$30.00"],
    [formatDollars4(0.03), "$0.0300"],
    [formatDollars4(3.69), "$3.6900"],
    [formatDollars4(0), "$0.0000"],
    [formatCredits(1), "1 credit"],
    [formatCredits(1000), "1,000 credits"],
    [formatSignedCredits(1000), "+1,000"],
    [formatSignedCredits(-5), "\u22125"],
    [formatSignedCredits(0), "0"],
    [formatRateCap(60), "60 requests/min"],
    [formatRateCap(0), "Unlimited"],
  ])("%s is %s", (got, want) => {
    expect(got).toBe(want);
  });

  it("writes dates in UTC", () => {
    expect(formatDate("2026-03-01T00:00:00Z")).toBe("Mar 1, 2026");
    expect(formatDate("2026-02-28T23:59:59Z")).toBe("Feb 28, 2026");
    expect(formatDate("not a date")).toBe("not a date");
  });

  it("names card brands and plans", () => {
    expect(formatCardBrand("visa")).toBe("Visa");
    expect(formatCardBrand("amex")).toBe("American Express");
    expect(formatCardBrand("")).toBe("Card");
    expect(formatCardBrand("elo")).toBe("Elo");
    expect(planName("professional", PLANS)).toBe("Professional");
    expect(planName("starter")).toBe("Starter");
    expect(planName(null)).toBe("");
  });
});

describe("balance and usage", () => {
  it("shows a negative balance as 0 available and the overage used", () => {
    expect(balanceView(250)).toEqual({ available: 250, overageUsed: 0 });
    expect(balanceView(0)).toEqual({ available: 0, overageUsed: 0 });
    expect(balanceView(-123)).toEqual({ available: 0, overageUsed: 123 });
  });

  it("is a whole percent of the plan's credits, capped at 100", () => {
    expect(usagePercent(450, 1000)).toBe(45);
    expect(usagePercent(1, 3)).toBe(33);
    expect(usagePercent(1000, 1000)).toBe(100);
    expect(usagePercent(1500, 1000)).toBe(100);
    expect(usagePercent(0, 1000)).toBe(0);
    expect(usagePercent(10, 0)).toBe(0);
    expect(usagePercent(-5, 100)).toBe(0);
  });

  it("warns under the threshold, not at it", () => {
    expect(isLowBalance(49)).toBe(true);
    expect(isLowBalance(50)).toBe(false);
    expect(isLowBalance(-10)).toBe(true);
    expect(isLowBalance(99, 100)).toBe(true);
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
    expect(formatOverageLimit(50)).toBe("$50.00");
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
