import { describe, expect, it } from "vitest";
import type { ComparableSale, PropertyValuation } from "@/lib/types";
import { GENERATED_VALUATION as SAMPLE_VALUATION } from "@/lib/generated-example";
import {
  evidenceLines,
  wholePercents,
  acresFromSqFt,
  buildReportPayload,
  confidenceLabel,
  confidenceMeaning,
  confidencePercent,
  confidenceTone,
  formatCount,
  formatCurrency,
  formatDate,
  formatLotSize,
  formatMiles,
  formatShare,
  formatSignedCurrency,
  formatSimilarity,
  formatValueRange,
  formatWhole,
  homeStatusLabel,
  isOffRecordPath,
  matchNote,
  pathText,
  NOT_KNOWN,
  pricePerSqFt,
  propertyTypeOf,
  readableFacts,
  reconciledComparables,
  rentSourceLabel,
  reportFileName,
  REPORT_MAX_COMPARABLES,
} from "./valuation-helpers";

function valuation(overrides: {
  property?: Partial<PropertyValuation["property"]>;
  valuation?: Partial<PropertyValuation["valuation"]>;
  details?: PropertyValuation["details"];
  marketData?: Partial<PropertyValuation["marketData"]>;
}): PropertyValuation {
  return {
    ...SAMPLE_VALUATION,
    property: { ...SAMPLE_VALUATION.property, ...overrides.property },
    valuation: { ...SAMPLE_VALUATION.valuation, ...overrides.valuation },
    details: overrides.details ?? SAMPLE_VALUATION.details,
    marketData: { ...SAMPLE_VALUATION.marketData, ...overrides.marketData },
  };
}

describe("formatCurrency", () => {
  it.each([
    [1248000, "$1,248,000"],
    [0, "$0"],
    [999.6, "$1,000"],
    [450, "$450"],
  ])("%d -> %s", (value, want) => {
    expect(formatCurrency(value)).toBe(want);
  });

  it("formats the 80% range with an en dash", () => {
    expect(formatValueRange(1150000, 1340000)).toBe("$1,150,000 – $1,340,000");
  });
});

describe("lot size", () => {
  it("converts square feet to acres", () => {
    expect(acresFromSqFt(43560)).toBe(1);
    expect(acresFromSqFt(21780)).toBe(0.5);
  });

  it.each([
    [{ lotSize: 0.17 }, "0.17 acres"],
    [{ lotSize: 1 }, "1.00 acre"],
    [{ lotSize: 2.456 }, "2.46 acres"],
    [{ lotSize: null, lotSizeSqFt: 6534 }, "0.15 acres"],
    [{ lotSize: null, lotSizeSqFt: null }, "—"],
    [{}, "—"],
    [{ lotSize: 0 }, "—"],
  ])("%j -> %s", (details, want) => {
    expect(formatLotSize(details)).toBe(want);
  });
});

describe("confidence", () => {
  it("rounds to a whole percentage", () => {
    expect(confidencePercent(0.874)).toBe(87);
    expect(confidencePercent(0.845)).toBe(85);
    expect(confidencePercent(0)).toBe(0);
    expect(confidencePercent(1)).toBe(100);
  });

  it.each([
    ["High", "green"],
    ["Medium", "yellow"],
    ["Low", "red"],
  ] as const)("colours the %s level %s", (level, want) => {
    expect(confidenceTone(level)).toBe(want);
  });

  it("labels the badge with the level, not always High Confidence", () => {
    expect(confidenceLabel("Low")).toBe("Low Confidence");
    expect(confidenceLabel("High")).toBe("High Confidence");
  });

  it("explains the calibrated meaning", () => {
    expect(confidenceMeaning(0.13, 0.62)).toBe(
      "means: about 2 in 3 homes like this sell within ±13% of our estimate (FSD 0.13); 62% sell within 10%",
    );
  });

});

describe("report", () => {
  it("names the file property-report-{timestamp}.csv", () => {
    expect(reportFileName(1760000000000)).toBe("property-report-1760000000000.csv");
    expect(reportFileName()).toMatch(/^property-report-\d{13}\.csv$/);
  });

  it("builds the payload from a result, without a property type the result does not have", () => {
    const result = valuation({
      property: { address: "2114 BIGELOW AVE N", city: "SEATTLE", state: "WA", zip: "98109" },
      valuation: { estimatedValue: 1248000, low: 1150000, high: 1340000, confidence: 0.72, confidenceLevel: "Medium" },
      details: { bedrooms: 3, bathrooms: 1.75, squareFeet: 1840, yearBuilt: 1926 },
      marketData: { rentEstimate: 3900 },
    });
    expect(buildReportPayload(result)).toEqual({
      propertyData: {
        address: "2114 BIGELOW AVE N",
        city: "SEATTLE",
        state: "WA",
        zipCode: "98109",
        propertyType: null,
        valuation: 1248000,
        low: 1150000,
        high: 1340000,
        confidence: 0.72,
        confidenceLevel: "Medium",
        rentEstimate: 3900,
        bedrooms: 3,
        bathrooms: 1.75,
        squareFeet: 1840,
        yearBuilt: 1926,
        comparables: SAMPLE_VALUATION.marketData.comparables,
      },
    });
  });

  it("sends null for missing details and caps the comparables at the contract's limit", () => {
    const comp = SAMPLE_VALUATION.marketData.comparables[0]!;
    const many: ComparableSale[] = Array.from({ length: 60 }, (_, i) => ({ ...comp, address: `${i} Main St` }));
    const payload = buildReportPayload(
      valuation({ details: { propertyType: "Condo" }, marketData: { rentEstimate: null, comparables: many } }),
    ).propertyData;
    expect(payload.propertyType).toBe("Condo");
    expect(payload.rentEstimate).toBeNull();
    expect(payload.bedrooms).toBeNull();
    expect(payload.bathrooms).toBeNull();
    expect(payload.squareFeet).toBeNull();
    expect(payload.yearBuilt).toBeNull();
    expect(payload.comparables).toHaveLength(REPORT_MAX_COMPARABLES);
    expect(payload.comparables?.[0]?.address).toBe("0 Main St");
  });
});

describe("details", () => {
  it("never invents a property type: unknown is null", () => {
    expect(propertyTypeOf({})).toBeNull();
    expect(propertyTypeOf({ propertyType: null })).toBeNull();
    expect(propertyTypeOf({ propertyType: " " })).toBeNull();
    expect(propertyTypeOf({ propertyType: "Townhouse" })).toBe("Townhouse");
  });

  it("formats counts and whole numbers, a dash when missing (never 0, NaN or null)", () => {
    expect(formatCount(3)).toBe("3");
    expect(formatCount(2.5)).toBe("2.5");
    expect(formatCount(0)).toBe("0");
    expect(formatCount(null)).toBe(NOT_KNOWN);
    expect(formatCount(undefined)).toBe(NOT_KNOWN);
    expect(formatCount(Number.NaN)).toBe(NOT_KNOWN);
    expect(NOT_KNOWN).toBe("—");
    expect(formatWhole(1850)).toBe("1,850");
    expect(formatWhole(1926, false)).toBe("1926");
    expect(formatWhole(null)).toBe(NOT_KNOWN);
    expect(formatWhole(undefined, false)).toBe(NOT_KNOWN);
    expect(formatWhole(Number.NaN)).toBe(NOT_KNOWN);
  });

  it("writes the server's field names in a not-on-record message as words", () => {
    expect(
      readableFacts(
        "No property on record at this address. To value it anyway, add its propertyType and squareFeet (optionally bedrooms, bathrooms, yearBuilt, lotSize).",
      ),
    ).toBe(
      "No property on record at this address. To value it anyway, add its property type and square feet (optionally bedrooms, bathrooms, year built, lot size).",
    );
    expect(readableFacts("Property not found")).toBe("Property not found");
  });

  it("uses the server's price per square foot, else computes it", () => {
    expect(pricePerSqFt(valuation({ valuation: { pricePerSqFt: 600 } }))).toBe(600);
    expect(
      pricePerSqFt(valuation({ valuation: { pricePerSqFt: null, estimatedValue: 1000000 }, details: { squareFeet: 2000 } })),
    ).toBe(500);
    expect(pricePerSqFt(valuation({ valuation: { pricePerSqFt: null }, details: {} }))).toBeNull();
  });

  it("explains each inexact match", () => {
    expect(matchNote("exact")).toBeNull();
    expect(matchNote("unit_fallback")).toBe(
      "Unit not on record: valued at its building from the details you gave; confidence is lower",
    );
    expect(matchNote("not_on_record")).toBe(
      "Not on record: valued at the ZIP code's centre from the details you gave; confidence is lower",
    );
    expect(matchNote("fuzzy")).toBe("Matched a similar street name");
  });

  it("labels home status and rent source", () => {
    expect(homeStatusLabel("RECENTLY_SOLD")).toBe("Recently sold");
    expect(homeStatusLabel("OFF_MARKET")).toBe("Off market");
    expect(homeStatusLabel(undefined)).toBeNull();
    expect(rentSourceLabel("rental_comparables")).toBe("estimated from nearby rents");
    expect(rentSourceLabel("model")).toBe("model estimate");
    expect(rentSourceLabel(null)).toBeNull();
  });

  it("formats miles, similarity and dates", () => {
    expect(formatMiles(0.43)).toBe("0.4 mi");
    expect(formatMiles(2)).toBe("2.0 mi");
    expect(formatSimilarity(0.876)).toBe("88%");
    expect(formatSimilarity(1.2)).toBe("100%");
    // A date-only value is a calendar day: it must not slip to the previous day west of UTC.
    expect(formatDate("2024-05-01")).toBe("May 1, 2024");
    expect(formatDate("2026-01-14T06:00:00Z")).toBe("Jan 14, 2026");
    expect(formatDate("not a date")).toBe("not a date");
  });
});

describe("evidenceLines", () => {
  it("lists the parts heaviest first and says why a last sale carries no weight", () => {
    expect(
      evidenceLines([
        { source: "model", weight: 0.9, value: 500_000 },
        { source: "comparables", weight: 0.1, value: 520_000 },
        { source: "last_sale", weight: 0, value: 300_000, saleDate: "2025-06-02", salePrice: 290_000 },
      ]),
    ).toEqual([
      "Model 90%",
      "Comparable sales 10%",
      "Last sale of this home 0%: sold Jun 2, 2025 for $290,000, $300,000 today (judged no guide to today's value)",
    ]);
    expect(evidenceLines(undefined)).toEqual([]);
  });

  it("shows whole percents that add up to 100", () => {
    expect(wholePercents([0.906, 0.06, 0.035])).toEqual([91, 6, 3]);
    expect(wholePercents([0, 0])).toEqual([0, 0]);
  });
});

describe("the figures of a professional's valuation (issue 34)", () => {
  it("signs dollar adjustments with a true minus, and leaves zero unsigned", () => {
    expect(formatSignedCurrency(12_345.6)).toBe("+$12,346");
    expect(formatSignedCurrency(-8_000)).toBe("−$8,000");
    expect(formatSignedCurrency(0)).toBe("$0");
    expect(formatSignedCurrency(-0.4)).toBe("$0");
  });

  it("writes shares with one decimal, signed for a net adjustment, and a dash when not sent", () => {
    expect(formatShare(0.1724, true)).toBe("+17.2%");
    expect(formatShare(-0.0178, true)).toBe("−1.8%");
    expect(formatShare(0.0004, true)).toBe("0.0%");
    expect(formatShare(0.302)).toBe("30.2%");
    // Just over the 15% limit never reads as the limit itself.
    expect(formatShare(0.1512)).toBe("15.1%");
    expect(formatShare(undefined)).toBe(NOT_KNOWN);
    expect(formatShare(Number.NaN)).toBe(NOT_KNOWN);
  });

  it("says each path in words, and nothing for an answer without one", () => {
    expect(pathText("own_sale")).toBe("Valued from its record and its own recent sale");
    expect(pathText("type_and_size")).toBe("Not on record: valued from its type and size alone");
    expect(pathText(undefined)).toBeNull();
    expect(["own_sale", "record", "unit", "facts", "type_and_size"].map((p) => isOffRecordPath(p as never))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it("keeps the reconciled comparables in the server's order, none from an older answer", () => {
    const c = (address: string, reconciled?: boolean) => ({ address, reconciled }) as unknown as ComparableSale;
    expect(reconciledComparables([c("a", true), c("b", false), c("c", true)]).map((x) => x.address)).toEqual(["a", "c"]);
    expect(reconciledComparables([c("a"), c("b")])).toEqual([]);
  });
});
