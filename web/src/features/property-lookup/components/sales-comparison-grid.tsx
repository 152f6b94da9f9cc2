import type { ReactNode } from "react";
import { TriangleAlert } from "lucide-react";
import { TableScroll } from "@/components/ui/table-scroll";
import type { ComparableSale, PropertyValuation } from "@/lib/types";
import { cn } from "@/lib/utils";
import {
  ADJUSTMENT_LABEL,
  ADJUSTMENT_LINES,
  type AdjustmentLine,
  formatCount,
  formatCurrency,
  formatDate,
  formatLotSize,
  formatMiles,
  formatShare,
  formatSignedCurrency,
  formatWhole,
  GROSS_ADJUSTMENT_LIMIT,
  NET_ADJUSTMENT_LIMIT,
  propertyTypeOf,
  wholePercents,
} from "../valuation-helpers";

type Details = PropertyValuation["details"];

/** What a home's record says for a line (its square feet, beds, year built), or null where it says nothing. */
interface LineFacts {
  subject: (d: Details) => string | null;
  comparable: (c: ComparableSale) => string | null;
}

const known = (text: string) => (text === "—" ? null : text);
const none = () => null;

/**
 * The figures shown beside each adjustment, the comparable's next to the subject's, so a reader sees what was
 * adjusted for. The comparables carry no lot, quality or location figure in the contract: those lines show only
 * the subject's.
 */
const LINE_FACTS: Record<AdjustmentLine, LineFacts> = {
  time: { subject: none, comparable: none },
  livingArea: {
    subject: (d) => (typeof d.squareFeet === "number" ? `${formatWhole(d.squareFeet)} sq ft` : null),
    comparable: (c) => (typeof c.squareFeet === "number" ? `${formatWhole(c.squareFeet)} sq ft` : null),
  },
  lot: { subject: (d) => known(formatLotSize(d)), comparable: none },
  bedrooms: { subject: (d) => known(formatCount(d.bedrooms)), comparable: (c) => known(formatCount(c.bedrooms)) },
  bathrooms: { subject: (d) => known(formatCount(d.bathrooms)), comparable: (c) => known(formatCount(c.bathrooms)) },
  age: {
    subject: (d) => (typeof d.yearBuilt === "number" ? `Built ${d.yearBuilt}` : null),
    comparable: (c) => (typeof c.yearBuilt === "number" ? `Built ${c.yearBuilt}` : null),
  },
  quality: { subject: (d) => propertyTypeOf(d), comparable: none },
  location: { subject: none, comparable: none },
};

/** The first column: each line's name, kept in view while the grid scrolls sideways on a phone. */
function RowHead({ children }: { children: ReactNode }) {
  return (
    <th
      scope="row"
      className="sticky left-0 z-10 border-r bg-card px-3 py-2 text-left align-top font-medium max-sm:w-24 max-sm:px-2 sm:whitespace-nowrap"
    >
      {children}
    </th>
  );
}

function Cell({ children, className }: { children?: ReactNode; className?: string }) {
  return <td className={cn("px-3 py-2 text-right align-top tabular-nums max-sm:px-2", className)}>{children}</td>;
}

const limitText = (limit: number) => `${Math.round(limit * 100)}%`;

/** A line over its limit, said in words and not by colour alone. */
function OverLimit({ limit }: { limit: number }) {
  return (
    <span className="mt-1 inline-flex items-center gap-1 whitespace-nowrap rounded-full border border-amber-300 bg-amber-50 px-1.5 text-xs font-medium text-amber-900">
      <TriangleAlert className="h-3 w-3" aria-hidden="true" />
      Over {limitText(limit)}
    </span>
  );
}

interface SalesComparisonGridProps {
  result: PropertyValuation;
  /** The reconciled comparables (three to six), in the server's order. */
  comparables: ComparableSale[];
}

/**
 * The sales comparison grid of an appraisal (Fannie Mae's URAR): the subject beside each comparable the
 * comparables' value is reconciled from, one row per line, each adjustment signed in dollars with the figure it
 * adjusts for, then the net and gross adjustments against their guideline limits, the adjusted price and its weight.
 * Wider than a phone, it scrolls inside its own box, its line names held at the left.
 */
export function SalesComparisonGrid({ result, comparables }: SalesComparisonGridProps) {
  const { property, details, valuation } = result;
  // Whole percents that add up to 100, as the evidence shares do.
  const weights = wholePercents(comparables.map((c) => c.reconciliationWeight));
  const each = (render: (c: ComparableSale, i: number) => ReactNode) =>
    comparables.map((c, i) => <Cell key={`${c.address}-${c.saleDate}`}>{render(c, i)}</Cell>);

  return (
    <div className="space-y-3">
      <TableScroll label="Sales comparison grid" className="rounded-md border">
        <table data-testid="sales-grid" className="w-full text-sm">
          <caption className="sr-only">
            Sales comparison grid: this home beside the {comparables.length} comparable sales its comparables' value is
            reconciled from
          </caption>
          <thead className="bg-muted/50 text-xs uppercase tracking-wide text-muted-foreground">
            <tr>
              <th scope="col" className="sticky left-0 z-10 border-r bg-muted px-3 py-2 text-left font-medium max-sm:px-2">
                Feature
              </th>
              <th scope="col" className="min-w-28 px-3 py-2 text-right font-medium max-sm:px-2 sm:min-w-32">
                Subject
              </th>
              {comparables.map((c, i) => (
                <th key={`${c.address}-${c.saleDate}`} scope="col" className="min-w-28 px-3 py-2 text-right font-medium max-sm:px-2 sm:min-w-36">
                  Comparable {i + 1}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y">
            <tr>
              <RowHead>Address</RowHead>
              <Cell className="font-medium">{property.address}</Cell>
              {each((c) => (
                <>
                  <div className="font-medium">{c.address}</div>
                  <div className="text-xs text-muted-foreground">{formatMiles(c.distanceMiles)} away</div>
                </>
              ))}
            </tr>
            <tr>
              <RowHead>Sale price</RowHead>
              <Cell />
              {each((c) => formatCurrency(c.salePrice))}
            </tr>
            <tr>
              <RowHead>Sale date</RowHead>
              <Cell className="text-xs text-muted-foreground">Valued {formatDate(valuation.valuationDate)}</Cell>
              {each((c) => <span className="whitespace-nowrap">{formatDate(c.saleDate)}</span>)}
            </tr>
            {ADJUSTMENT_LINES.map((line) => {
              const facts = LINE_FACTS[line];
              return (
                <tr key={line} data-line={line}>
                  <RowHead>{ADJUSTMENT_LABEL[line]}</RowHead>
                  <Cell className="font-medium">{facts.subject(details)}</Cell>
                  {each((c) => {
                    const figure = facts.comparable(c);
                    const amount = c.adjustments[line];
                    return (
                      <>
                        {figure ? <div className="text-xs text-muted-foreground">{figure}</div> : null}
                        <div data-testid="adjustment" className={amount === 0 ? "text-muted-foreground" : "font-medium"}>
                          {formatSignedCurrency(amount)}
                        </div>
                      </>
                    );
                  })}
                </tr>
              );
            })}
            <tr className="border-t-2 border-t-foreground/20">
              <RowHead>Net adjustment</RowHead>
              <Cell />
              {each((c) => (
                <>
                  <div className="font-medium">{formatShare(c.netAdjustment, true)}</div>
                  <div className="text-xs text-muted-foreground">{formatSignedCurrency(c.adjustedPrice - c.salePrice)}</div>
                  {c.netAdjustmentOverLimit ? <OverLimit limit={NET_ADJUSTMENT_LIMIT} /> : null}
                </>
              ))}
            </tr>
            <tr>
              <RowHead>Gross adjustment</RowHead>
              <Cell />
              {each((c) => (
                <>
                  <div className="font-medium">{formatShare(c.grossAdjustment)}</div>
                  {c.grossAdjustmentOverLimit ? <OverLimit limit={GROSS_ADJUSTMENT_LIMIT} /> : null}
                </>
              ))}
            </tr>
            <tr className="bg-muted/30">
              <RowHead>Adjusted price</RowHead>
              <Cell />
              {each((c) => <span className="font-semibold">{formatCurrency(c.adjustedPrice)}</span>)}
            </tr>
            <tr>
              <RowHead>Weight</RowHead>
              <Cell />
              {each((_, i) => `${weights[i]}%`)}
            </tr>
          </tbody>
        </table>
      </TableScroll>
      <p className="text-xs text-muted-foreground">
        Adjustments bring each sale to this home and to today: + where this home is worth more, − where less. A net
        adjustment over {limitText(NET_ADJUSTMENT_LIMIT)} or a gross one over {limitText(GROSS_ADJUSTMENT_LIMIT)} of
        the sale price is marked, as Fannie Mae's guidelines ask: such a sale is less like this home.
      </p>
      {typeof valuation.comparablesValue === "number" ? (
        <p data-testid="comparables-indicate" className="text-sm">
          Comparables indicate{" "}
          <span className="font-semibold tabular-nums">{formatCurrency(valuation.comparablesValue)}</span>
          <span className="text-muted-foreground">: the adjusted prices above, by their weights</span>
        </p>
      ) : null}
    </div>
  );
}
