import type { ReactNode } from "react";
import { Hourglass, SlidersHorizontal } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { formatCredits } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import type { MeteredUsage, PlanInfo } from "@/lib/types";
import { cn } from "@/lib/utils";
import { formatCreditRate, formatDate, formatNumber, formatOverageLimit, upcomingCharge } from "../billing-helpers";

interface MeteredUsageCardProps {
  usage: MeteredUsage | undefined;
  /** The plan table, for the next plan's name. */
  plans: readonly PlanInfo[];
  /** The saved overage limit in dollars (null: no limit); undefined while it is read. */
  overageLimit: number | null | undefined;
  /** The overage limit could not be read. */
  limitFailed?: boolean;
  /** Opens the limit dialog; gets the button, so focus can return to it. */
  onEditLimit: () => void;
}

function Row({ label, children, strong, testId }: { label: string; children: ReactNode; strong?: boolean; testId?: string }) {
  return (
    <div className={cn("flex items-baseline justify-between gap-4 py-2", strong && "font-semibold")}>
      <dt className={cn("text-sm", !strong && "text-muted-foreground")}>{label}</dt>
      <dd className="min-w-0 text-right text-sm font-medium tabular-nums" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** The next invoice: the plan price row (when there is a next plan to pay for) and the total, with its reason. */
function UpcomingRows({ usage, plans }: { usage: MeteredUsage; plans: readonly PlanInfo[] }) {
  const { planPrice, total } = upcomingCharge(usage, plans);
  return (
    <>
      {planPrice ? (
        <Row label={planPrice.label} testId="plan-price">
          {planPrice.value}
        </Row>
      ) : null}
      <Row label="Total upcoming charge" strong testId="upcoming-charge">
        {total}
      </Row>
    </>
  );
}

/**
 * Metered usage and overage (spec, sections 2 and 9): the credits the plan includes, the overage so far (the rate
 * to four decimals), the next period's plan price, and the upcoming charge as the server computes it (that price
 * plus the overage so far); carried-over credits and when they expire; and the custom usage limit.
 */
export function MeteredUsageCard({ usage, plans, overageLimit, limitFailed, onEditLimit }: MeteredUsageCardProps) {
  return (
    <Card data-testid="metered-usage-card" className="min-w-0">
      <CardHeader>
        <CardTitle className="text-lg">Metered Usage &amp; Overage</CardTitle>
        <CardDescription>
          {usage ? `This billing period: ${formatDate(usage.periodStart)} to ${formatDate(usage.periodEnd)}.` : "This billing period."}
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {usage === undefined ? (
          <div className="flex justify-center py-6">
            <Spinner label="Loading metered usage" />
          </div>
        ) : (
          <>
            <dl className="divide-y">
              <Row label="Credits included" testId="credits-included">
                {formatNumber(usage.creditsIncluded)}
              </Row>
              <Row label="Credits used this period">{formatNumber(usage.creditsUsedThisPeriod)}</Row>
              <Row label="Overage credits" testId="overage-credits">
                {formatNumber(usage.overageCredits)}
              </Row>
              <Row label="Cost per overage credit" testId="cost-per-credit">
                {usage.hasSubscription ? formatCreditRate(usage.costPerCredit) : "No overage on Free"}
              </Row>
              <Row label="Estimated overage charge" testId="estimated-overage">
                {formatMoney(usage.estimatedOverageChargeCents)}
              </Row>
              <UpcomingRows usage={usage} plans={plans} />
            </dl>
            {usage.carriedCredits > 0 ? (
              <p className="flex gap-2 rounded-md bg-muted/60 p-3 text-sm" data-testid="carried-credits">
                <Hourglass className="mt-0.5 h-4 w-4 shrink-0 text-muted-foreground" aria-hidden="true" />
                {`${formatCredits(usage.carriedCredits)} carried over from last period expire at the end of this one, on ${formatDate(usage.periodEnd)}. They are spent first.`}
              </p>
            ) : null}
            {!usage.hasSubscription ? (
              <p className="text-sm text-muted-foreground">
                The Free plan has no overage: calls that need credits stop when the balance reaches 0. Paid plans keep
                working past their credits and bill each extra credit, up to your usage limit.
              </p>
            ) : null}
          </>
        )}

        <div className="flex flex-col gap-3 rounded-md border p-3 sm:flex-row sm:items-center sm:justify-between" data-testid="usage-limit">
          <div>
            <p className="text-sm font-medium">Custom usage limit</p>
            <p className="text-sm text-muted-foreground">
              {"Overage limit: "}
              <span className="font-medium text-foreground" data-testid="overage-limit-value">
                {limitFailed ? "Unavailable" : overageLimit === undefined ? "…" : formatOverageLimit(overageLimit)}
              </span>
              {overageLimit !== undefined && overageLimit !== null ? " per billing period" : null}
            </p>
          </div>
          <Button type="button" variant="outline" size="sm" className="shrink-0" onClick={onEditLimit} disabled={overageLimit === undefined}>
            <SlidersHorizontal aria-hidden="true" />
            Set Usage Limit
          </Button>
        </div>
      </CardContent>
    </Card>
  );
}
