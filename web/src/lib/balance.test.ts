import { describe, expect, it } from "vitest";
import { makeBalance } from "@/test/utils";
import { balanceParts, balanceText, formatCredits } from "./balance";

describe("the balance text", () => {
  it("is the credits left while there is no overage", () => {
    expect(balanceText(makeBalance({ credits: 12500 }))).toBe("12,500 credits");
    expect(balanceText(makeBalance({ credits: 1 }))).toBe("1 credit");
    expect(balanceText(makeBalance({ credits: 0 }))).toBe("0 credits");
  });

  it("adds the overage used and its cost, never a negative balance", () => {
    const overage = makeBalance({ planType: "basic", credits: 0, overageCredits: 10, overageCents: 30 });
    expect(balanceText(overage)).toBe("0 credits · 10 overage ($0.30)");
    expect(balanceParts(overage)).toEqual(["0 credits", "10 overage ($0.30)"]);
    expect(balanceText({ ...overage, overageCredits: 1500, overageCents: 4500 })).toBe("0 credits · 1,500 overage ($45)");
  });

  it("counts credits in the singular and the plural", () => {
    expect(formatCredits(1)).toBe("1 credit");
    expect(formatCredits(1000)).toBe("1,000 credits");
  });
});
