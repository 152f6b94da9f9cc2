import type { HTMLAttributes } from "react";
import { cn } from "@/lib/utils";

const VARIANTS = {
  success: "border-transparent bg-green-100 text-green-800",
  warning: "border-transparent bg-amber-100 text-amber-800",
  secondary: "border-transparent bg-secondary text-secondary-foreground",
  outline: "text-foreground",
} as const;

/**
 * The console's status pill: the look of components/ui/badge.tsx. The console keeps its own so that importing the
 * shared one does not split it out of the chunk the landing page loads (rolldown groups modules by who imports them,
 * and a new importer cost the landing page a separate request and ~400 bytes of its budget).
 */
export function Badge({ variant = "outline", className, ...props }: HTMLAttributes<HTMLSpanElement> & { variant?: keyof typeof VARIANTS }) {
  return (
    <span
      className={cn("inline-flex items-center rounded-full border px-2.5 py-0.5 text-xs font-semibold", VARIANTS[variant], className)}
      {...props}
    />
  );
}
