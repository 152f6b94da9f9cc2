import { toCsv, type CsvValue } from "@/lib/csv";
import {
  hasValues,
  isThin,
  type Block,
  type BlockFigures,
  type Market,
} from "./api/markets-api";

// The figures of the Markets screen as text, and its CSV export: the same figures the screen shows, nothing more.

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const count = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Whole dollars ("$905,000"); a missing figure is a dash. */
export function dollars(v: number | null | undefined): string {
  return typeof v === "number" && Number.isFinite(v) ? usd.format(v) : "—";
}

const usdCents = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Rent per square foot with cents ("$2.41/sq ft"); a missing figure is a dash. */
export function rentPerSqft(v: number | null | undefined): string {
  return typeof v === "number" && Number.isFinite(v) ? `${usdCents.format(v)}/sq ft` : "—";
}

export function countText(v: number | null | undefined): string {
  return typeof v === "number" && Number.isFinite(v) ? count.format(v) : "—";
}

/** A change as a signed percentage with one decimal ("+5.1%", "−0.4%"); a missing change is a dash. */
export function percentChange(v: number | null | undefined): string {
  if (typeof v !== "number" || !Number.isFinite(v)) return "—";
  const pct = v * 100;
  const rounded = Math.abs(pct) < 0.05 ? 0 : pct;
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : ""}${Math.abs(rounded).toFixed(1)}%`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2025-12" as "Dec 2025". */
export function monthLabel(month: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return month;
  const i = Number(m[2]) - 1;
  return MONTHS[i] ? `${MONTHS[i]} ${m[1]}` : month;
}

/** "2026-11-20" as "Nov 20, 2026". */
export function dayLabel(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  const i = Number(m[2]) - 1;
  return MONTHS[i] ? `${MONTHS[i]} ${Number(m[3])}, ${m[1]}` : day;
}

/**
 * The one as-of date of a page of markets: the newest record of them all, and the ZIP codes whose own newest record is
 * older (their 12 months and history end earlier), each with its date.
 */
export function pageAsOf(markets: readonly Pick<Market, "zip" | "asOf">[]): { latest: string; older: { zip: string; asOf: string }[] } {
  // ISO dates compare as text.
  const latest = markets.reduce((a, m) => (m.asOf > a ? m.asOf : a), "");
  return { latest, older: markets.filter((m) => m.asOf < latest).map((m) => ({ zip: m.zip, asOf: m.asOf })) };
}

/**
 * What the monthly medians are taken over, in words, or null when both are the month's own: a thin ZIP's are rolling
 * 3-month medians (the API's historyWindow).
 */
export function historyWindowNote(m: Pick<Market, "historyWindow">): string | null {
  const { sales, rents } = m.historyWindow;
  if (sales === 1 && rents === 1) return null;
  const what = sales > 1 && rents > 1 ? "sales and rents" : sales > 1 ? "sales" : "rents";
  return `3-month rolling median of ${what}: this ZIP has few ${what} a month, so each month's median is over that month and the two before`;
}

/** "SEATTLE" as "Seattle" (the records keep cities in capitals). */
export function cityName(city: string): string {
  return city.toLowerCase().replace(/(^|[\s-])\p{L}/gu, (s) => s.toUpperCase());
}

export function placeName(m: Pick<Market, "zip" | "city" | "state">): string {
  const place = [m.city ? cityName(m.city) : "", m.state].filter(Boolean).join(", ");
  return place ? `${m.zip} · ${place}` : m.zip;
}

/** The latest point of the price index, if any. */
export function latestIndex(m: Market) {
  return m.priceIndex.length > 0 ? m.priceIndex[m.priceIndex.length - 1]! : null;
}

/** A group of a block's split, with its figures or the reason it is left out. */
/** Which price index a ZIP code's figures follow, in words: "the ZIP code's own index", "the 981xx area's index"… */
export function indexAreaLabel(a: Market["priceIndexArea"]): string {
  if (!a) return "no index";
  switch (a.level) {
    case "zip":
      return "the ZIP code's own index";
    case "area":
      return `the ${a.area ?? ""}xx area's index`;
    case "metro":
      return `its metro's index (the metro of ${a.area ?? ""})`;
    default:
      return "the whole market's index";
  }
}

/**
 * The lines of the price index chart: each ZIP code follows its area's index (its own, its 3-digit area's, its
 * metro's or the whole market's), so ZIP codes of one area compared over the same months have the same series,
 * drawn once and named after all of them ("98103, 98115"); another area, or a ZIP whose months differ (its newest
 * record is older), has a line of its own.
 */
export function indexLines(markets: readonly Market[]): { name: string; zips: string[]; points: Market["priceIndex"] }[] {
  const lines: { name: string; zips: string[]; points: Market["priceIndex"]; key: string }[] = [];
  for (const m of markets) {
    if (m.priceIndex.length === 0) continue;
    const key = JSON.stringify(m.priceIndex);
    const same = lines.find((l) => l.key === key);
    if (same) same.zips.push(m.zip);
    else lines.push({ name: "", zips: [m.zip], points: m.priceIndex, key });
  }
  return lines.map(({ zips, points }) => ({ name: zips.join(", "), zips, points }));
}

export interface GroupRow {
  group: string;
  sales: BlockFigures | null;
  rents: BlockFigures | null;
}

/**
 * The rows of the table by property type or by bedrooms: every group either block has, in the order the sales list
 * them (rents' own after). A group one block omits has no figures there; its reason is listed under the table.
 */
export function groupRows(m: Market, by: "propertyType" | "bedrooms"): GroupRow[] {
  const rows = new Map<string, GroupRow>();
  const add = (block: Block, key: "sales" | "rents") => {
    if (isThin(block)) return;
    const groups: (BlockFigures & { group: string })[] =
      by === "propertyType"
        ? block.byPropertyType.map((g) => ({ ...g, group: g.propertyType ?? "" }))
        : block.byBedrooms.map((g) => ({ ...g, group: g.bedrooms ?? "" }));
    for (const g of groups) {
      const row = rows.get(g.group) ?? { group: g.group, sales: null, rents: null };
      row[key] = g;
      rows.set(g.group, row);
    }
  };
  add(m.sales, "sales");
  add(m.rents, "rents");
  return [...rows.values()];
}

/** The groups a block left out, and why ("Manufactured" sales: "Fewer than 5 sales in the last 12 months."). */
export function omittedGroups(m: Market): { block: "Sales" | "Rents"; group: string; reason: string }[] {
  const out: { block: "Sales" | "Rents"; group: string; reason: string }[] = [];
  for (const [name, block] of [["Sales", m.sales], ["Rents", m.rents]] as const) {
    if (isThin(block)) continue;
    for (const o of block.omitted ?? []) out.push({ block: name, group: o.group, reason: o.reason });
  }
  return out;
}

/** Bedrooms as a group name ("3 bedrooms", "5+ bedrooms", "1 bedroom"). */
export function bedroomsLabel(b: string): string {
  return `${b} ${b === "1" ? "bedroom" : "bedrooms"}`;
}

// ---- CSV -------------------------------------------------------------------------------------------------------

function blockCells(block: Block, perSqft: "medianPricePerSqft" | "medianRentPerSqft"): CsvValue[] {
  if (isThin(block)) return [block.count, "", "", "", "", "", block.omitted];
  return [block.count, block.median, block.mean, block.min, block.max, perSqftCell(block[perSqft]), ""];
}

function figureCells(f: BlockFigures | null, perSqft: "medianPricePerSqft" | "medianRentPerSqft"): CsvValue[] {
  return f ? [f.count, f.median, f.mean, f.min, f.max, perSqftCell(f[perSqft])] : ["", "", "", "", "", ""];
}

/** A per-square-foot figure as the API gives it (rents in dollars and cents, "2.40"), or an empty cell. */
function perSqftCell(v: number | null | undefined): CsvValue {
  return typeof v === "number" && Number.isFinite(v) ? (Number.isInteger(v) ? v : v.toFixed(2)) : "";
}

/**
 * The CSV of what the screen shows: a summary row per ZIP, the tables by property type and bedrooms, and the monthly
 * history with the price index. Omitted figures are empty cells with their reason beside them, never a number. Every
 * cell is formula-safe (lib/csv), so a city name can never run as a spreadsheet formula.
 */
export function marketsCsv(markets: readonly Market[], notFound: readonly string[] = []): string {
  const rows: CsvValue[][] = [];
  rows.push(["Market statistics"]);
  rows.push([
    "ZIP", "City", "State", "Records up to", "Property type",
    "Sales (12 months)", "Median sale price", "Mean sale price", "Min sale price", "Max sale price", "Median price per sq ft", "Sales note",
    "Rents (12 months)", "Median rent", "Mean rent", "Min rent", "Max rent", "Median rent per sq ft", "Rents note",
    "Homes on record", "Median home value", "Home value 25th percentile", "Home value 75th percentile", "Home values note",
    "Price index change 1 month (%)", "Price index change 12 months (%)", "Demo data",
  ]);
  for (const m of markets) {
    const idx = latestIndex(m);
    const v = m.values;
    rows.push([
      m.zip, m.city, m.state, m.asOf, m.propertyType ?? "All",
      ...blockCells(m.sales, "medianPricePerSqft"),
      ...blockCells(m.rents, "medianRentPerSqft"),
      ...(hasValues(v) ? [v.count, v.median, v.p25, v.p75, ""] : ["", "", "", "", v.omitted]),
      pct(idx?.change1m), pct(idx?.change12m), m.isDemo ? "Yes" : "No",
    ]);
  }
  for (const z of notFound) rows.push([z, "", "", "", "", "", "", "", "", "", "", `No records for ZIP ${z}.`]);

  rows.push([]);
  rows.push(["By group"]);
  rows.push([
    "ZIP", "Grouping", "Group",
    "Sales", "Median sale price", "Mean sale price", "Min sale price", "Max sale price", "Median price per sq ft",
    "Rents", "Median rent", "Mean rent", "Min rent", "Max rent", "Median rent per sq ft",
  ]);
  for (const m of markets) {
    for (const [by, grouping] of [["propertyType", "Property type"], ["bedrooms", "Bedrooms"]] as const) {
      for (const r of groupRows(m, by)) {
        rows.push([m.zip, grouping, r.group, ...figureCells(r.sales, "medianPricePerSqft"), ...figureCells(r.rents, "medianRentPerSqft")]);
      }
    }
  }
  rows.push([]);
  rows.push(["Omitted"]);
  rows.push(["ZIP", "Block", "Group", "Reason"]);
  for (const m of markets) {
    if (isThin(m.sales)) rows.push([m.zip, "Sales", "All", m.sales.omitted]);
    if (isThin(m.rents)) rows.push([m.zip, "Rents", "All", m.rents.omitted]);
    if (!hasValues(m.values)) rows.push([m.zip, "Home values", "All", m.values.omitted]);
    for (const o of omittedGroups(m)) rows.push([m.zip, o.block, o.group, o.reason]);
  }

  rows.push([]);
  rows.push(["Monthly history"]);
  rows.push([
    "ZIP", "Month", "Price index", "Index change 1 month (%)", "Index change 12 months (%)",
    "Sales", "Median sale price", "Rents", "Median rent", "Sale median window (months)", "Rent median window (months)",
  ]);
  for (const m of markets) {
    const index = new Map(m.priceIndex.map((p) => [p.month, p]));
    const history = new Map(m.history.map((h) => [h.month, h]));
    const months = [...new Set([...m.priceIndex.map((p) => p.month), ...m.history.map((h) => h.month)])].sort();
    for (const month of months) {
      const p = index.get(month);
      const h = history.get(month);
      rows.push([
        m.zip, month, p ? round(p.index, 4) : "", pct(p?.change1m), pct(p?.change12m),
        h?.salesCount ?? "", h?.medianSalePrice ?? "", h?.rentsCount ?? "", h?.medianRent ?? "",
        h ? m.historyWindow.sales : "", h ? m.historyWindow.rents : "",
      ]);
    }
  }
  return toCsv(rows);
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

function pct(v: number | null | undefined): CsvValue {
  return typeof v === "number" && Number.isFinite(v) ? round(v * 100, 2) : "";
}

/** The export's file name: market-98103-98115-2026-11-27.csv. */
export function marketsFileName(zips: readonly string[], now: Date = new Date()): string {
  return `market-${zips.join("-")}-${now.toISOString().slice(0, 10)}.csv`;
}
