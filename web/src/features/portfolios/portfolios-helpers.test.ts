import { describe, expect, it } from "vitest";
import { EXPORT_HEADER, monthChangeText, movers, exportFileName, formFieldErrors, isMover, portfolioCsv, rowFailures, signedDollars, signedPercent, sortHomes, totalChangePercent } from "./portfolios-helpers";
import { HOMES, makeDetail, makeHome } from "./test-fixtures";

const addresses = (hs: { formattedAddress: string }[]) => hs.map((h) => h.formattedAddress);

describe("the month's movers", () => {
  it("are the homes that moved more than the threshold, either way", () => {
    expect(HOMES.map((h) => isMover(h, 1))).toEqual([false, true, true]);
    expect(HOMES.map((h) => isMover(h, null))).toEqual([false, false, false]);
    expect(movers({ homes: HOMES, alertThreshold: 1 }).map((h) => h.id)).toEqual([2, 3]);
    expect(isMover(makeHome(9, "X", 1, null), 0.1)).toBe(false);
    // More than, not as much as.
    expect(isMover(makeHome(9, "X", 100, 1), 1)).toBe(false);
  });

  it("come first, the largest move first, then the rest by the column chosen", () => {
    expect(addresses(sortHomes(HOMES, 1, "address", "asc"))).toEqual([
      "200 B ST, SEATTLE, WA 98103", // -2.5%
      "=300 C ST, SEATTLE, WA 98103", // +1.5%
      "100 A ST, SEATTLE, WA 98103",
    ]);
    const more = [...HOMES, makeHome(4, "050 D ST", 100_000, 0.1), makeHome(5, "400 E ST", 2_000_000, null, { latest: null })];
    expect(addresses(sortHomes(more, 1, "value", "desc")).slice(2)).toEqual(["100 A ST, SEATTLE, WA 98103", "050 D ST", "400 E ST"]);
    expect(addresses(sortHomes(more, 1, "value", "asc")).slice(2)).toEqual(["050 D ST", "100 A ST, SEATTLE, WA 98103", "400 E ST"]);
    // Without a threshold, only the column counts.
    expect(addresses(sortHomes(HOMES, null, "change", "desc"))).toEqual([
      "=300 C ST, SEATTLE, WA 98103",
      "100 A ST, SEATTLE, WA 98103",
      "200 B ST, SEATTLE, WA 98103",
    ]);
  });
});

describe("the exports", () => {
  it("write every home, movers first, with formula-safe cells", () => {
    const csv = portfolioCsv(makeDetail());
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe(EXPORT_HEADER.join(","));
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe('"200 B ST, SEATTLE, WA 98103",SEATTLE,WA,98103,2026-11,900000,810000,990000,High,-22500,-2.5,-22500,-2.5,Yes');
    // An address that starts like a formula is text.
    expect(lines[2]!.startsWith(`"'=300 C ST, SEATTLE, WA 98103"`)).toBe(true);
    expect(lines[3]!.endsWith(",No")).toBe(true);
  });

  it("are named after the portfolio and the day", () => {
    expect(exportFileName("Seattle rentals!", "xlsx", new Date("2026-11-28T10:00:00Z"))).toBe("portfolio-seattle-rentals-2026-11-28.xlsx");
    expect(exportFileName("///", "csv", new Date("2026-11-28T10:00:00Z"))).toBe("portfolio-portfolio-2026-11-28.csv");
  });
});

describe("figures and answers", () => {
  it("sign changes", () => {
    expect(signedDollars(1200)).toBe("+$1,200");
    expect(signedDollars(-800)).toBe("−$800");
    expect(signedPercent(0.25)).toBe("+0.25%");
    expect(signedPercent(-2.5)).toBe("−2.50%");
    expect(totalChangePercent({ value: 2_100_000, changeSinceLastMonth: -10_000 } as never)).toBe(-0.47);
    expect(monthChangeText(makeDetail())).toBe("−$10,000 (−0.47%)");
    // One month: nothing to change from.
    expect(monthChangeText(makeDetail({ history: [{ month: "2026-11", value: 1, homes: 1 }] }))).toBe("First month");
  });

  it("name the failed homes by what was asked", () => {
    const failures = rowFailures(
      [
        { index: 0, status: "added", creditsUsed: 1 },
        { index: 1, status: "failed", code: "area_not_covered", error: "We have no sales near 33132", creditsUsed: 0 },
      ],
      [{ address: "1 A St" }, { address: "100 Biscayne Blvd", city: "Miami", state: "FL", zip: "33132" }],
    );
    expect(failures).toEqual([{ address: "100 Biscayne Blvd, Miami, FL, 33132", error: "We have no sales near 33132" }]);
  });

  it("put the first home's field errors at the form's fields", () => {
    expect(formFieldErrors({ "properties[0].zip": "ZIP must be 5 digits", name: "Name is required" })).toEqual({
      zip: "ZIP must be 5 digits",
      name: "Name is required",
    });
  });
});
