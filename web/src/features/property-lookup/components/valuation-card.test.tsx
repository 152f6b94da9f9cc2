import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { GENERATED_VALUATION } from "@/lib/generated-example";
import { renderWithProviders } from "@/test/utils";
import { ValuationCard } from "./valuation-card";

// The property details are a description list a screen reader can walk term by term (issue 26: 23 term/value pairs
// sat outside a proper <dl>, one wrapper too deep).
describe("ValuationCard's property details", () => {
  it("is a <dl> whose groups hold only their term and values", () => {
    renderWithProviders(<ValuationCard result={GENERATED_VALUATION} />);
    const lists = document.querySelectorAll("dl");
    expect(lists.length).toBeGreaterThan(0);
    for (const dl of lists) {
      for (const child of dl.children) {
        // A <dl> may hold dt/dd directly or <div>s of them, nothing else.
        expect(["DT", "DD", "DIV"]).toContain(child.tagName);
        if (child.tagName !== "DIV") continue;
        const tags = [...child.children].map((c) => c.tagName);
        expect(tags[0]).toBe("DT");
        expect(tags.every((t) => t === "DT" || t === "DD")).toBe(true);
      }
    }
    for (const item of document.querySelectorAll("dt, dd")) {
      const parent = item.parentElement!;
      expect(parent.tagName === "DL" || parent.parentElement?.tagName === "DL").toBe(true);
    }
  });

  it("names each value by its term, with the icon hidden from screen readers", () => {
    renderWithProviders(<ValuationCard result={GENERATED_VALUATION} />);
    const term = screen.getByText("Bedrooms", { selector: "dt" });
    expect(term).toHaveTextContent(/^Bedrooms$/);
    expect(term.querySelector("[aria-hidden='true'] svg")).not.toBeNull();
    const value = term.nextElementSibling as HTMLElement;
    expect(value.tagName).toBe("DD");
    expect(within(value).getByText(String(GENERATED_VALUATION.details.bedrooms))).toBeInTheDocument();
  });
});
