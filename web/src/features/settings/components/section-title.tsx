import type { ReactNode } from "react";
import { cn } from "@/lib/utils";

/** A card title at the second heading level (the page header holds the h1). */
export function SectionTitle({ children, className }: { children: ReactNode; className?: string }) {
  return <h2 className={cn("text-xl font-semibold leading-none tracking-tight", className)}>{children}</h2>;
}
