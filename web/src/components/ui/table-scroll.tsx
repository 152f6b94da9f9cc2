import type * as React from "react";
import { cn } from "@/lib/utils";

/**
 * The box a wide table scrolls in, so that the table scrolls inside its card and never widens the page. It is
 * `relative` on purpose: a table's visually hidden parts (an sr-only caption or header text) are absolutely
 * positioned, and without a positioned ancestor they are laid out against the page instead of this box, escape its
 * clipping and made phones scroll sideways (pricing 587 px, API Keys 761 px wide at 390 px).
 */
export function TableScroll({ className, ...props }: React.HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("relative max-w-full overflow-x-auto", className)} {...props} />;
}

/**
 * A table that turns into cards on a phone (below Tailwind's `sm`), with the same markup: the header row is only
 * read to screen readers, each row becomes a grid of its cells, and a cell given a `data-label` shows that label
 * above its value (drawn by CSS, so a cell's text is the same at every width). Wide tables whose last columns would
 * sit out of sight in their scroll box on a phone use it; put `cardTable.fullWidth` on the cell that heads the card
 * (a name, an address: it leaves room for the corner), `cardTable.corner` on a small actions cell, and
 * `cardTable.span` on any other cell that takes a line of its own (a row of buttons).
 */
export const cardTable = {
  head: "max-sm:sr-only",
  body: "max-sm:block",
  row: {
    2: "max-sm:relative max-sm:grid max-sm:grid-cols-2 max-sm:gap-x-3 max-sm:gap-y-2 max-sm:p-4",
    3: "max-sm:relative max-sm:grid max-sm:grid-cols-3 max-sm:gap-x-3 max-sm:gap-y-2 max-sm:p-4",
  },
  cell:
    "max-sm:whitespace-normal max-sm:p-0 max-sm:text-left max-sm:text-xs max-sm:before:block " +
    "max-sm:before:text-muted-foreground max-sm:before:content-[attr(data-label)]",
  fullWidth: "max-sm:col-span-full max-sm:p-0 max-sm:pr-20",
  span: "max-sm:col-span-full max-sm:p-0",
  corner: "max-sm:absolute max-sm:right-2 max-sm:top-2 max-sm:p-0",
} as const;
