import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { useQueryClient } from "@tanstack/react-query";
import { AlertCircle, Download, Plus, Search, X } from "lucide-react";
import { PageHeader } from "@/app/shell/page-header";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { Spinner } from "@/components/ui/spinner";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import { toast } from "@/components/ui/use-toast";
import { useFocusResult } from "@/components/ui/use-focus-result";
import { errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { saveTextFile } from "@/lib/csv";
import { cn } from "@/lib/utils";
import { insufficientCredits, toastInsufficientCredits } from "@/components/insufficient-credits";
import {
  creditsText,
  DEFAULT_HISTORY_MONTHS,
  fieldErrors,
  hasValues,
  HISTORY_MONTHS,
  isNotFound,
  isThin,
  MARKET_PROPERTY_TYPES,
  marketsKey,
  marketsUrl,
  MAX_ZIPS,
  paramsFromQuery,
  queryFromParams,
  useMarkets,
  ZIP_PATTERN,
  zipsOf,
  type Market,
  type MarketPropertyType,
  type MarketQuery,
} from "./api/markets-api";
import { MedianPricesChart, PriceIndexChart } from "./components/market-charts";
import {
  bedroomsLabel,
  cityName,
  countText,
  dayLabel,
  dollars,
  groupRows,
  indexAreaLabel,
  latestIndex,
  marketsCsv,
  marketsFileName,
  omittedGroups,
  pageAsOf,
  percentChange,
  placeName,
  rentPerSqft,
  type GroupRow,
} from "./markets-helpers";

// The Markets screen (issue 28): what a ZIP code's market is doing, from the engine's own records: the headline
// figures, the price index and the medians over time, the split by property type and bedrooms, up to five ZIPs side
// by side, and a CSV of what is shown. The search lives in the URL (?zip=98103&compare=98115,98107), so a view can
// be shared; every search costs 1 credit per ZIP found, which the button says.

export const ZIP_MESSAGE = "ZIP code must be 5 digits";
export const COMPARE_MESSAGE = "Compare ZIP code must be 5 digits";
const MARKETS_FALLBACK = "Failed to load market statistics";
// Examples of what to type, shown under the fields as "e.g. 98103" and never as placeholders, which read as typed
// values (issue 33).
const ZIP_EXAMPLE = "98103";
const COMPARE_EXAMPLE = "98115";

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 aria-[invalid=true]:border-destructive";

export function MarketsPage() {
  const [params, setParams] = useSearchParams();
  const query = queryFromParams(params);
  const queryClient = useQueryClient();
  // A search is charged, so it runs only from the button that says its cost: a URL (a shared link, the lookup's
  // "See the 98103 market") fills the form and waits. An answer this session already paid for is shown at once.
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const url = query ? marketsUrl(query) : null;
  const paid = !!query && queryClient.getQueryData(marketsKey(query)) !== undefined;
  const markets = useMarkets(query, paid || (url !== null && url === confirmed));
  const { refreshUser } = useAuth();

  // Each outcome (the statistics, not found, a failure shown in place) takes focus to its heading.
  const resultArea = useRef<HTMLElement>(null);
  const [arrival, setArrival] = useState(0);
  useFocusResult(resultArea, arrival, !markets.isFetching);
  const searched = useRef(false);

  // A search that answered: the balance in the header changed (credits were used), or the answer is a 402.
  const settledAt = markets.isSuccess ? markets.dataUpdatedAt : markets.isError ? markets.errorUpdatedAt : 0;
  useEffect(() => {
    if (!settledAt) return;
    if (searched.current) setArrival((n) => n + 1);
    if (markets.isSuccess) {
      void refreshUser();
      return;
    }
    toastInsufficientCredits(markets.error, {
      costs: "this search costs",
      price: 1, // the server's 402 names the search's price; 1 a ZIP
      fallback: MARKETS_FALLBACK,
      refreshUser,
    });
    // Only a new answer is announced, not a re-render.
  }, [settledAt]);

  const onSearch = (q: MarketQuery) => {
    searched.current = true;
    const next = marketsUrl(q);
    // The same search again after a failure (credits bought since a 402, the server back) asks again.
    if (next === confirmed && markets.isError) void markets.refetch();
    setConfirmed(next);
    setParams(paramsFromQuery(q));
  };

  const serverErrors = markets.isError ? fieldErrors(markets.error) : {};

  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader
        title="Markets"
        subtitle="What a ZIP code's market is doing: sales, rents, home values and the price index, from our own records"
      />
      <div className="space-y-6">
        <SearchForm
          key={params.toString()}
          initial={query}
          pending={markets.isFetching}
          serverErrors={serverErrors}
          onSearch={onSearch}
        />
        <section ref={resultArea} aria-label="Market statistics" aria-busy={markets.isFetching} className="space-y-6">
          {!query ? (
            <IntroCard />
          ) : markets.isPending && !markets.isFetching ? (
            <ReadyCard query={query} />
          ) : markets.isFetching ? (
            <Card data-testid="markets-pending">
              <CardContent className="flex flex-col items-center gap-3 py-16 text-center">
                <Spinner label="Loading market statistics" />
                <p className="text-sm text-muted-foreground">
                  Reading the market of <span className="font-medium text-foreground">{zipsOf(query).join(", ")}</span>...
                </p>
              </CardContent>
            </Card>
          ) : markets.isError ? (
            <ErrorState error={markets.error} query={query} onRetry={() => void markets.refetch()} />
          ) : markets.data ? (
            <Results markets={markets.data.markets} notFound={markets.data.notFound} query={query} />
          ) : null}
        </section>
      </div>
    </div>
  );
}

// ---- The search --------------------------------------------------------------------------------------------------

interface SearchFormProps {
  initial: MarketQuery | null;
  pending: boolean;
  serverErrors: Record<string, string>;
  onSearch: (q: MarketQuery) => void;
}

function SearchForm({ initial, pending, serverErrors, onSearch }: SearchFormProps) {
  const [zip, setZip] = useState(initial?.zip ?? "");
  const [compare, setCompare] = useState<string[]>(initial?.compare ?? []);
  const [compareDraft, setCompareDraft] = useState("");
  const [propertyType, setPropertyType] = useState<string>(initial?.propertyType ?? "");
  const [historyMonths, setHistoryMonths] = useState<number>(initial?.historyMonths ?? DEFAULT_HISTORY_MONTHS);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const zipRef = useRef<HTMLInputElement>(null);
  const compareRef = useRef<HTMLInputElement>(null);

  const e = { ...serverErrors, ...errors };
  const zipCount = 1 + compare.filter((z) => z !== zip.trim()).length;
  const canAdd = compare.length < MAX_ZIPS - 1;

  const addCompare = () => {
    const z = compareDraft.trim();
    let message = "";
    if (!ZIP_PATTERN.test(z)) message = COMPARE_MESSAGE;
    else if (z === zip.trim() || compare.includes(z)) message = `${z} is already in the comparison`;
    else if (!canAdd) message = `Compare at most ${MAX_ZIPS} ZIP codes`;
    if (message) {
      setErrors((prev) => ({ ...prev, compare: message }));
      compareRef.current?.focus();
      return;
    }
    setCompare((prev) => [...prev, z]);
    setCompareDraft("");
    setErrors(({ compare: _dropped, ...rest }) => rest);
  };

  const removeCompare = (z: string) => {
    setCompare((prev) => prev.filter((x) => x !== z));
    // The removed chip's button is gone: the field to add another takes focus.
    compareRef.current?.focus();
  };

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (pending) return;
    const z = zip.trim();
    if (!ZIP_PATTERN.test(z)) {
      setErrors({ zip: ZIP_MESSAGE });
      zipRef.current?.focus();
      return;
    }
    setErrors({});
    onSearch({
      zip: z,
      compare: compare.filter((c) => c !== z),
      propertyType: (MARKET_PROPERTY_TYPES as readonly string[]).includes(propertyType) ? (propertyType as MarketPropertyType) : null,
      historyMonths,
    });
  };

  return (
    <Card>
      <CardContent className="pt-6">
        <form noValidate onSubmit={submit} className="space-y-4" aria-label="Market search">
          <div className="grid gap-4 sm:grid-cols-3">
            <Field id="markets-zip" label="ZIP Code" error={e.zip} example={ZIP_EXAMPLE}>
              <Input
                ref={zipRef}
                inputMode="numeric"
                autoComplete="postal-code"
                maxLength={10}
                value={zip}
                onChange={(ev) => setZip(ev.target.value)}
                {...fieldA11y("markets-zip", e.zip, true)}
              />
            </Field>
            <Field id="markets-property-type" label="Property Type" error={e.propertyType}>
              <select
                className={selectClass}
                value={propertyType}
                onChange={(ev) => setPropertyType(ev.target.value)}
                {...fieldA11y("markets-property-type", e.propertyType)}
              >
                <option value="">All types</option>
                {MARKET_PROPERTY_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="markets-history" label="History" error={e.historyMonths}>
              <select
                className={selectClass}
                value={String(historyMonths)}
                onChange={(ev) => setHistoryMonths(Number(ev.target.value))}
                {...fieldA11y("markets-history", e.historyMonths)}
              >
                {[...new Set([...HISTORY_MONTHS, historyMonths])].sort((a, b) => a - b).map((n) => (
                  <option key={n} value={n}>
                    {`${n} months`}
                  </option>
                ))}
              </select>
            </Field>
          </div>

          <fieldset className="space-y-3 rounded-md border border-dashed p-4" data-testid="compare-zips">
            <legend className="px-1 text-sm font-medium">Compare with other ZIP codes (optional)</legend>
            {compare.length > 0 ? (
              <ul className="flex flex-wrap gap-2" aria-label="ZIP codes compared">
                {compare.map((z) => (
                  <li key={z} className="inline-flex items-center gap-1 rounded-full border bg-muted/50 py-0.5 pl-3 pr-1 text-sm">
                    {z}
                    <Button
                      type="button"
                      variant="ghost"
                      size="icon"
                      className="h-7 w-7 rounded-full"
                      aria-label={`Remove ${z}`}
                      onClick={() => removeCompare(z)}
                    >
                      <X aria-hidden="true" />
                    </Button>
                  </li>
                ))}
              </ul>
            ) : null}
            <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
              <Field id="markets-compare" label="Compare ZIP Code" error={e.compare} example={COMPARE_EXAMPLE} className="sm:w-60">
                <Input
                  ref={compareRef}
                  inputMode="numeric"
                  maxLength={10}
                  value={compareDraft}
                  disabled={!canAdd}
                  onChange={(ev) => setCompareDraft(ev.target.value)}
                  onKeyDown={(ev) => {
                    if (ev.key === "Enter") {
                      ev.preventDefault();
                      addCompare();
                    }
                  }}
                  {...fieldA11y("markets-compare", e.compare, true)}
                />
              </Field>
              <Button type="button" variant="outline" className="sm:mt-8" onClick={addCompare} disabled={!canAdd}>
                <Plus aria-hidden="true" />
                Add ZIP
              </Button>
            </div>
            <p className="text-xs text-muted-foreground">
              {canAdd ? `Up to ${MAX_ZIPS} ZIP codes side by side.` : `${MAX_ZIPS} ZIP codes is the most compared at once.`}
            </p>
          </fieldset>

          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-xs text-muted-foreground">
              1 credit per ZIP code with records; a ZIP code with none, or a search that fails, is free.
            </p>
            {/* Not disabled while the search runs, so focus stays here until the result's heading takes it. */}
            <PendingButton type="submit" pending={pending} className="w-full sm:w-auto">
              <Search aria-hidden="true" />
              {pending ? "Searching..." : `Search (${creditsText(zipCount)})`}
            </PendingButton>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

// ---- The outcomes ----------------------------------------------------------------------------------------------

function IntroCard() {
  return (
    <Card data-testid="markets-intro" className="border-dashed">
      <CardContent className="space-y-1 py-10 text-center">
        <h2 className="text-lg font-semibold">Search a ZIP code</h2>
        <p className="text-sm text-muted-foreground">
          See its sales, rents, the values of the homes on record and the price index, and compare up to five ZIP codes.
        </p>
      </CardContent>
    </Card>
  );
}

/** A search from the URL, waiting for the button: what it will show and cost. */
function ReadyCard({ query }: { query: MarketQuery }) {
  const zips = zipsOf(query);
  return (
    <Card data-testid="markets-ready" className="border-dashed">
      <CardContent className="space-y-1 py-10 text-center">
        <h2 className="text-lg font-semibold">{`Ready to search ${zips.join(", ")}`}</h2>
        <p className="text-sm text-muted-foreground">
          {`Press Search to see ${zips.length === 1 ? "its market" : "their markets side by side"}; it costs ${creditsText(zips.length).toLowerCase()}, and a ZIP code with no records is free.`}
        </p>
      </CardContent>
    </Card>
  );
}

function ErrorState({ error, query, onRetry }: { error: unknown; query: MarketQuery; onRetry: () => void }) {
  if (isNotFound(error)) {
    const zips = zipsOf(query);
    const message = errorMessage(error, zips.length === 1 ? `No records for ZIP ${query.zip}.` : "No records for these ZIP codes.");
    return (
      <Card data-testid="markets-not-found" className="border-dashed">
        <CardContent className="space-y-1 py-10 text-center">
          <h2 className="text-lg font-semibold">{message}</h2>
          <p className="text-sm text-muted-foreground">No credit was used. Try a nearby ZIP code.</p>
        </CardContent>
      </Card>
    );
  }
  const credits = insufficientCredits(error, 1);
  if (credits) {
    return (
      <Card data-testid="markets-no-credits" className="border-destructive/40">
        <CardContent className="space-y-2 py-8 text-center">
          <h2 className="text-lg font-semibold">Not enough credits</h2>
          <p className="text-sm text-muted-foreground">
            {`This search costs ${creditsText(credits.creditsRequired).toLowerCase()}. `}
            <Link to="/billing" className="font-medium text-primary underline underline-offset-2">
              Add credits on Billing &amp; Credits
            </Link>
          </p>
        </CardContent>
      </Card>
    );
  }
  const fields = fieldErrors(error);
  return (
    <Card role="alert" data-testid="markets-error" className="border-destructive/40">
      <CardContent className="flex flex-col gap-3 pt-6 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex items-start gap-3">
          <AlertCircle className="mt-0.5 h-5 w-5 shrink-0 text-destructive" aria-hidden="true" />
          <div>
            <h2 className="font-medium">{MARKETS_FALLBACK}</h2>
            <p className="text-sm text-muted-foreground">{errorMessage(error, "Please try again.")}</p>
          </div>
        </div>
        {Object.keys(fields).length === 0 ? (
          <Button type="button" variant="outline" size="sm" onClick={onRetry}>
            Retry
          </Button>
        ) : null}
      </CardContent>
    </Card>
  );
}

function Results({ markets, notFound, query }: { markets: Market[]; notFound: string[]; query: MarketQuery }) {
  const main = markets[0];
  const onExport = () => {
    const fileName = marketsFileName(markets.map((m) => m.zip));
    try {
      saveTextFile(marketsCsv(markets, notFound), fileName);
    } catch {
      toast({ variant: "destructive", title: "Export Failed", description: "Failed to export. Please try again." });
      return;
    }
    toast({ title: "Export Ready", description: `Saved as ${fileName}` });
  };
  if (!main) return null;
  const compared = markets.length > 1;
  // One date for the page: the newest record of all the ZIPs shown; a ZIP whose own newest record is older (its 12
  // months and history end earlier) is named with its date.
  const asOf = pageAsOf(markets);
  const demo = markets.filter((m) => m.isDemo).map((m) => m.zip);
  return (
    <>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div className="space-y-1">
          <div className="flex flex-wrap items-center gap-2">
            <h2 className="text-xl font-semibold" data-testid="market-title">
              {compared ? `${markets.map((m) => m.zip).join(", ")} compared` : placeName(main)}
            </h2>
            {demo.length > 0 ? (
              <Badge
                variant="warning"
                data-testid="market-demo-badge"
                title={`${compared && demo.length < markets.length ? `${demo.join(", ")}: these` : "These"} figures come from the generated demo market, not from real public records.`}
              >
                {compared && demo.length < markets.length ? `Demo data: ${demo.join(", ")}` : "Demo data"}
              </Badge>
            ) : null}
          </div>
          <p className="text-sm text-muted-foreground" data-testid="market-as-of">
            {`Records up to ${dayLabel(asOf.latest)}`}
            {query.propertyType ? ` · ${query.propertyType} only` : ""}
            {` · ${query.historyMonths} months of history`}
          </p>
          {asOf.older.length > 0 ? (
            <p className="text-xs text-muted-foreground" data-testid="market-as-of-older">
              {asOf.older.map((o) => `${o.zip}'s newest record is ${dayLabel(o.asOf)}`).join("; ")}
              {`: ${asOf.older.length === 1 ? "its" : "their"} 12 months and history end then.`}
            </p>
          ) : null}
        </div>
        <Button type="button" variant="outline" onClick={onExport} className="w-full sm:w-auto">
          <Download aria-hidden="true" />
          Export CSV
        </Button>
      </div>

      {notFound.length > 0 ? (
        <p data-testid="markets-not-found-list" className="rounded-md border border-dashed bg-muted/40 p-3 text-sm">
          {notFound.map((z) => `No records for ZIP ${z}.`).join(" ")} No credit was used for{" "}
          {notFound.length === 1 ? "it" : "them"}.
        </p>
      ) : null}

      {compared ? <CompareTable markets={markets} /> : <HeadlineCards market={main} />}

      <div className="grid gap-6 lg:grid-cols-2">
        <PriceIndexChart markets={markets} />
        <MedianPricesChart market={main} />
      </div>

      {markets.map((m) => (
        <BreakdownCard key={m.zip} market={m} showZip={compared} />
      ))}
    </>
  );
}

function HeadlineCard({ testId, title, value, note }: { testId: string; title: string; value: string; note: string }) {
  return (
    <Card data-testid={testId}>
      <CardContent className="space-y-2 pt-6">
        <h3 className="text-sm font-medium text-muted-foreground">{title}</h3>
        <p className="text-2xl font-bold tabular-nums" data-testid={`${testId}-value`}>
          {value}
        </p>
        <p className="text-xs text-muted-foreground" data-testid={`${testId}-note`}>
          {note}
        </p>
      </CardContent>
    </Card>
  );
}

/** The headline figures of one ZIP; a thin block shows its reason in place of a figure. */
function HeadlineCards({ market: m }: { market: Market }) {
  const idx = latestIndex(m);
  const v = m.values;
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
      <HeadlineCard
        testId="stat-median-sale"
        title="Median Sale Price"
        value={isThin(m.sales) ? "—" : dollars(m.sales.median)}
        note={
          isThin(m.sales)
            ? m.sales.omitted
            : typeof m.sales.medianPricePerSqft === "number"
              ? `Mean ${dollars(m.sales.mean)}; ${dollars(m.sales.medianPricePerSqft)} per sq ft`
              : `Mean ${dollars(m.sales.mean)}`
        }
      />
      <HeadlineCard
        testId="stat-sales-count"
        title="Sales (12 Months)"
        value={countText(m.sales.count)}
        note={isThin(m.sales) ? m.sales.omitted : `From ${dollars(m.sales.min)} to ${dollars(m.sales.max)}`}
      />
      <HeadlineCard
        testId="stat-median-rent"
        title="Median Rent"
        value={isThin(m.rents) ? "—" : `${dollars(m.rents.median)}/mo`}
        note={
          isThin(m.rents)
            ? m.rents.omitted
            : typeof m.rents.medianRentPerSqft === "number"
              ? `${countText(m.rents.count)} rents in the last 12 months; ${rentPerSqft(m.rents.medianRentPerSqft)}`
              : `${countText(m.rents.count)} rents in the last 12 months`
        }
      />
      <HeadlineCard
        testId="stat-median-value"
        title="Median Home Value"
        value={hasValues(v) ? dollars(v.median) : "—"}
        note={
          hasValues(v)
            ? `Middle half ${dollars(v.p25)} to ${dollars(v.p75)}; ${countText(v.count)} homes on record`
            : v.omitted
        }
      />
      <HeadlineCard
        testId="stat-index-change"
        title="Price Index, 12 Months"
        value={percentChange(idx?.change12m)}
        note={
          idx
            ? idx.change12m === null
              ? "Not enough history for a 12-month change"
              : `${percentChange(idx.change1m)} over the last month (${idx.month}); ${indexAreaLabel(m.priceIndexArea)}`
            : "Too few sales for the engine to fit an index"
        }
      />
    </div>
  );
}

/** Up to five ZIPs side by side: one column each, one row per headline figure. */
function CompareTable({ markets }: { markets: Market[] }) {
  const rows: { label: string; cell: (m: Market) => string }[] = [
    { label: "Place", cell: (m) => [cityName(m.city), m.state].filter(Boolean).join(", ") },
    { label: "Median sale price", cell: (m) => (isThin(m.sales) ? m.sales.omitted : dollars(m.sales.median)) },
    { label: "Sales (12 months)", cell: (m) => countText(m.sales.count) },
    { label: "Median price per sq ft", cell: (m) => (isThin(m.sales) ? "—" : dollars(m.sales.medianPricePerSqft)) },
    { label: "Median rent", cell: (m) => (isThin(m.rents) ? m.rents.omitted : `${dollars(m.rents.median)}/mo`) },
    { label: "Rent per sq ft", cell: (m) => (isThin(m.rents) ? "—" : rentPerSqft(m.rents.medianRentPerSqft)) },
    { label: "Median home value", cell: (m) => (hasValues(m.values) ? dollars(m.values.median) : m.values.omitted) },
    {
      label: "Middle half of values",
      cell: (m) => (hasValues(m.values) ? `${dollars(m.values.p25)} to ${dollars(m.values.p75)}` : "—"),
    },
    { label: "Price index, 12 months", cell: (m) => percentChange(latestIndex(m)?.change12m) },
    { label: "Records up to", cell: (m) => dayLabel(m.asOf) },
    { label: "Data", cell: (m) => (m.isDemo ? "Demo data" : "Records") },
  ];
  return (
    <Card data-testid="compare-table">
      <CardHeader>
        <CardTitle className="text-lg">Side by side</CardTitle>
        <CardDescription>The headline figures of each ZIP code</CardDescription>
      </CardHeader>
      <CardContent>
        <TableScroll label="ZIP codes compared">
          <table className="w-full text-sm">
            <caption className="sr-only">ZIP codes compared</caption>
            <thead className={cn("text-left text-xs uppercase tracking-wide text-muted-foreground", cardTable.head)}>
              <tr>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Figure
                </th>
                {markets.map((m) => (
                  <th key={m.zip} scope="col" className="py-2 pr-4 text-right font-medium">
                    {m.zip}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className={cn("divide-y", cardTable.body)}>
              {rows.map((r) => (
                <tr key={r.label} className={cardTable.row[2]}>
                  <th scope="row" className={cn("whitespace-nowrap py-2 pr-4 text-left font-medium", cardTable.span)}>
                    {r.label}
                  </th>
                  {markets.map((m) => (
                    <td key={m.zip} data-label={m.zip} className={cn("py-2 pr-4 text-right tabular-nums", cardTable.cell)}>
                      {r.cell(m)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </CardContent>
    </Card>
  );
}

/** The sales and rents of one ZIP by property type and by bedrooms, and the groups left out with their reasons. */
function BreakdownCard({ market: m, showZip }: { market: Market; showZip: boolean }) {
  const omitted = omittedGroups(m);
  const wholeBlocks = [
    isThin(m.sales) ? { block: "Sales", reason: m.sales.omitted } : null,
    isThin(m.rents) ? { block: "Rents", reason: m.rents.omitted } : null,
  ].filter((x): x is { block: string; reason: string } => x !== null);
  return (
    <Card data-testid={`breakdown-${m.zip}`}>
      <CardHeader>
        <CardTitle className="text-lg">{showZip ? `${m.zip} by property type and bedrooms` : "By property type and bedrooms"}</CardTitle>
        <CardDescription>Sales and rents in the last 12 months; a group with fewer than 5 records is left out</CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        <GroupTable caption={`${m.zip} by property type`} heading="Property type" rows={groupRows(m, "propertyType")} />
        <GroupTable
          caption={`${m.zip} by bedrooms`}
          heading="Bedrooms"
          rows={groupRows(m, "bedrooms").map((r) => ({ ...r, group: bedroomsLabel(r.group) }))}
        />
        {wholeBlocks.length > 0 || omitted.length > 0 ? (
          <div data-testid={`omitted-${m.zip}`} className="rounded-md border border-dashed bg-muted/40 p-3 text-sm">
            <h3 className="font-medium">Left out</h3>
            <ul className="mt-1 list-disc space-y-0.5 pl-5 text-muted-foreground">
              {wholeBlocks.map((b) => (
                <li key={b.block}>{`All ${b.block.toLowerCase()}: ${b.reason}`}</li>
              ))}
              {omitted.map((o) => (
                <li key={`${o.block}-${o.group}`}>{`${o.group} (${o.block.toLowerCase()}): ${o.reason}`}</li>
              ))}
            </ul>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}

function GroupTable({ caption, heading, rows }: { caption: string; heading: string; rows: GroupRow[] }) {
  if (rows.length === 0) return null;
  const th = "py-2 pr-4 text-right font-medium";
  const td = cn("py-2 pr-4 text-right tabular-nums", cardTable.cell);
  return (
    <TableScroll label={caption}>
      <table className="w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className={cn("text-left text-xs uppercase tracking-wide text-muted-foreground", cardTable.head)}>
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">
              {heading}
            </th>
            <th scope="col" className={th}>Sales</th>
            <th scope="col" className={th}>Median price</th>
            <th scope="col" className={th}>Per sq ft</th>
            <th scope="col" className={th}>Range</th>
            <th scope="col" className={th}>Rents</th>
            <th scope="col" className={th}>Median rent</th>
            <th scope="col" className={th}>Rent per sq ft</th>
          </tr>
        </thead>
        <tbody className={cn("divide-y", cardTable.body)}>
          {rows.map((r) => (
            <tr key={r.group} className={cardTable.row[3]}>
              <th scope="row" className={cn("whitespace-nowrap py-2 pr-4 text-left font-medium", cardTable.span)}>
                {r.group}
              </th>
              <td data-label="Sales" className={td}>{r.sales ? countText(r.sales.count) : "—"}</td>
              <td data-label="Median price" className={td}>{r.sales ? dollars(r.sales.median) : "—"}</td>
              <td data-label="Per sq ft" className={td}>{r.sales ? dollars(r.sales.medianPricePerSqft) : "—"}</td>
              <td data-label="Range" className={cn(td, "whitespace-nowrap")}>
                {r.sales ? `${dollars(r.sales.min)}–${dollars(r.sales.max)}` : "—"}
              </td>
              <td data-label="Rents" className={td}>{r.rents ? countText(r.rents.count) : "—"}</td>
              <td data-label="Median rent" className={td}>{r.rents ? dollars(r.rents.median) : "—"}</td>
              <td data-label="Rent per sq ft" className={td}>{r.rents ? rentPerSqft(r.rents.medianRentPerSqft) : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
