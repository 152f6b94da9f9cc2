import { describe, expect, it } from "vitest";
import { act, screen, within } from "@testing-library/react";
import { GENERATED_VALUATION } from "@/lib/generated-example";
import type { PropertyValuation } from "@/lib/types";
import { renderWithProviders } from "@/test/utils";
import { makeResult } from "@/test/valuation-fixture";
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

/** The amount a signed dollar figure says: "+$12,300" → 12300, "−$8,000" → -8000, "$905,000" → 905000. */
function dollars(text: string | null): number {
  const m = /^([+−-])?\$([\d,]+)$/.exec((text ?? "").trim());
  if (!m) throw new Error(`not a dollar figure: ${text}`);
  const value = Number(m[2]!.replace(/,/g, ""));
  return m[1] === "−" || m[1] === "-" ? -value : value;
}

/** The grid's cells of one line (its row header's name), subject first. */
function gridLine(grid: HTMLElement, name: string): HTMLElement[] {
  const header = within(grid).getByRole("rowheader", { name });
  return within(header.closest("tr")!).getAllByRole("cell");
}

describe("the sales comparison grid (issue 34)", () => {
  it("sets the subject beside the reconciled comparables only, one column each", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const grid = screen.getByTestId("sales-grid");
    const heads = within(grid).getAllByRole("columnheader").map((h) => h.textContent);
    expect(heads).toEqual(["Feature", "Subject", "Comparable 1", "Comparable 2", "Comparable 3"]);
    expect(gridLine(grid, "Address").map((c) => c.textContent)).toEqual([
      "2114 BIGELOW AVE N UNIT 3",
      "2120 BIGELOW AVE N0.0 mi away",
      "2200 TAYLOR AVE N0.3 mi away",
      "1 WARD ST0.5 mi away",
    ]);
    // The parcel that was not reconciled is only in the full list.
    expect(grid).not.toHaveTextContent("Parcel 1234567890");
    expect(gridLine(grid, "Sale price").map((c) => c.textContent)).toEqual(["", "$1,010,000", "$905,000", "$1,000,000"]);
    expect(gridLine(grid, "Sale date").map((c) => c.textContent)).toEqual([
      "Valued Feb 3, 2026",
      "Oct 9, 2025",
      "Apr 14, 2025",
      "Nov 20, 2025",
    ]);
  });

  it("shows each adjustment line with the comparable's figure beside the subject's", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const grid = screen.getByTestId("sales-grid");
    const lines = within(grid)
      .getAllByRole("rowheader")
      .map((h) => h.textContent);
    expect(lines).toEqual([
      "Address",
      "Sale price",
      "Sale date",
      "Time",
      "Living area",
      "Lot",
      "Bedrooms",
      "Bathrooms",
      "Age",
      "Quality & type",
      "Location",
      "Net adjustment",
      "Gross adjustment",
      "Adjusted price",
      "Weight",
    ]);
    const text = (name: string) => gridLine(grid, name).map((c) => c.textContent);
    expect(text("Time")).toEqual(["", "+$12,000", "+$38,000", "+$6,000"]);
    expect(text("Living area")).toEqual(["1,840 sq ft", "1,900 sq ft−$9,000", "1,520 sq ft+$52,000", "2,450 sq ft−$98,000"]);
    expect(text("Lot")).toEqual(["0.12 acres", "+$1,000", "$0", "−$12,000"]);
    expect(text("Bedrooms")).toEqual(["3", "3$0", "2+$18,000", "4−$24,000"]);
    expect(text("Bathrooms")).toEqual(["1.75", "2−$6,000", "1+$9,000", "3−$18,000"]);
    expect(text("Age")).toEqual(["Built 1926", "Built 1931−$2,000", "Built 1915+$4,000", "Built 1908+$9,000"]);
    expect(text("Quality & type")).toEqual(["Townhouse", "−$8,000", "+$21,000", "+$95,000"]);
    expect(text("Location")).toEqual(["", "−$6,000", "+$14,000", "+$40,000"]);
    expect(text("Adjusted price")).toEqual(["", "$992,000", "$1,061,000", "$998,000"]);
    expect(text("Weight")).toEqual(["", "42%", "23%", "35%"]);

    // Each comparable's adjustments, as shown, take its sale price to its adjusted price.
    const prices = gridLine(grid, "Sale price").slice(1);
    const adjusted = gridLine(grid, "Adjusted price").slice(1);
    prices.forEach((price, i) => {
      const sum = [...grid.querySelectorAll("tr[data-line]")]
        .map((row) => within(row as HTMLElement).getAllByRole("cell")[i + 1]!)
        .map((cell) => dollars(within(cell).getByTestId("adjustment").textContent))
        .reduce((a, b) => a + b, 0);
      expect(dollars(price.textContent) + sum).toBe(dollars(adjusted[i]!.textContent));
    });
  });

  it("marks the net and gross adjustments over their limits in words", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const grid = screen.getByTestId("sales-grid");
    const net = gridLine(grid, "Net adjustment").slice(1);
    expect(net.map((c) => c.textContent)).toEqual(["−1.8%−$18,000", "+17.2%+$156,000Over 15%", "−0.2%−$2,000"]);
    const gross = gridLine(grid, "Gross adjustment").slice(1);
    expect(gross.map((c) => c.textContent)).toEqual(["4.4%", "17.2%", "30.2%Over 25%"]);
    expect(screen.getByTestId("sales-comparison")).toHaveTextContent(
      "A net adjustment over 15% or a gross one over 25% of the sale price is marked",
    );
  });

  it("says what the comparables indicate, below the grid and beside the evidence", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    expect(screen.getByTestId("comparables-indicate")).toHaveTextContent(/^Comparables indicate \$1,010,000/);
    expect(screen.getByTestId("comparables-value")).toHaveTextContent("Comparable sales indicate $1,010,000");
  });

  it("keeps its line names in view and scrolls in its own named, focusable box when wider than a phone", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const grid = screen.getByTestId("sales-grid");
    for (const head of within(grid).getAllByRole("rowheader")) expect(head).toHaveClass("sticky", "left-0");
    // The headers are shown at every width: the grid is never turned into cards.
    expect(grid.querySelector("thead")!.className).not.toMatch(/sr-only/);
    const box = grid.parentElement!;
    Object.defineProperty(box, "scrollWidth", { configurable: true, value: 760 });
    Object.defineProperty(box, "clientWidth", { configurable: true, value: 340 });
    act(() => void window.dispatchEvent(new Event("resize")));
    const region = screen.getByRole("region", { name: "Sales comparison grid, scrolls sideways" });
    expect(region).toBe(box);
    expect(region).toHaveAttribute("tabindex", "0");
  });

  it("is left out when no comparable was reconciled, and says why", () => {
    const base = makeResult();
    const comparables = base.marketData.comparables.map((c) => ({ ...c, reconciled: false, reconciliationWeight: 0 }));
    renderWithProviders(
      <ValuationCard
        result={makeResult({
          valuation: { ...base.valuation, comparablesValue: null },
          marketData: { ...base.marketData, comparables },
        })}
      />,
    );
    expect(screen.queryByTestId("sales-comparison")).not.toBeInTheDocument();
    expect(screen.queryByTestId("comparables-value")).not.toBeInTheDocument();
    expect(screen.getByTestId("no-comparables-value")).toHaveTextContent("Fewer than three of these sales");
    const body = screen.getByTestId("comparables-table").querySelector("tbody")!;
    expect(within(body).queryByText("Used")).not.toBeInTheDocument();
    expect(within(body).getAllByText("Not used")).toHaveLength(4);
  });
});

describe("the full list of comparable sales (issue 34)", () => {
  it("marks the sales used and turns into cards on a phone, each figure labelled", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const table = screen.getByTestId("comparables-table");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(4);
    // The marker sits under the address, the first thing read on a row or a card.
    const addresses = rows.map((r) => within(r).getAllByRole("cell")[0]!);
    expect(addresses.map((a) => within(a).queryByText("Used") !== null)).toEqual([true, true, true, false]);
    expect(within(addresses[3]!).getByText("Not used")).toHaveClass("sr-only");
    expect(table.querySelector("thead")).toHaveClass("max-sm:sr-only");
    for (const row of rows) expect(row).toHaveClass("max-sm:grid");
    const net = within(rows[1]!).getAllByRole("cell")[9]!;
    expect(net).toHaveAttribute("data-label", "Net adj.");
    expect(net).toHaveTextContent("+17.2%over 15%");
  });

  it("reads an answer from before issue 34 without the new figures: dashes, nothing used, no grid", () => {
    const base = makeResult();
    const old = makeResult({
      valuation: { ...base.valuation, path: undefined, comparablesValue: undefined, drivers: undefined },
      marketData: {
        ...base.marketData,
        comparables: base.marketData.comparables.map((c) => {
          const { address, distanceMiles, saleDate, salePrice, similarity, adjustedPrice } = c;
          return { address, distanceMiles, saleDate, salePrice, similarity, adjustedPrice };
        }),
      },
    } as unknown as Partial<PropertyValuation>);
    renderWithProviders(<ValuationCard result={old} />);
    expect(screen.queryByTestId("sales-comparison")).not.toBeInTheDocument();
    expect(screen.queryByTestId("value-drivers")).not.toBeInTheDocument();
    expect(screen.queryByTestId("valuation-path")).not.toBeInTheDocument();
    expect(screen.queryByTestId("no-comparables-value")).not.toBeInTheDocument();
    // Without a path the match note says the home is not on record, as before.
    expect(screen.getByTestId("match-note")).toHaveTextContent("Unit not on record");
    const first = within(screen.getByTestId("comparables-table")).getAllByRole("row")[1]!;
    const cells = within(first).getAllByRole("cell");
    expect(cells[0]).toHaveTextContent(/Not used$/);
    expect(cells.slice(9).map((c) => c.textContent)).toEqual(["—", "—"]);
  });
});

describe("why this value (issue 34)", () => {
  it("builds the model's value from the typical home, each factor signed, and the figures add up", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const drivers = screen.getByTestId("value-drivers");
    const items = within(within(drivers).getByRole("list", { name: "Why this value" })).getAllByRole("listitem");
    const amounts = items.map((li) => within(li).getByTestId("driver-amount").textContent);
    expect(amounts).toEqual(["$905,000", "+$48,000", "+$31,500", "−$22,000", "−$9,800", "+$4,100", "+$3,200", "$960,000"]);
    expect(items[0]).toHaveTextContent("Typical home nearby");
    expect(items[1]).toHaveTextContent("Living area1,840 sq ft of living area, larger than 70% of homes nearby");
    expect(items[3]).toHaveTextContent("Agebuilt in 1926 (typical nearby: 1962)");
    expect(items[4]).toHaveTextContent("Quality & type");
    expect(items[6]).toHaveTextContent("Other factors");
    expect(items[7]).toHaveTextContent("Model value");
    // What is shown adds up: the typical home, plus every factor and the other factors, is the model's value.
    const shown = amounts.map(dollars);
    const total = shown.pop()!;
    expect(shown.reduce((a, b) => a + b, 0)).toBe(total);
    // The model's value is one part of the estimate: the card says so when they differ.
    expect(drivers).toHaveTextContent("The estimate of $987,400 weighs the model's value with the other evidence");
  });

  it("draws each factor's bar for the eye only", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    const drivers = screen.getByTestId("value-drivers");
    const bars = drivers.querySelectorAll("li > [aria-hidden='true']");
    expect(bars).toHaveLength(6); // five factors and the other factors
  });

  it("is left out when the server gives no drivers", () => {
    const base = makeResult();
    renderWithProviders(<ValuationCard result={makeResult({ valuation: { ...base.valuation, drivers: null } })} />);
    expect(screen.queryByTestId("value-drivers")).not.toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Why This Value" })).not.toBeInTheDocument();
  });
});

describe("the evidence's warnings and the path (issue 34)", () => {
  const disagreement =
    "The evidence disagrees: this estimate is 32% below what its comparable sales indicate ($837,000), because it " +
    "leans on the home's own sale of $567,000 in March 2025, and the model alone says $743,000. The range is wider " +
    "for it; check the home's condition and that sale before relying on the estimate.";
  const thin =
    "Few homes valued this way could be checked against their sale prices here, so the confidence is held at Medium or below.";

  it("shows a disagreement warning, and every other, right above the estimate", () => {
    const base = makeResult();
    renderWithProviders(
      <ValuationCard
        result={makeResult({ valuation: { ...base.valuation, path: "own_sale", warnings: [disagreement, thin] } })}
      />,
    );
    const box = screen.getByTestId("valuation-warnings");
    expect(box).toHaveAttribute("role", "note");
    expect(within(box).getAllByRole("listitem").map((li) => li.textContent)).toEqual([disagreement, thin]);
    // Before the estimate in reading order, in the same column, with nothing between them but the estimate's label.
    const estimate = screen.getByTestId("estimated-value");
    expect(box.compareDocumentPosition(estimate) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(box.nextElementSibling).toContainElement(estimate);
  });

  it.each([
    ["own_sale", "Valued from its record and its own recent sale"],
    ["record", "Valued from its record"],
    ["unit", "A unit not on record, valued at its building from the facts you gave"],
    ["facts", "Not on record: valued from the facts you gave"],
    ["type_and_size", "Not on record: valued from its type and size alone"],
  ] as const)("says the path %s in words, beside the confidence", (path, words) => {
    const base = makeResult();
    renderWithProviders(<ValuationCard result={makeResult({ valuation: { ...base.valuation, path } })} />);
    const line = screen.getByTestId("valuation-path");
    expect(line).toHaveTextContent(new RegExp(`^${words}$`));
    // Right after the confidence badge and its meaning (off the record, as the match note).
    expect(screen.getByTestId("confidence-meaning").parentElement!.nextElementSibling).toContainElement(line);
    expect(screen.getAllByText(words)).toHaveLength(1);
  });

  it("keeps the match note of a similar street name beside a path on record", () => {
    const base = makeResult();
    renderWithProviders(
      <ValuationCard
        result={makeResult({
          property: { ...base.property, matchCode: "fuzzy" },
          valuation: { ...base.valuation, path: "record" },
        })}
      />,
    );
    expect(screen.getByTestId("match-note")).toHaveTextContent("Matched a similar street name");
    expect(screen.getByTestId("valuation-path")).toHaveTextContent("Valued from its record");
  });
});
