import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { GENERATED_VALUATION } from "@/lib/generated-example";
import type { PropertyValuation } from "@/lib/types";
import { renderWithProviders } from "@/test/utils";
import { FIXTURE_RENTALS, makeResult } from "@/test/valuation-fixture";
import { ValuationCard } from "./valuation-card";

/** The fixture's answer with its rent from nearby rents, as the server gives it. */
function withRentals(): PropertyValuation {
  const base = makeResult();
  return makeResult({
    marketData: {
      ...base.marketData,
      rentSource: "rental_comparables",
      rentEstimate: 3900,
      rentalComparables: structuredClone(FIXTURE_RENTALS),
      grossYield: 0.0474,
    },
  });
}

describe("the rent's evidence on the result card (issue 35)", () => {
  it("shows the gross yield beside the rent estimate", () => {
    renderWithProviders(<ValuationCard result={withRentals()} />);
    const term = screen.getByText("Gross Yield", { selector: "dt" });
    expect(term.nextElementSibling).toHaveTextContent("4.74% a year");
    expect(screen.getByTestId("gross-yield")).toHaveTextContent(/^4\.74% a year$/);
  });

  it("lists every rental comparable in the server's order, each figure labelled for a phone's cards", () => {
    renderWithProviders(<ValuationCard result={withRentals()} />);
    const table = screen.getByTestId("rental-comparables-table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "Address",
      "Rent",
      "Beds / Baths",
      "Sq Ft",
      "Distance",
      "Date",
    ]);
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getAllByRole("cell").map((c) => c.textContent))).toEqual([
      ["2118 BIGELOW AVE N40% of the estimate", "$3,750/mo$3,900 adjusted", "3 / 2", "1,790", "0.0 mi", "Sep 1, 2025"],
      ["2301 TAYLOR AVE N UNIT 425% of the estimate", "$3,400/mo$3,850 adjusted", "2 / 1.5", "1,500", "0.4 mi", "Nov 15, 2024"],
      ["12 WARD ST20% of the estimate", "$4,300/mo$4,100 adjusted", "4 / 2.5", "2,250", "0.6 mi", "Jan 10, 2026"],
      ["Parcel 445566778815% of the estimate", "$3,500/mo$3,700 adjusted", "— / —", "—", "1.1 mi", "Dec 4, 2023"],
    ]);
    // A phone shows each row as a card: the header only for screen readers, each figure under its label, the address
    // on a line of its own, and no minimum width that would make the page scroll sideways at 390 px.
    expect(table.querySelector("thead")).toHaveClass("max-sm:sr-only");
    expect(table.className).not.toMatch(/min-w-/);
    for (const row of rows) {
      expect(row).toHaveClass("max-sm:grid");
      const cells = within(row).getAllByRole("cell");
      expect(cells[0]).toHaveClass("max-sm:col-span-full");
      expect(cells.slice(1).map((c) => c.getAttribute("data-label"))).toEqual([
        "Rent",
        "Beds / baths",
        "Sq ft",
        "Distance",
        "Date",
      ]);
    }
  });

  it("says the rent comes from the yield model when there are no rental comparables", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    expect(screen.queryByTestId("rental-comparables-table")).not.toBeInTheDocument();
    expect(screen.getByTestId("rental-comparables-empty")).toHaveTextContent(
      /comes from the value and typical rent-to-price ratios/,
    );
    expect(screen.getByTestId("rent-source")).toHaveTextContent("model estimate");
  });

  it("leaves out the yield and the rentals of an answer without a rent, and reads an older answer without them", () => {
    const base = makeResult();
    const noRent = makeResult({
      marketData: { ...base.marketData, rentEstimate: null, rentSource: null, grossYield: null },
    });
    const { unmount } = renderWithProviders(<ValuationCard result={noRent} />);
    expect(screen.queryByTestId("gross-yield")).not.toBeInTheDocument();
    expect(screen.queryByTestId("rental-comparables")).not.toBeInTheDocument();
    unmount();

    const { rentalComparables: _, grossYield: __, ...before } = base.marketData;
    renderWithProviders(<ValuationCard result={makeResult({ marketData: before } as Partial<PropertyValuation>)} />);
    expect(screen.queryByTestId("gross-yield")).not.toBeInTheDocument();
    expect(screen.getByTestId("rental-comparables-empty")).toBeInTheDocument();
  });

  it("shows the generated example's rentals, whose weights make its rent estimate", () => {
    const { marketData, valuation } = GENERATED_VALUATION;
    renderWithProviders(<ValuationCard result={GENERATED_VALUATION} />);
    const rows = within(screen.getByTestId("rental-comparables-table")).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(marketData.rentalComparables.length);
    // The engine's answer holds together: the yield is the quoted rent over the quoted value, and the weighted median
    // of the adjusted rents is the estimate (to the $25 it is quoted to, and the weights' three decimals).
    expect(marketData.grossYield).toBeCloseTo((marketData.rentEstimate! * 12) / valuation.estimatedValue, 4);
    const byRent = [...marketData.rentalComparables].sort((a, b) => a.adjustedRent - b.adjustedRent);
    const total = byRent.reduce((sum, c) => sum + c.weight, 0);
    expect(total).toBeCloseTo(1, 2);
    let acc = 0;
    const median = byRent.find((c) => (acc += c.weight) >= total / 2)!;
    expect(Math.abs(median.adjustedRent - marketData.rentEstimate!)).toBeLessThanOrEqual(13);
  });
});
