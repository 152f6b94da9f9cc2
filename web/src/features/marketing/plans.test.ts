import { describe, expect, it } from "vitest";
import { ALL_PLANS, batchLimitLine, nextPlan, planById } from "./plans";

describe("the plan table", () => {
  it("promises only support channels that exist: email, never chat or phone", () => {
    expect(ALL_PLANS.map((p) => p.support)).toEqual([
      "Help Center & email",
      "Email support",
      "Priority email support",
      "Priority email & a dedicated account manager",
    ]);
    for (const p of ALL_PLANS) expect(p.support).not.toMatch(/chat|phone/i);
  });

  it("holds every plan in order of batch size, so 'the next plan' is always a bigger one", () => {
    expect(ALL_PLANS.map((p) => p.id)).toEqual(["free", "basic", "professional", "enterprise"]);
    expect(ALL_PLANS.map((p) => p.batchSize)).toEqual([100, 1_000, 10_000, 50_000]);
  });

  it.each([
    ["free", "free"],
    ["basic", "basic"],
    ["enterprise", "enterprise"],
    [undefined, "free"],
    [null, "free"],
    ["platinum", "free"],
    ["toString", "free"],
  ] as const)("finds plan %s as %s (an unknown plan is Free)", (id, want) => {
    expect(planById(id).id).toBe(want);
  });

  it("offers the plan after each one, none after the top plan", () => {
    expect(ALL_PLANS.map((p) => nextPlan(p)?.id ?? null)).toEqual(["basic", "professional", "enterprise", null]);
  });
});

describe("batchLimitLine", () => {
  it.each([
    ["free", "Your Free plan: up to 100 properties per upload (Basic: 1,000)"],
    ["basic", "Your Basic plan: up to 1,000 properties per upload (Professional: 10,000)"],
    ["professional", "Your Professional plan: up to 10,000 properties per upload (Enterprise: 50,000)"],
    ["enterprise", "Your Enterprise plan: up to 50,000 properties per upload"],
    [undefined, "Your Free plan: up to 100 properties per upload (Basic: 1,000)"],
  ] as const)("words plan %s's limit with the next plan's", (plan, want) => {
    expect(batchLimitLine(plan)).toBe(want);
  });

  it("prefers the limit the server stated for the user's plan", () => {
    expect(batchLimitLine("basic", 2_500)).toBe("Your Basic plan: up to 2,500 properties per upload (Professional: 10,000)");
  });
});
