import type { ReactNode } from "react";
import { cn } from "@/lib/utils";
import { ADJUSTMENT_LABEL, formatCurrency, formatSignedCurrency, type ValueDrivers as Drivers } from "../valuation-helpers";

/**
 * A bar from the middle of its track, right for what a factor adds and left for what it takes away, as long as the
 * factor's share of the largest one. Decoration only: the signed amount beside it says the same in text.
 */
function DriverBar({ amount, largest }: { amount: number; largest: number }) {
  const width = largest > 0 ? (Math.abs(amount) / largest) * 50 : 0;
  return (
    <div aria-hidden="true" className="relative h-1.5 w-24 shrink-0 rounded-full bg-muted max-sm:hidden">
      <div className="absolute inset-y-0 left-1/2 w-px bg-border" />
      <div
        className={cn("absolute inset-y-0 rounded-full", amount >= 0 ? "left-1/2 bg-emerald-500" : "right-1/2 bg-rose-500")}
        style={{ width: `${width}%` }}
      />
    </div>
  );
}

function Line({ label, detail, amount, bar, className }: {
  label: string;
  detail?: string;
  amount: string;
  bar?: ReactNode;
  className?: string;
}) {
  return (
    <li className={cn("flex items-center gap-3 px-3 py-2", className)}>
      <div className="min-w-0 flex-1">
        <p className="font-medium">{label}</p>
        {detail ? <p className="text-xs text-muted-foreground">{detail}</p> : null}
      </div>
      {bar}
      <span data-testid="driver-amount" className="min-w-24 whitespace-nowrap text-right font-medium tabular-nums">
        {amount}
      </span>
    </li>
  );
}

/**
 * "Why this value" (issue 34): the model's value built up from the typical home nearby, one signed amount per factor,
 * the rest as other factors, so the figures visibly add up to the model's value (the server makes them add up
 * exactly, so nothing here is recomputed).
 */
export function ValueDrivers({ drivers, estimatedValue }: { drivers: Drivers; estimatedValue: number }) {
  const amounts = [...drivers.factors.map((f) => f.amount), drivers.otherFactors];
  const largest = Math.max(...amounts.map(Math.abs));
  return (
    <div data-testid="value-drivers" className="space-y-2">
      <ul aria-label="Why this value" className="divide-y rounded-md border text-sm">
        <Line
          label="Typical home nearby"
          detail="What the value model gives the typical home of the area"
          amount={formatCurrency(drivers.typicalValue)}
        />
        {drivers.factors.map((f) => (
          <Line
            key={f.factor}
            label={ADJUSTMENT_LABEL[f.factor]}
            detail={f.description}
            amount={formatSignedCurrency(f.amount)}
            bar={<DriverBar amount={f.amount} largest={largest} />}
          />
        ))}
        <Line
          label="Other factors"
          detail="Everything else the model weighs, together"
          amount={formatSignedCurrency(drivers.otherFactors)}
          bar={<DriverBar amount={drivers.otherFactors} largest={largest} />}
        />
        <Line
          label="Model value"
          amount={formatCurrency(drivers.modelValue)}
          className="border-t-2 border-t-foreground/30 bg-muted/40 font-semibold"
        />
      </ul>
      {drivers.modelValue !== estimatedValue ? (
        <p className="text-xs text-muted-foreground">
          The estimate of {formatCurrency(estimatedValue)} weighs the model's value with the other evidence it is based
          on.
        </p>
      ) : null}
    </div>
  );
}
