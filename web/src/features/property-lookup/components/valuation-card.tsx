import type { ReactNode } from "react";
import {
  Bath,
  BedDouble,
  Building2,
  CalendarDays,
  DollarSign,
  Briefcase,
  Download,
  Home,
  Info,
  LandPlot,
  Loader2,
  MapPin,
  Percent,
  Route,
  Ruler,
  Tag,
  TrendingUp,
  TriangleAlert,
} from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter } from "@/components/ui/card";
import type { PropertyValuation } from "@/lib/types";
import {
  evidenceLines,
  formatCount,
  formatCurrency,
  formatDate,
  formatInteger,
  formatLotSize,
  formatValueRange,
  formatWhole,
  formatYield,
  homeStatusLabel,
  isOffRecordPath,
  matchNote,
  pathText,
  NOT_KNOWN,
  pricePerSqFt,
  propertyTypeOf,
  reconciledComparables,
  rentSourceLabel,
} from "../valuation-helpers";
import { ComparablesTable } from "./comparables-table";
import { ConfidenceBadge } from "./confidence-badge";
import { PriceHistoryChart } from "./price-history-chart";
import { PropertyPhoto } from "./property-photo";
import { RentalComparables } from "./rental-comparables";
import { SalesComparisonGrid } from "./sales-comparison-grid";
import { ValueDrivers } from "./value-drivers";
import { ValueHistory } from "./value-history";

interface StatProps {
  icon: ReactNode;
  label: string;
  children: ReactNode;
  hint?: ReactNode;
}

/**
 * One term and its value in the details list: a <div> of the <dl> holding only its <dt> and <dd>s, as HTML allows (a
 * wrapper between them hid every pair from screen readers' list semantics). The icon sits inside the term, out of
 * the flow at the box's left, so the box lays out as before. Two to a row on a phone: the icon gives its room to the
 * value there.
 */
function Stat({ icon, label, children, hint }: StatProps) {
  return (
    <div className="relative min-w-0 rounded-md border bg-background p-3 sm:pl-10">
      <dt className="text-xs text-muted-foreground">
        <span
          className="absolute left-3 top-3.5 text-muted-foreground max-sm:hidden [&_svg]:h-4 [&_svg]:w-4"
          aria-hidden="true"
        >
          {icon}
        </span>
        {label}
      </dt>
      <dd className="text-sm font-semibold sm:text-base">{children}</dd>
      {hint ? <dd className="text-xs text-muted-foreground">{hint}</dd> : null}
    </div>
  );
}

function SectionHeading({ children, aside }: { children: ReactNode; aside?: ReactNode }) {
  return (
    <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
      <h3 className="text-base font-semibold">{children}</h3>
      {aside ? <p className="text-xs text-muted-foreground">{aside}</p> : null}
    </div>
  );
}

function trendText(trend: number): string {
  const pct = trend * 100;
  return `${pct >= 0 ? "+" : "−"}${Math.abs(pct).toFixed(1)}% over 12 months`;
}

/** The amber box of a note the reader must not miss (the address's match, a home not on record). */
const NOTE_BOX = "flex items-start gap-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900";

interface ValuationCardProps {
  result: PropertyValuation;
  /** The fixed example shown before any search: labelled as such, and it has no report to download. */
  sample?: boolean;
  onDownload?: () => void;
  downloading?: boolean;
  /** Opens "Add to Portfolio" for this home (a real lookup's result only). */
  onAddToPortfolio?: () => void;
}

/** The result of a lookup (spec, "Property Lookup": the result card), or the sample shown before any search. */
export function ValuationCard({ result, sample = false, onDownload, downloading = false, onAddToPortfolio }: ValuationCardProps) {
  const { property, valuation, details, marketData, meta } = result;
  const path = pathText(valuation.path);
  // A path off the record says what the match note would ("not on record ... from the facts you gave"): it is shown
  // as the note then, so the same thing is not said twice.
  const offRecord = path !== null && isOffRecordPath(valuation.path);
  const note = offRecord ? null : matchNote(property.matchCode);
  const used = reconciledComparables(marketData.comparables);
  const ppsf = pricePerSqFt(result);
  const evidence = evidenceLines(valuation.evidence);
  const status = homeStatusLabel(details.homeStatus);
  const rentSource = rentSourceLabel(marketData.rentSource);
  const county = marketData.county ?? property.county ?? null;
  const hasRentRange = typeof marketData.rentLow === "number" && typeof marketData.rentHigh === "number";

  return (
    <Card
      data-testid={sample ? "sample-result" : "valuation-result"}
      aria-label={sample ? "Sample valuation result" : `Valuation of ${property.formattedAddress}`}
      className={sample ? "overflow-hidden border-dashed border-primary/40" : "overflow-hidden"}
    >
      {sample ? (
        <div className="flex items-center gap-2 border-b border-dashed border-primary/30 bg-primary/5 px-6 py-2.5 text-sm">
          <Info className="h-4 w-4 shrink-0 text-primary" aria-hidden="true" />
          <p>
            <span className="font-medium">This is an example</span> of what a valuation includes: the engine's answer
            for a home of the demo market. Enter an address above to value a property.
          </p>
        </div>
      ) : null}
      <div className="grid md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <PropertyPhoto
          src={details.imageUrl}
          alt={`Photo of ${property.formattedAddress}`}
          className="aspect-[16/10] md:aspect-auto md:min-h-72"
        />
        <div className="space-y-4 p-6">
          <div className="space-y-2">
            <div className="flex flex-wrap gap-2">
              {sample ? <Badge data-testid="sample-badge">Sample result</Badge> : null}
              {property.isDemo ? (
                <Badge
                  variant="warning"
                  data-testid="demo-badge"
                  title="This record comes from the generated demo market, not from real public records."
                >
                  Demo data
                </Badge>
              ) : null}
            </div>
            <h2 className="flex items-start gap-2 text-lg font-semibold leading-snug">
              <MapPin className="mt-1 h-4 w-4 shrink-0 text-muted-foreground" aria-hidden="true" />
              <span>{property.formattedAddress}</span>
            </h2>
          </div>

          {valuation.warnings.length > 0 ? (
            <div
              data-testid="valuation-warnings"
              role="note"
              className="flex items-start gap-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
            >
              <TriangleAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
              <ul className="space-y-1">
                {valuation.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            </div>
          ) : null}

          <div>
            <p className="text-sm text-muted-foreground">
              Estimated Value{" "}
              <span data-testid="valuation-date" className="whitespace-nowrap">
                · as of {formatDate(valuation.valuationDate)}
              </span>
            </p>
            <p data-testid="estimated-value" className="text-4xl font-bold tracking-tight tabular-nums">
              {formatCurrency(valuation.estimatedValue)}
            </p>
            <p data-testid="value-range" className="mt-1 text-sm">
              <span className="text-muted-foreground">80% range: </span>
              <span className="font-medium tabular-nums">{formatValueRange(valuation.low, valuation.high)}</span>
            </p>
            {ppsf !== null ? (
              <p data-testid="price-per-sqft" className="text-sm">
                <span className="font-medium tabular-nums">{formatCurrency(ppsf)}</span>
                <span className="text-muted-foreground"> per sq ft</span>
              </p>
            ) : null}
          </div>

          <ConfidenceBadge
            confidence={valuation.confidence}
            level={valuation.confidenceLevel}
            fsd={valuation.fsd}
            withinTenPercent={valuation.withinTenPercent}
          />

          {path && offRecord ? (
            // Off the record the path is the match note, in the note's box (and under its name, which the end-to-end
            // tests read), beside the confidence it lowers.
            <div data-testid="match-note" role="note" className={NOTE_BOX}>
              <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
              <span data-testid="valuation-path">{path}</span>
            </div>
          ) : path ? (
            <p data-testid="valuation-path" className="flex items-start gap-2 text-sm">
              <Route className="mt-0.5 h-4 w-4 shrink-0 text-muted-foreground" aria-hidden="true" />
              <span>{path}</span>
            </p>
          ) : null}

          {evidence.length > 0 ? (
            <div data-testid="evidence" className="text-sm">
              <p className="text-muted-foreground">Based on</p>
              <ul className="mt-1 space-y-0.5">
                {evidence.map((line) => (
                  <li key={line} className="break-words">
                    {line}
                  </li>
                ))}
              </ul>
              {typeof valuation.comparablesValue === "number" ? (
                <p data-testid="comparables-value" className="mt-1">
                  <span className="text-muted-foreground">Comparable sales indicate </span>
                  <span className="font-medium tabular-nums">{formatCurrency(valuation.comparablesValue)}</span>
                </p>
              ) : null}
            </div>
          ) : null}

          {note ? (
            <div data-testid="match-note" role="note" className={NOTE_BOX}>
              <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
              <span>{note}</span>
            </div>
          ) : null}
        </div>
      </div>

      <CardContent className="border-t pt-6">
        <h3 className="sr-only">Property details</h3>
        <dl className="grid grid-cols-2 gap-3 md:grid-cols-3 lg:grid-cols-4">
          <Stat icon={<BedDouble />} label="Bedrooms">
            {formatCount(details.bedrooms)}
          </Stat>
          <Stat icon={<Bath />} label="Bathrooms">
            {formatCount(details.bathrooms)}
          </Stat>
          <Stat icon={<Ruler />} label="Square Feet">
            {formatWhole(details.squareFeet)}
          </Stat>
          <Stat icon={<CalendarDays />} label="Year Built">
            {formatWhole(details.yearBuilt, false)}
          </Stat>
          <Stat icon={<Building2 />} label="Property Type">
            {propertyTypeOf(details) ?? NOT_KNOWN}
          </Stat>
          <Stat icon={<LandPlot />} label="Lot Size">
            <span data-testid="lot-size">{formatLotSize(details)}</span>
          </Stat>
          {typeof details.livingArea === "number" ? (
            <Stat icon={<Home />} label="Living Area">
              {formatInteger(details.livingArea)} sq ft
            </Stat>
          ) : null}
          {status ? (
            <Stat icon={<Tag />} label="Home Status">
              {status}
            </Stat>
          ) : null}
          {typeof marketData.rentEstimate === "number" ? (
            <Stat
              icon={<DollarSign />}
              label="Rent Estimate"
              hint={
                <span data-testid="rent-source">
                  {[hasRentRange ? formatValueRange(marketData.rentLow!, marketData.rentHigh!) : null, rentSource]
                    .filter(Boolean)
                    .join(" · ")}
                </span>
              }
            >
              <span data-testid="rent-estimate">{formatCurrency(marketData.rentEstimate)}/mo</span>
            </Stat>
          ) : null}
          {typeof marketData.grossYield === "number" ? (
            <Stat icon={<Percent />} label="Gross Yield" hint="rent × 12 ÷ value">
              <span data-testid="gross-yield">{formatYield(marketData.grossYield)} a year</span>
            </Stat>
          ) : null}
          {county ? (
            <Stat icon={<MapPin />} label="County">
              {county}
            </Stat>
          ) : null}
          {typeof marketData.marketTrend === "number" ? (
            <Stat icon={<TrendingUp />} label="Market Price Trend">
              {trendText(marketData.marketTrend)}
            </Stat>
          ) : null}
        </dl>
      </CardContent>

      {valuation.drivers ? (
        <CardContent className="border-t pt-6">
          <SectionHeading aside="The value model's reasoning: what this home's differences from the typical home nearby add or take away">
            Why This Value
          </SectionHeading>
          <ValueDrivers drivers={valuation.drivers} estimatedValue={valuation.estimatedValue} />
        </CardContent>
      ) : null}

      {used.length > 0 ? (
        <CardContent className="border-t pt-6" data-testid="sales-comparison">
          <SectionHeading aside="The comparable sales used, adjusted line by line to this home">
            Sales Comparison
          </SectionHeading>
          <SalesComparisonGrid result={result} comparables={used} />
        </CardContent>
      ) : null}

      <CardContent className="border-t pt-6">
        <SectionHeading
          aside={
            marketData.comparables.length === 0
              ? undefined
              : used.length > 0
                ? "Every sale considered; those marked Used make the sales comparison above"
                : "Adjusted price: what each sale says this home is worth, after time and differences"
          }
        >
          Comparable Sales
        </SectionHeading>
        {marketData.comparables.length > 0 && valuation.comparablesValue === null ? (
          <p data-testid="no-comparables-value" className="mb-3 text-sm text-muted-foreground">
            Fewer than three of these sales are alike enough to reconcile, so they give no value of their own; the
            estimate leans on its other evidence.
          </p>
        ) : null}
        <ComparablesTable comparables={marketData.comparables} />
      </CardContent>

      {typeof marketData.rentEstimate === "number" ? (
        <CardContent className="border-t pt-6" data-testid="rental-comparables">
          <SectionHeading
            aside={
              (marketData.rentalComparables ?? []).length > 0
                ? "The rents the estimate is made from: their weighted median, each grown to today and scaled to this home's size"
                : undefined
            }
          >
            Rental Comparables
          </SectionHeading>
          <RentalComparables comparables={marketData.rentalComparables} rentSource={marketData.rentSource} />
        </CardContent>
      ) : null}

      <CardContent className="border-t pt-6">
        <SectionHeading>Price History</SectionHeading>
        <PriceHistoryChart
          history={marketData.priceHistory}
          estimate={{ date: valuation.valuationDate, value: valuation.estimatedValue }}
        />
      </CardContent>

      <CardContent className="border-t pt-6">
        <SectionHeading aside="The estimate at the end of each month, over the last five years">Value History</SectionHeading>
        <ValueHistory result={result} />
      </CardContent>

      <CardFooter className="flex flex-col items-start gap-3 border-t pt-6 sm:flex-row sm:items-center sm:justify-between">
        {sample ? (
          <p className="text-xs text-muted-foreground">Run a lookup to download its report as CSV.</p>
        ) : (
          <p className="text-xs text-muted-foreground" data-testid="valuation-meta">
            Valued {formatDate(valuation.valuationDate)} · model updated {formatDate(valuation.lastUpdated)} ·{" "}
            {meta.creditsUsed} {meta.creditsUsed === 1 ? "credit" : "credits"} used, {meta.creditsRemaining} left ·
            request {meta.requestId}
          </p>
        )}
        <div className="flex flex-col gap-2 sm:flex-row">
          {!sample && onAddToPortfolio ? (
            <Button type="button" variant="outline" onClick={onAddToPortfolio}>
              <Briefcase aria-hidden="true" />
              Add to Portfolio
            </Button>
          ) : null}
          <Button type="button" variant="outline" onClick={onDownload} disabled={sample || downloading || !onDownload}>
            {downloading ? <Loader2 className="animate-spin" aria-hidden="true" /> : <Download aria-hidden="true" />}
            Download Report
          </Button>
        </div>
      </CardFooter>
    </Card>
  );
}
