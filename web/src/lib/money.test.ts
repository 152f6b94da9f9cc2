import { describe, expect, it } from "vitest";
import { formatMoney } from "./money";

describe("formatMoney", () => {
  it.each([
    [12500, "$125"],
    [0, "$0"],
    [120000, "$1,200"],
    [7499, "$74.99"],
    [30, "$0.30"],
    [6333, "$63.33"],
    [3, "$0.03"],
    [123456, "$1,234.56"],
    [-500, "-$5"],
  ])("writes %d cents as %s", (cents, want) => {
    expect(formatMoney(cents)).toBe(want);
  });

  it("rounds a fraction of a cent away instead of printing it", () => {
    expect(formatMoney(29.999999)).toBe("$0.30");
  });
});
