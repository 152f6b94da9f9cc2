import { describe, expect, it } from "vitest";
import { groupedNumberFormat } from "./number-format";

describe("groupedNumberFormat", () => {
  const values = [0, -0, 1, 7, 12, 999, 1000, -1000, 12345, 100000, 1234567, -9876543, 2 ** 53 - 1, 0.5, 1.25, -2.5,
    1234.5678, 0.0004, Number.NaN, Number.POSITIVE_INFINITY, 1e21];

  it("writes every number as Intl.NumberFormat does, with the default options", () => {
    const intl = new Intl.NumberFormat("en-US");
    const ours = groupedNumberFormat();
    for (const n of values) expect(ours.format(n), String(n)).toBe(intl.format(n));
  });

  it("writes every number as Intl.NumberFormat does, rounded to whole numbers", () => {
    const intl = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
    const ours = groupedNumberFormat({ maximumFractionDigits: 0 });
    for (const n of values) expect(ours.format(n), String(n)).toBe(intl.format(n));
  });

  it("groups whole numbers by thousands", () => {
    const f = groupedNumberFormat();
    expect([5, 1000, 50000, 1234567, -1000].map((n) => f.format(n))).toEqual([
      "5",
      "1,000",
      "50,000",
      "1,234,567",
      "-1,000",
    ]);
  });
});
