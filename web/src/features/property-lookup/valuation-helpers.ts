// Pure helpers of the Property Lookup screen: formatting, the confidence rules of the spec (working-screens,
// section 4, "History and confidence display") and the report payload (section 7). No React and no I/O here, so
// every rule is unit-tested on its own.
import type { ComparableSale, PropertyValuation, ReportRequest } from "@/lib/types";

const usd = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 0,
  maximumFractionDigits: 0,
});

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Whole US dollars, as the spec asks: 1248000 -> "$1,248,000". */
export function formatCurrency(value: number): string {
  return usd.format(Math.round(value));
}

/** The 80% interval: "$1,150,000 – $1,340,000" (an en dash between spaces). */
export function formatValueRange(low: number, high: number): string {
  return `${formatCurrency(low)} – ${formatCurrency(high)}`;
}

/** A whole number with thousands separators (square feet): 1850 -> "1,850". */
export function formatInteger(value: number): string {
  return integer.format(Math.round(value));
}

/**
 * What the screen shows for a fact the records do not hold (and, for a home not on record, one the caller did not
 * give): a dash, never a typical value, a zero or "null".
 */
export const NOT_KNOWN = "—";

/** Bathrooms may be fractional (2.5); other counts are shown as they come. */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NOT_KNOWN;
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
}

/** Square feet in one US survey acre. */
export const SQFT_PER_ACRE = 43_560;

export function acresFromSqFt(sqft: number): number {
  return sqft / SQFT_PER_ACRE;
}

/**
 * The lot size in acres with two decimals ("0.14 acres"), or a dash. The server sends acres in `lotSize`; when only
 * `lotSizeSqFt` is there it is converted. A lot of zero or less is no information, so it reads as a dash too.
 */
export function formatLotSize(details: Pick<PropertyValuation["details"], "lotSize" | "lotSizeSqFt">): string {
  let acres: number | null = null;
  if (typeof details.lotSize === "number" && details.lotSize > 0) acres = details.lotSize;
  else if (typeof details.lotSizeSqFt === "number" && details.lotSizeSqFt > 0) acres = acresFromSqFt(details.lotSizeSqFt);
  if (acres === null || !Number.isFinite(acres)) return NOT_KNOWN;
  const text = acres.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${text} ${text === "1.00" ? "acre" : "acres"}`;
}

/** The confidence (0-1) as a whole percentage, as the badge shows it. */
export function confidencePercent(confidence: number): number {
  return Math.round(confidence * 100);
}

export type ConfidenceTone = "green" | "yellow" | "red";
export type ConfidenceLevel = "High" | "Medium" | "Low";

/**
 * The badge colour follows the level the server gives (valuation.ConfidenceLevel, the one mapping of every
 * surface: 0.85 or more High, 0.70 or more Medium, otherwise Low), so the colour and the words never disagree.
 */
export function confidenceTone(level: ConfidenceLevel): ConfidenceTone {
  if (level === "High") return "green";
  if (level === "Medium") return "yellow";
  return "red";
}

export const CONFIDENCE_TONE_CLASSES: Record<ConfidenceTone, string> = {
  green: "border-green-200 bg-green-100 text-green-800",
  yellow: "border-yellow-200 bg-yellow-100 text-yellow-800",
  red: "border-red-200 bg-red-100 text-red-800",
};

/**
 * The badge's label: the level, "Medium Confidence". The spec fixes it to 'High Confidence' whatever the level;
 * that is deliberately not copied (DESIGN.md section 5), since a 58% estimate labelled High would mislead.
 */
export function confidenceLabel(level: ConfidenceLevel): string {
  return `${level} Confidence`;
}

/**
 * What the calibrated confidence means (DESIGN section 5): confidence is 1 − FSD, and the sale lands within ±FSD of
 * the estimate 68% of the time; the chance of landing within 10% is said beside it.
 */
export function confidenceMeaning(fsd: number, withinTenPercent: number): string {
  return (
    `means: about 2 in 3 homes like this sell within ±${confidencePercent(fsd)}% of our estimate` +
    ` (FSD ${fsd.toFixed(2)}); ${confidencePercent(withinTenPercent)}% sell within 10%`
  );
}

/** The saved report's name (spec section 7): property-report-{timestamp}.csv, timestamp in epoch milliseconds. */
export function reportFileName(timestamp: number = Date.now()): string {
  return `property-report-${timestamp}.csv`;
}

/** The contract caps the comparables of a report request (ReportRequest.propertyData.comparables maxItems). */
export const REPORT_MAX_COMPARABLES = 50;

/** A whole number with thousands separators, or a dash when unknown (square feet, year built). */
export function formatWhole(value: number | null | undefined, separators = true): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return NOT_KNOWN;
  return separators ? formatInteger(value) : String(Math.round(value));
}

/** The property type as the server gives it, or null when unknown: never a default the records do not say. */
export function propertyTypeOf(details: Pick<PropertyValuation["details"], "propertyType">): string | null {
  return details.propertyType?.trim() || null;
}

/** The body of POST /api/properties/download-report, built from a lookup result. */
export function buildReportPayload(result: PropertyValuation): ReportRequest {
  const { property, valuation, details, marketData } = result;
  return {
    propertyData: {
      address: property.address,
      city: property.city,
      state: property.state,
      zipCode: property.zip,
      propertyType: propertyTypeOf(details),
      valuation: valuation.estimatedValue,
      low: valuation.low,
      high: valuation.high,
      confidence: valuation.confidence,
      confidenceLevel: valuation.confidenceLevel,
      rentEstimate: marketData.rentEstimate ?? null,
      bedrooms: details.bedrooms ?? null,
      bathrooms: details.bathrooms ?? null,
      squareFeet: details.squareFeet ?? null,
      yearBuilt: details.yearBuilt ?? null,
      comparables: marketData.comparables.slice(0, REPORT_MAX_COMPARABLES),
    },
  };
}

/** The note shown when the address did not match a record exactly, or null for an exact match. */
export function matchNote(matchCode: PropertyValuation["property"]["matchCode"]): string | null {
  switch (matchCode) {
    case "unit_fallback":
      return "Unit not on record: valued at its building from the details you gave; confidence is lower";
    case "not_on_record":
      return "Not on record: valued at the ZIP code's centre from the details you gave; confidence is lower";
    case "fuzzy":
      return "Matched a similar street name";
    default:
      return null;
  }
}

/** The lookup's facts by their API names, as a person reads them: the server's 404 names them so. */
const FACT_WORDS: Readonly<Record<string, string>> = {
  propertyType: "property type",
  squareFeet: "square feet",
  yearBuilt: "year built",
  lotSize: "lot size",
};

/**
 * The server's sentence for a home that is not on record ("... add its propertyType and squareFeet (optionally
 * bedrooms, bathrooms, yearBuilt, lotSize).") with the field names written as words.
 */
export function readableFacts(message: string): string {
  return message.replace(/\b(propertyType|squareFeet|yearBuilt|lotSize)\b/g, (name) => FACT_WORDS[name] ?? name);
}

/** Price per square foot: the server's figure, else the estimate over the square feet, else null. */
export function pricePerSqFt(result: PropertyValuation): number | null {
  const given = result.valuation.pricePerSqFt;
  if (typeof given === "number" && given > 0) return given;
  const sqft = result.details.squareFeet;
  if (typeof sqft === "number" && sqft > 0) return Math.round(result.valuation.estimatedValue / sqft);
  return null;
}

/** A distance in miles with one decimal: 0.43 -> "0.4 mi". */
export function formatMiles(miles: number): string {
  return `${miles.toFixed(1)} mi`;
}

/**
 * A gross yield (a share a year, 0.0612) as a percentage with two decimals, as the server quotes it to four: "6.12%".
 */
export function formatYield(grossYield: number): string {
  return `${(grossYield * 100).toFixed(2)}%`;
}

/** Similarity (0-1) as a whole percentage. */
export function formatSimilarity(similarity: number): string {
  return `${Math.round(Math.min(1, Math.max(0, similarity)) * 100)}%`;
}

const dateFormat = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/**
 * A calendar date ("2024-05-01") or a timestamp as "May 1, 2024". Dates are read and shown in UTC so a date-only
 * value never slips to the day before in American time zones. Unreadable input is returned as it came.
 */
export function formatDate(value: string): string {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(ms) ? value : dateFormat.format(ms);
}

export function homeStatusLabel(status: PropertyValuation["details"]["homeStatus"]): string | null {
  switch (status) {
    case "RECENTLY_SOLD":
      return "Recently sold";
    case "OFF_MARKET":
      return "Off market";
    default:
      return null;
  }
}

export function rentSourceLabel(source: PropertyValuation["marketData"]["rentSource"]): string | null {
  switch (source) {
    case "rental_comparables":
      return "estimated from nearby rents";
    case "model":
      return "model estimate";
    default:
      return null;
  }
}

type Evidence = { source: "model" | "comparables" | "last_sale"; weight: number; value: number; saleDate?: string; salePrice?: number };

const EVIDENCE_LABEL: Record<Evidence["source"], string> = {
  model: "Model",
  comparables: "Comparable sales",
  last_sale: "Last sale of this home",
};

/**
 * What an estimate is made of, heaviest first, as lines for the card: "Model 62%", "Last sale of this home 38%:
 * sold Mar 3, 2026 for $742,500, $760,000 today". Parts the API lists with weight 0 are kept only for the last sale,
 * with the reason it carries none.
 */
export function evidenceLines(evidence: readonly Evidence[] | undefined): string[] {
  if (!evidence) return [];
  const parts = [...evidence].filter((e) => e.weight > 0 || e.source === "last_sale").sort((a, b) => b.weight - a.weight);
  const percents = wholePercents(parts.map((e) => e.weight));
  return parts.map((e, i) => {
      const head = `${EVIDENCE_LABEL[e.source]} ${percents[i]}%`;
      if (e.source !== "last_sale" || !e.saleDate || e.salePrice == null) return head;
      const sale = `sold ${formatDate(e.saleDate)} for ${formatCurrency(e.salePrice)}, ${formatCurrency(e.value)} today`;
      return e.weight > 0 ? `${head}: ${sale}` : `${head}: ${sale} (judged no guide to today's value)`;
    });
}

/** Shares as whole percents that add up to 100 (largest remainder), so "91% · 6% · 4%" never reads as 101%. */
export function wholePercents(shares: readonly number[]): number[] {
  const total = shares.reduce((a, b) => a + b, 0);
  if (total <= 0) return shares.map(() => 0);
  const exact = shares.map((w) => (w / total) * 100);
  const out = exact.map(Math.floor);
  // The points the floors lost go to the shares that lost the most.
  const order = exact.map((x, i) => ({ rest: x - Math.floor(x), i })).sort((a, b) => b.rest - a.rest);
  let left = 100 - out.reduce((a, b) => a + b, 0);
  for (const { i } of order) {
    if (left-- <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

/** How the value was reached (issue 34): the path the server calibrated its confidence on. */
export type ValuationPath = PropertyValuation["valuation"]["path"];

const PATH_TEXT: Record<ValuationPath, string> = {
  own_sale: "Valued from its record and its own recent sale",
  record: "Valued from its record",
  unit: "A unit not on record, valued at its building from the facts you gave",
  facts: "Not on record: valued from the facts you gave",
  type_and_size: "Not on record: valued from its type and size alone",
};

/** The path in words, or null when the server did not say (an answer from before issue 34). */
export function pathText(path: ValuationPath | undefined): string | null {
  return (path && PATH_TEXT[path]) ?? null;
}

/** Paths of a home that is not on record: their words already say what the match note would. */
export function isOffRecordPath(path: ValuationPath | undefined): boolean {
  return path === "unit" || path === "facts" || path === "type_and_size";
}

/**
 * A signed whole-dollar amount, as an appraiser's grid writes adjustments: "+$12,300", "−$8,000" (a true minus
 * sign, as the trend line uses), "$0".
 */
export function formatSignedCurrency(amount: number): string {
  const rounded = Math.round(amount);
  if (rounded === 0) return "$0";
  return `${rounded > 0 ? "+" : "−"}${formatCurrency(Math.abs(rounded))}`;
}

/**
 * A share as a percentage with one decimal, signed for a net adjustment ("+12.4%", "−3.0%"): one decimal so that a
 * share just over a limit (15.4%) never reads as the limit itself. A dash when the server did not send it.
 */
export function formatShare(share: number | undefined, signed = false): string {
  if (typeof share !== "number" || !Number.isFinite(share)) return NOT_KNOWN;
  const pct = Math.abs(share * 100).toFixed(1);
  if (!signed || pct === "0.0") return `${pct}%`;
  return `${share > 0 ? "+" : "−"}${pct}%`;
}

/** Fannie Mae's guideline limits for a comparable's adjustments, as shares of its sale price. */
export const NET_ADJUSTMENT_LIMIT = 0.15;
export const GROSS_ADJUSTMENT_LIMIT = 0.25;

/** The lines of a comparable's adjustments and of the model's drivers (the contract names them alike). */
export type AdjustmentLine = keyof ComparableSale["adjustments"];

export const ADJUSTMENT_LABEL: Record<AdjustmentLine, string> = {
  time: "Time",
  livingArea: "Living area",
  lot: "Lot",
  bedrooms: "Bedrooms",
  bathrooms: "Bathrooms",
  age: "Age",
  quality: "Quality & type",
  location: "Location",
};

/** The grid's adjustment lines in the order an appraisal reads them: time first, location last. */
export const ADJUSTMENT_LINES: readonly AdjustmentLine[] = [
  "time",
  "livingArea",
  "lot",
  "bedrooms",
  "bathrooms",
  "age",
  "quality",
  "location",
];

/**
 * The comparables whose adjusted prices make the comparables' value, in the server's order (most alike first). An
 * answer from before issue 34 has no `reconciled` flags, hence none.
 */
export function reconciledComparables(comparables: readonly ComparableSale[]): ComparableSale[] {
  return comparables.filter((c) => c.reconciled === true);
}

export type ValueDrivers = NonNullable<PropertyValuation["valuation"]["drivers"]>;
