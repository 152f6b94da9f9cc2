import { Scale } from "lucide-react";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import type { ComparableSale } from "@/lib/types";
import {
  formatCount,
  formatCurrency,
  formatDate,
  formatMiles,
  formatSimilarity,
  formatWhole,
} from "../valuation-helpers";

function cityLine(c: ComparableSale): string | null {
  const place = [c.city, [c.state, c.zip].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return place || null;
}

/** Recent nearby sales the estimate was built from, most similar first (the order the server sends). */
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
    <TableScroll className="rounded-md border">
      <table data-testid="comparables-table" className="w-full text-sm sm:min-w-[860px]">
        <caption className="sr-only">Comparable sales</caption>
        <thead className={`${cardTable.head} bg-muted/50 text-left text-xs uppercase tracking-wide text-muted-foreground`}>
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">Address</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Distance</th>
            <th scope="col" className="px-3 py-2 font-medium">Sale Date</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Sale Price</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Beds</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Baths</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Sq Ft</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Built</th>
            <th scope="col" className="px-3 py-2 font-medium">Similarity</th>
            <th scope="col" className="px-3 py-2 text-right font-medium">Adjusted Price</th>
          </tr>
        </thead>
        <tbody className={`divide-y ${cardTable.body}`}>
          {comparables.map((c, i) => {
            const place = cityLine(c);
            const similarity = formatSimilarity(c.similarity);
            return (
              <tr key={`${c.address}-${c.saleDate}-${i}`} className={`hover:bg-muted/30 ${cardTable.row[3]}`}>
                <td className={`px-3 py-2 ${cardTable.span}`}>
                  <div className="whitespace-nowrap font-medium">{c.address}</div>
                  {place ? <div className="whitespace-nowrap text-xs text-muted-foreground">{place}</div> : null}
                </td>
                <td data-label="Distance" className={`px-3 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatMiles(c.distanceMiles)}</td>
                <td data-label="Sold" className={`whitespace-nowrap px-3 py-2 ${cardTable.cell}`}>{formatDate(c.saleDate)}</td>
                <td data-label="Sale price" className={`px-3 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatCurrency(c.salePrice)}</td>
                <td data-label="Beds" className={`px-3 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatCount(c.bedrooms)}</td>
                <td data-label="Baths" className={`px-3 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatCount(c.bathrooms)}</td>
                <td data-label="Sq ft" className={`px-3 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatWhole(c.squareFeet)}</td>
                <td data-label="Built" className={`px-3 py-2 text-right tabular-nums ${cardTable.cell}`}>{formatWhole(c.yearBuilt, false)}</td>
                <td data-label="Similarity" className={`px-3 py-2 ${cardTable.cell}`}>
                  <div className="flex items-center gap-2">
                    <div
                      className="h-1.5 w-16 overflow-hidden rounded-full bg-muted"
                      role="presentation"
                      aria-hidden="true"
                    >
                      <div className="h-full rounded-full bg-primary" style={{ width: similarity }} />
                    </div>
                    <span className="tabular-nums">{similarity}</span>
                  </div>
                </td>
                <td data-label="Adjusted" className={`px-3 py-2 text-right font-medium tabular-nums ${cardTable.cell}`}>{formatCurrency(c.adjustedPrice)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}
