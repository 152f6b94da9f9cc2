import { KeyRound } from "lucide-react";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import type { PropertyValuation, RentalComparable } from "@/lib/types";
import { formatCount, formatCurrency, formatDate, formatMiles, formatWhole } from "../valuation-helpers";

/** A weight (0-1) as a whole percentage of the estimate. */
function share(weight: number): string {
  return `${Math.round(Math.min(1, Math.max(0, weight)) * 100)}%`;
}

/**
 * The rentals the rent estimate was made from (marketData.rentalComparables), heaviest first as the server sends
 * them: one home each, at its latest rent. The estimate is the weighted median of their adjusted rents, so each row
 * shows its adjusted rent and its weight beside what was recorded. Six columns on a laptop; on a phone each row is
 * a card (the address on a line of its own, the figures three to a line, each labelled), so nothing scrolls
 * sideways at 390 px.
 */
export function RentalComparables({
  comparables,
  rentSource,
}: {
  comparables: RentalComparable[] | undefined;
  rentSource: PropertyValuation["marketData"]["rentSource"];
}) {
  // An answer from before the rental comparables were shown has none: read it as an empty list.
  const rows = comparables ?? [];
  if (rows.length === 0) {
    return (
      <div
        data-testid="rental-comparables-empty"
        className="flex items-start gap-3 rounded-md border border-dashed bg-muted/40 p-4 text-sm"
      >
        <KeyRound className="mt-0.5 h-5 w-5 shrink-0 text-muted-foreground" aria-hidden="true" />
        <div>
          <p className="font-medium">No rentals to compare</p>
          <p className="text-muted-foreground">
            {rentSource === "model"
              ? "Too few homes nearby have a recorded rent, so the rent estimate comes from the value and typical rent-to-price ratios, and its range is wider."
              : "No rental comparables were given for this rent estimate."}
          </p>
        </div>
      </div>
    );
  }
  return (
    <TableScroll label="Rental comparables" className="rounded-md border">
      <table data-testid="rental-comparables-table" className="w-full text-sm">
        <caption className="sr-only">Rental comparables</caption>
        <thead className={`${cardTable.head} bg-muted/50 text-left text-xs uppercase tracking-wide text-muted-foreground`}>
          <tr>
            <th scope="col" className="px-2 py-2 font-medium">Address</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Rent</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Beds / Baths</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Sq Ft</th>
            <th scope="col" className="px-2 py-2 text-right font-medium">Distance</th>
            <th scope="col" className="px-2 py-2 font-medium">Date</th>
          </tr>
        </thead>
        <tbody className={`divide-y ${cardTable.body}`}>
          {rows.map((c, i) => (
            <tr key={`${c.address}-${c.date}-${i}`} className={`hover:bg-muted/30 ${cardTable.row[3]}`}>
              <td className={`px-2 py-2 ${cardTable.span}`}>
                <div className="break-words font-medium">{c.address}</div>
                <div data-testid="rental-weight" className="text-xs text-muted-foreground">
                  <span className="tabular-nums">{share(c.weight)}</span> of the estimate
                </div>
              </td>
              <td data-label="Rent" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>
                <div className="font-medium">{formatCurrency(c.rent)}/mo</div>
                <div className="text-xs text-muted-foreground">{formatCurrency(c.adjustedRent)} adjusted</div>
              </td>
              <td data-label="Beds / baths" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>
                {formatCount(c.bedrooms)} / {formatCount(c.bathrooms)}
              </td>
              <td data-label="Sq ft" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>
                {formatWhole(c.squareFeet)}
              </td>
              <td data-label="Distance" className={`px-2 py-2 text-right tabular-nums ${cardTable.cell}`}>
                {formatMiles(c.distance)}
              </td>
              <td data-label="Date" className={`whitespace-nowrap px-2 py-2 ${cardTable.cell}`}>
                {formatDate(c.date)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
