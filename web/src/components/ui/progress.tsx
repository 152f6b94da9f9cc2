import * as React from "react";
import { cn } from "@/lib/utils";

export interface ProgressProps extends Omit<React.HTMLAttributes<HTMLDivElement>, "children"> {
  /** How far along, from 0 to `max`; kept within that range. */
  value: number;
  max?: number;
  /** Classes of the filled part (its colour, say). */
  indicatorClassName?: string;
}

/**
 * A horizontal progress bar with the progressbar role and its values for assistive technology. Give it a name with
 * aria-label or aria-labelledby. The fill's width is an inline style property (allowed by the CSP), no script.
 */
export const Progress = React.forwardRef<HTMLDivElement, ProgressProps>(
  ({ value, max = 100, className, indicatorClassName, ...props }, ref) => {
    const safeMax = max > 0 ? max : 100;
    const clamped = Number.isFinite(value) ? Math.min(safeMax, Math.max(0, value)) : 0;
    const percent = (clamped / safeMax) * 100;
    return (
      <div
        ref={ref}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={safeMax}
        aria-valuenow={Math.round(clamped)}
        className={cn("relative h-2 w-full overflow-hidden rounded-full bg-secondary", className)}
        {...props}
      >
        <div
          className={cn("h-full rounded-full bg-primary transition-[width] duration-300", indicatorClassName)}
          style={{ width: `${percent}%` }}
        />
      </div>
    );
  },
);
Progress.displayName = "Progress";
