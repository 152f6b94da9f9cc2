import { describe, expect, it } from "vitest";
import { formatResponseTime, plural, requestCount, requestsAMinute } from "./format";

describe("formatResponseTime", () => {
  it.each([
    [0, "<1 ms"],
    [0.4, "<1 ms"],
    [0.999, "<1 ms"],
    [1, "1 ms"],
    [1.4, "1 ms"],
    [142, "142 ms"],
    [182.4, "182 ms"],
    [1234, "1,234 ms"],
  ])("shows %d ms as %s", (ms, want) => {
    expect(formatResponseTime(ms)).toBe(want);
  });

  it("never shows 0 ms: a recorded 0 is a call under a millisecond", () => {
    expect(formatResponseTime(0)).not.toMatch(/^0 ms$/);
  });

  it.each([[undefined], [null], [Number.NaN], [Number.POSITIVE_INFINITY]])("shows %s as a dash", (ms) => {
    expect(formatResponseTime(ms)).toBe("—");
  });
});

describe("per-minute budgets (issue 33)", () => {
  it.each([
    [1, "1 request a minute"],
    [60, "60 requests a minute"],
    [0, "0 requests a minute"],
    [1000, "1,000 requests a minute"],
  ])("says %d as %s", (n, want) => {
    expect(requestsAMinute(n)).toBe(want);
  });

  it("counts requests with the one plural rule", () => {
    expect(requestCount(1)).toBe("1 request");
    expect(requestCount(60)).toBe("60 requests");
    expect(plural(1, "property", "properties")).toBe("property");
    expect(plural(2, "property", "properties")).toBe("properties");
  });
});
