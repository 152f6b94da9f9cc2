import type { ReactNode } from "react";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import { cn } from "@/lib/utils";
import { tdClass, thClass } from "./admin-frame";

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Figures are right-aligned. */
  numeric?: boolean;
  /** Keeps the cell on one line (dates, figures). */
  nowrap?: boolean;
}

interface DataTableProps<T> {
  /** The table's name: its caption (read to screen readers) and its scroll region's name. */
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  /** What an empty table says instead. */
  empty: string;
  testId?: string;
  rowClassName?: (row: T) => string | undefined;
}

/**
 * The console's tables: a real <table> with a caption and column headers, inside the app's TableScroll. On a phone
 * each row becomes a card (cardTable): its first cell heads it and every other cell is labelled with its column, so
 * nothing sits out of sight in a sideways scroll (the person-lookup audit's eight columns did at 390 px).
 */
export function DataTable<T>({ caption, columns, rows, rowKey, empty, testId, rowClassName }: DataTableProps<T>) {
  if (rows.length === 0) return <p className="py-4 text-sm text-muted-foreground">{empty}</p>;
  return (
    <TableScroll label={caption} className="rounded-md border">
      <table className="w-full text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className={cn("bg-muted/40", cardTable.head)}>
          <tr className="border-b">
            {columns.map((c) => (
              <th key={c.header} scope="col" className={cn(thClass, c.numeric && "text-right")}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={cardTable.body}>
          {rows.map((r) => (
            <tr key={rowKey(r)} className={cn("border-b last:border-0", cardTable.row[2], rowClassName?.(r))}>
              {columns.map((c, i) => (
                <td
                  key={c.header}
                  data-label={i === 0 ? undefined : c.header}
                  className={cn(
                    tdClass,
                    c.numeric && "text-right tabular-nums",
                    (c.nowrap || c.numeric) && "whitespace-nowrap",
                    i === 0 ? cn(cardTable.span, "max-sm:font-medium") : cardTable.cell,
                  )}
                >
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
