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
