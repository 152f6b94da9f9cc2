import { useQuery } from "@tanstack/react-query";
import { ApiError, apiJson } from "@/lib/api";
import type { components } from "@/lib/api-types";

// GET /api/markets and GET /api/markets/compare (issue 28; the session twins of /api/v1/markets[/compare]): a ZIP's
// market statistics. Each ZIP found costs 1 credit (only a 200 is charged); an invalid ZIP or parameter is a free 400
// naming the field; a ZIP with no records a free 404 ("No records for ZIP 12345."), or, in a comparison, a ZIP listed
// in `notFound`. Thin blocks are omitted with a reason, never shown as a median of two sales.

export const MARKETS_PATH = "/api/markets";
export const COMPARE_PATH = "/api/markets/compare";

/** The property types the engine knows (the `propertyType` filter). */
export const MARKET_PROPERTY_TYPES = ["Single Family", "Condo", "Townhouse", "Multi-Family", "Manufactured", "Other"] as const;
export type MarketPropertyType = (typeof MARKET_PROPERTY_TYPES)[number];

/** The history lengths offered (the API takes 1 to 120 months; 24 by default). */
export const HISTORY_MONTHS = [12, 24, 36, 60, 120] as const;
export const DEFAULT_HISTORY_MONTHS = 24;
/** At most this many ZIPs side by side (the compare endpoint's limit). */
export const MAX_ZIPS = 5;

// The answer's shapes are the contract's (api/openapi.yaml, generated into lib/api-types.ts by `npm run gen:api`).
type Schemas = components["schemas"];
export type Market = Schemas["Market"];
/** A block with enough records: its figures, its splits and the groups left out. */
export type FullBlock = Schemas["MarketFigures"];
/** A block (or the values) with fewer than 5 records: its count and why it is not shown. */
export type ThinBlock = Schemas["MarketOmitted"];
export type Block = Schemas["MarketBlock"];
/** The figures of one group of records (a property type or a bedroom count), or of a whole block. */
export type BlockFigures = Omit<Schemas["MarketGroup"], "propertyType" | "bedrooms">;
export type ValueDistribution = Schemas["MarketValues"];
export type Values = Market["values"];

/** What the screen shows: the markets found, in the order asked, and the ZIPs with no records. */
export interface MarketsResult {
  markets: Market[];
  notFound: string[];
}

export function isThin(block: Block): block is ThinBlock {
  return typeof (block as ThinBlock).omitted === "string";
}

export function hasValues(values: Values): values is ValueDistribution {
  return typeof (values as { omitted?: unknown }).omitted !== "string";
}

/** A search: the main ZIP, the ZIPs compared with it, and the filters. */
export interface MarketQuery {
  zip: string;
  compare: string[];
  propertyType: MarketPropertyType | null;
  historyMonths: number;
}

/** Every ZIP of a search, the main one first, without repeats. */
export function zipsOf(q: MarketQuery): string[] {
  return [...new Set([q.zip, ...q.compare])];
}

/** The request of a search: the single endpoint for one ZIP, the compare endpoint for more. */
export function marketsUrl(q: MarketQuery): string {
  const zips = zipsOf(q);
  const params = new URLSearchParams();
  for (const z of zips) params.append("zip", z);
  if (q.historyMonths !== DEFAULT_HISTORY_MONTHS) params.set("historyMonths", String(q.historyMonths));
  if (q.propertyType) params.set("propertyType", q.propertyType);
  return `${zips.length > 1 ? COMPARE_PATH : MARKETS_PATH}?${params.toString()}`;
}

export async function fetchMarkets(q: MarketQuery): Promise<MarketsResult> {
  const zips = zipsOf(q);
  if (zips.length > 1) {
    const res = await apiJson<{ data: Schemas["MarketComparison"] }>("GET", marketsUrl(q));
    const byZip = new Map(res.data.markets.map((m) => [m.zip, m]));
    // The order asked, whatever the order answered.
    const markets = zips.map((z) => byZip.get(z)).filter((m): m is Market => !!m);
    for (const m of res.data.markets) if (!markets.includes(m)) markets.push(m);
    return { markets, notFound: res.data.notFound };
  }
  const res = await apiJson<{ data: Market }>("GET", marketsUrl(q));
  return { markets: [res.data], notFound: [] };
}

export function marketsKey(q: MarketQuery | null): readonly unknown[] {
  return ["markets", q ? marketsUrl(q) : null];
}

/**
 * The statistics of a search, asked only once `run` says so (the user pressed the button that states the cost).
 * Every answer costs credits, so an answer is kept for the session and never fetched again behind the user's back
 * (no refetch on focus, reconnect or failure).
 */
export function useMarkets(q: MarketQuery | null, run: boolean) {
  return useQuery({
    queryKey: marketsKey(q),
    queryFn: () => fetchMarkets(q!),
    enabled: q !== null && run,
    staleTime: Infinity,
    gcTime: 30 * 60_000,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    refetchOnMount: false,
  });
}

/** The server's messages for the search's fields (a 400 names `zip`, `historyMonths` or `propertyType`). */
export function fieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError) || err.status !== 400 || !err.body) return {};
  const messages: Record<string, string> = { ...(err.body.fields ?? {}) };
  if (err.body.field && !messages[err.body.field]) messages[err.body.field] = err.body.error;
  return messages;
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}

/** The cost of a search: "1 Credit", "3 Credits". */
export function creditsText(n: number): string {
  return `${n} ${n === 1 ? "Credit" : "Credits"}`;
}

export const ZIP_PATTERN = /^\d{5}$/;

/** The search a URL holds (?zip=98103&compare=98115,98107&propertyType=Condo&historyMonths=36), or null. */
export function queryFromParams(params: URLSearchParams): MarketQuery | null {
  const zip = (params.get("zip") ?? "").trim();
  if (!ZIP_PATTERN.test(zip)) return null;
  const compare = [
    ...new Set(
      (params.get("compare") ?? "")
        .split(",")
        .map((z) => z.trim())
        .filter((z) => ZIP_PATTERN.test(z) && z !== zip),
    ),
  ].slice(0, MAX_ZIPS - 1);
  const type = params.get("propertyType");
  const propertyType = (MARKET_PROPERTY_TYPES as readonly string[]).includes(type ?? "") ? (type as MarketPropertyType) : null;
  const months = Number(params.get("historyMonths"));
  const historyMonths = Number.isInteger(months) && months >= 1 && months <= 120 ? months : DEFAULT_HISTORY_MONTHS;
  return { zip, compare, propertyType, historyMonths };
}

/** The URL search of a search, so it can be shared. */
export function paramsFromQuery(q: MarketQuery): URLSearchParams {
  const params = new URLSearchParams();
  params.set("zip", q.zip);
  if (q.compare.length > 0) params.set("compare", q.compare.join(","));
  if (q.propertyType) params.set("propertyType", q.propertyType);
  if (q.historyMonths !== DEFAULT_HISTORY_MONTHS) params.set("historyMonths", String(q.historyMonths));
  return params;
}
