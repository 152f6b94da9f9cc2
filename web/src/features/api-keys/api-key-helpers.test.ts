import { describe, expect, it } from "vitest";
import {
  NAME_REQUIRED,
  NAME_RESERVED,
  RATE_LIMIT_INVALID,
  defaultRateLimit,
  formatKeyDate,
  formatRateLimit,
  generateKeySchema,
  planCapNote,
  planCapsSummary,
  planRateLimitLine,
  PLANS,
  PLAN_LABELS,
  PLAN_RATE_CAPS,
  DEFAULT_RATE_LIMIT,
} from "./api-key-helpers";
import { GENERATED_VALUATION } from "@/lib/generated-example";
import { curlExample, fetchExample } from "./docs-examples";

describe("generateKeySchema", () => {
  it.each([
    ["1", 1],
    ["100", 100],
    ["1000", 1000],
    [" 250 ", 250],
    ["0100", 100],
  ])("accepts the rate limit %j as the integer %d", (rateLimit, want) => {
    const got = generateKeySchema.safeParse({ name: " Production ", rateLimit });
    expect(got.success).toBe(true);
    expect(got.data).toEqual({ name: "Production", rateLimit: want });
  });

  it.each(["0", "1001", "1.5", "-5", "1e3", "", "abc"])("refuses the rate limit %j", (rateLimit) => {
    const got = generateKeySchema.safeParse({ name: "Production", rateLimit });
    expect(got.success).toBe(false);
    expect(got.error?.issues.map((i) => i.message)).toContain(RATE_LIMIT_INVALID);
  });

  it.each(["", "   ", "\t"])("refuses the name %j", (name) => {
    const got = generateKeySchema.safeParse({ name, rateLimit: "100" });
    expect(got.error?.issues.map((i) => i.message)).toEqual([NAME_REQUIRED]);
  });

  it.each(["dashboard", " Dashboard ", "DASHBOARD"])("refuses the reserved name %j", (name) => {
    const got = generateKeySchema.safeParse({ name, rateLimit: "100" });
    expect(got.error?.issues.map((i) => i.message)).toEqual([NAME_RESERVED]);
  });

  it("refuses a name over 100 characters", () => {
    expect(generateKeySchema.safeParse({ name: "x".repeat(100), rateLimit: "100" }).success).toBe(true);
    expect(generateKeySchema.safeParse({ name: "x".repeat(101), rateLimit: "100" }).success).toBe(false);
  });
});

describe("defaultRateLimit", () => {
  it.each([
    ["free", 60],
    ["basic", 60],
    ["professional", 120],
    ["enterprise", 100],
  ] as const)("starts a %s key at %i a minute", (plan, limit) => {
    expect(defaultRateLimit(plan)).toBe(limit);
  });
});

describe("formatting", () => {
  it("shows the plan's lower limit beside the key's own", () => {
    expect(formatRateLimit({ rateLimit: 100, effectiveRateLimit: 100 })).toBe("100/min");
    expect(formatRateLimit({ rateLimit: 30, effectiveRateLimit: 30 })).toBe("30/min");
    expect(formatRateLimit({ rateLimit: 500, effectiveRateLimit: 120 })).toBe("500/min (120/min on your plan)");
  });

  it("shows dates in UTC and a never-used key as 'Never'", () => {
    expect(formatKeyDate("2026-01-21T23:59:00Z")).toBe("Jan 21, 2026");
    expect(formatKeyDate(null)).toBe("Never");
  });

  it("states each plan's cap", () => {
    expect(planCapNote("free")).toContain("Your Free plan caps every key at 60 requests a minute");
    expect(planCapNote("basic")).toContain("Your Basic plan caps every key at 60 requests a minute");
    expect(planCapNote("professional")).toContain("Your Professional plan caps every key at 120 requests a minute");
    expect(planCapNote("enterprise")).toContain("Your Enterprise plan has no cap");
  });
});

describe("the rate limits the documentation states", () => {
  // Read back from the text, so that a sentence written by hand ("100 by default") that disagrees with the plan
  // table fails here.
  it.each(PLANS)("states plan %s's cap and the limit a new key gets, as the plan table has them", (plan) => {
    const line = planRateLimitLine(plan);
    expect(line.startsWith(`${PLAN_LABELS[plan]}: `)).toBe(true);
    const cap = PLAN_RATE_CAPS[plan];
    if (cap === null) expect(line).toContain("no cap");
    else expect(Number(/at most (\d+) requests a minute/.exec(line)?.[1])).toBe(cap);
    expect(Number(/a new key starts at (\d+)/.exec(line)?.[1])).toBe(defaultRateLimit(plan));
  });

  it("says a cap of 1 in the singular (issue 33)", () => {
    const caps = { ...PLAN_RATE_CAPS, free: 1 };
    expect(planRateLimitLine("free", caps)).toBe(
      "Free: at most 1 request a minute per key (and for all of an account's keys together); a new key starts at 1.",
    );
  });

  it("gives a new key its plan's cap, and DEFAULT_RATE_LIMIT only on a plan without one", () => {
    for (const plan of PLANS) expect(defaultRateLimit(plan)).toBe(PLAN_RATE_CAPS[plan] ?? DEFAULT_RATE_LIMIT);
  });

  it("sums the caps up from the table, naming plans with the same cap together", () => {
    expect(planCapsSummary()).toBe("Free and Basic 60, Professional 120, Enterprise uncapped");
    expect(planCapsSummary({ free: 10, basic: 20, professional: 20, enterprise: 20 })).toBe(
      "Free 10, Basic, Professional and Enterprise 20",
    );
    const summary = planCapsSummary();
    for (const plan of PLANS) {
      const cap = PLAN_RATE_CAPS[plan];
      expect(summary).toMatch(new RegExp(`${PLAN_LABELS[plan]}[^,]* ${cap === null ? "uncapped" : cap}(,|$)`));
    }
  });
});

describe("documentation samples", () => {
  it("builds a GET curl call with the query in the URL and the key in the header", () => {
    const curl = curlExample("https://valuator.example", "vk_live_abc");
    expect(curl).toContain('curl -G "https://valuator.example/api/v1/property/valuation"');
    expect(curl).toContain('-H "x-api-key: vk_live_abc"');
    expect(curl).not.toMatch(/-X POST|--data |-d /);
    expect(curlExample("https://valuator.example", null)).toContain('-H "x-api-key: YOUR_API_KEY"');
  });

  it("builds a fetch call without a body", () => {
    const js = fetchExample("https://valuator.example");
    expect(js).toContain("https://valuator.example/api/v1/property/valuation?${params}");
    expect(js).not.toMatch(/method:\s*"POST"|body:/);
  });

  it("gives an example whose range holds the estimate", () => {
    const v = GENERATED_VALUATION.valuation;
    expect(v.low).toBeLessThan(v.estimatedValue);
    expect(v.high).toBeGreaterThan(v.estimatedValue);
    expect(v.confidence).toBeGreaterThan(0);
    expect(v.confidence).toBeLessThanOrEqual(1);
  });
});
