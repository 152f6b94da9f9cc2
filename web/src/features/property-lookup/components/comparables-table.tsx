import { Check, Scale, TriangleAlert } from "lucide-react";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import type { ComparableSale } from "@/lib/types";
import {
  formatCount,
  formatCurrency,
  formatDate,
  formatMiles,
  formatShare,
  formatSimilarity,
  formatWhole,
  GROSS_ADJUSTMENT_LIMIT,
  NET_ADJUSTMENT_LIMIT,
} from "../valuation-helpers";

function cityLine(c: ComparableSale): string | null {
  const place = [c.city, [c.state, c.zip].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return place || null;
}

/** A share of the sale price with, when over its guideline limit, the word "over" (never colour alone). */
function Share({ value, signed = false, over, limit }: {
  value: number | undefined;
  signed?: boolean;
  over: boolean | undefined;
  limit: number;
}) {
  if (!over) return <>{formatShare(value, signed)}</>;
  return (
    <span className="font-medium text-amber-900">
      <span className="flex items-center gap-1 whitespace-nowrap sm:justify-end">
        <TriangleAlert className="h-3 w-3 shrink-0" aria-hidden="true" />
        {formatShare(value, signed)}
      </span>
      <span className="block whitespace-nowrap text-xs">over {Math.round(limit * 100)}%</span>
    </span>
  );
}

/**
 * Whether a sale is one of those the comparables' value is reconciled from (the grid above shows their lines). It
 * sits under the address, where it is read first and never scrolled out of sight.
 */
function Used({ used }: { used: boolean }) {
  if (!used) return <span className="sr-only">Not used</span>;
  return (
    <span className="inline-flex items-center gap-1 whitespace-nowrap rounded-full bg-primary/10 px-2 py-0.5 text-xs font-semibold text-primary-strong">
      <Check className="h-3 w-3" aria-hidden="true" />
      Used
    </span>
  );
}

/** How alike the sale is to this home, as a small bar (for the eye) and its percentage. */
function Similarity({ value }: { value: number }) {
  const similarity = formatSimilarity(value);
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap text-xs text-muted-foreground">
      <span className="h-1.5 w-8 overflow-hidden rounded-full bg-muted" aria-hidden="true">
        <span className="block h-full rounded-full bg-primary" style={{ width: similarity }} />
      </span>
      <span className="tabular-nums">{similarity} similar</span>
    </span>
  );
}

/**
 * Every comparable sale considered (up to 8, each home once, at its latest sale), most similar first as the server
 * sends them; those the comparables' value is reconciled from are marked "Used".
 */
export function ComparablesTable({ comparables }: { comparables: ComparableSale[] }) {
  if (comparables.length === 0) {
    return (
      <div
        data-testid="comparables-empty"
        className="flex items-start gap-3 rounded-md border border-dashed bg-muted/40 p-4 text-sm"
      >
        <Scale className="mt-0.5 h-5 w-5 shrink-0 text-muted-foreground" aria-hidden="true" />
        <div>
          <p className="font-medium">No comparable sales nearby</p>
          <p className="text-muted-foreground">
            No similar home sold close enough or recently enough to compare. The estimate comes from the area's
            market model, and its range and confidence reflect that.
          </p>
        </div>
      </div>
    );
  }
  return (
    <TableScroll label="Comparable sales" className="rounded-md border">
      <table data-testid="comparables-table" className="w-full text-sm sm:min-w-[820px]">
        <caption className="sr-only">Comparable sales</caption>
        <thead className={`${cardTable.head} bg-muted/50 text-left text-xs uppercase tracking-wide text-muted-foreground`}>
          <tr>
            <th scope="col" className="px-2 py-2 font-medium">Address</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Distance</th>
            <th scope="col" className="px-2 py-2 font-medium">Sale Date</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Sale Price</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Beds</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Baths</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Sq Ft</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Built</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Adjusted Price</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Net Adj.</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Gross Adj.</th>
          </tr>
        </thead>
        <tbody className={`divide-y ${cardTable.body}`}>
          {comparables.map((c, i) => {
            const place = cityLine(c);
            return (
              <tr key={`${c.address}-${c.saleDate}-${i}`} className={`hover:bg-muted/30 ${cardTable.row[3]}`}>
                <td className={`px-2 py-2 ${cardTable.span}`}>
                  <div className="font-medium">{c.address}</div>
                  {place ? <div className="whitespace-nowrap text-xs text-muted-foreground">{place}</div> : null}
                  <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1">
                    <Similarity value={c.similarity} />
                    <Used used={c.reconciled === true} />
                  </div>
                </td>
                <td data-label="Distance" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatMiles(c.distanceMiles)}</td>
                <td data-label="Sold" className={`whitespace-nowrap px-2 py-2 ${cardTable.cell}`}>{formatDate(c.saleDate)}</td>
                <td data-label="Sale price" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatCurrency(c.salePrice)}</td>
                <td data-label="Beds" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatCount(c.bedrooms)}</td>
                <td data-label="Baths" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatCount(c.bathrooms)}</td>
                <td data-label="Sq ft" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatWhole(c.squareFeet)}</td>
                <td data-label="Built" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatWhole(c.yearBuilt, false)}</td>
                <td data-label="Adjusted" className={`px-2 py-2 text-right font-medium tabular-nums ${cardTable.cell}`}>{formatCurrency(c.adjustedPrice)}</td>
                <td data-label="Net adj." className={`whitespace-nowrap px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>
                  <Share value={c.netAdjustment} signed over={c.netAdjustmentOverLimit} limit={NET_ADJUSTMENT_LIMIT} />
                </td>
                <td data-label="Gross adj." className={`whitespace-nowrap px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>
                  <Share value={c.grossAdjustment} over={c.grossAdjustmentOverLimit} limit={GROSS_ADJUSTMENT_LIMIT} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
