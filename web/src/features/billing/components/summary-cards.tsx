import type { ReactNode } from "react";
import { Coins, Gauge, Package } from "lucide-react";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { Spinner } from "@/components/ui/spinner";
import { balanceText, formatCredits, type Balance } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import type { MeteredUsage, PlanInfo, Subscription } from "@/lib/types";
import { formatDate, formatNumber, usagePercent } from "../billing-helpers";

function SummaryCard({ title, icon, testId, children }: { title: string; icon: ReactNode; testId: string; children: ReactNode }) {
  return (
    <Card data-testid={testId} className="min-w-0">
      <CardHeader className="flex flex-row items-center justify-between space-y-0 pb-2">
        <CardTitle className="text-sm font-medium text-muted-foreground">{title}</CardTitle>
        {icon}
      </CardHeader>
      <CardContent className="space-y-2">{children}</CardContent>
    </Card>
  );
}

const iconClass = "h-4 w-4 shrink-0 text-muted-foreground";

interface SummaryCardsProps {
  /** The profile's balance (the one the header shows); null while the user is being read. */
  balance: Balance | null;
  usage: MeteredUsage | undefined;
  /** The metered usage could not be read. */
  usageFailed?: boolean;
  subscription: Subscription | undefined;
  /** The plan the account is on (Free when it pays for none). */
  plan: PlanInfo | null;
  /** The plan table or the subscription could not be read. */
  planFailed?: boolean;
}

function Unavailable() {
  return <p className="text-3xl font-bold text-muted-foreground">—</p>;
}

/** Available Credits, Usage This Month and Current Plan (spec, working-screens section 2). */
export function SummaryCards({ balance, usage, usageFailed, subscription, plan, planFailed }: SummaryCardsProps) {
  const planCredits = plan?.credits ?? usage?.creditsIncluded ?? 0;
  const used = usage?.creditsUsedThisPeriod ?? 0;
  const percent = usagePercent(used, planCredits);

  return (
    <div className="grid gap-4 md:grid-cols-3">
      <SummaryCard title="Available Credits" icon={<Coins className={iconClass} aria-hidden="true" />} testId="card-available-credits">
        {balance === null ? (
          <Spinner className="h-5 w-5" label="Loading the balance" />
        ) : (
          <>
            {/* The header's string exactly; in overage it is long, so it wraps at its spaces on a narrow card. */}
            <p className="text-2xl font-bold tabular-nums" data-testid="available-credits">
              {balanceText(balance)}
            </p>
            <p
              className={balance.overageCredits > 0 ? "text-sm font-medium text-amber-700" : "text-sm text-muted-foreground"}
              data-testid="balance-note"
            >
              {balanceNote(balance)}
            </p>
          </>
        )}
      </SummaryCard>

      <SummaryCard title="Usage This Month" icon={<Gauge className={iconClass} aria-hidden="true" />} testId="card-usage">
        {usageFailed && usage === undefined ? (
          <Unavailable />
        ) : usage === undefined ? (
          <Spinner className="h-5 w-5" label="Loading usage" />
        ) : (
          <>
            <p className="text-3xl font-bold tabular-nums">{percent}%</p>
            <Progress value={percent} aria-label="Plan credits used this period" />
            <p className="text-sm text-muted-foreground" data-testid="usage-text">
              {`${formatNumber(used)} of ${formatNumber(planCredits)} credits used`}
            </p>
          </>
        )}
      </SummaryCard>

      <SummaryCard title="Current Plan" icon={<Package className={iconClass} aria-hidden="true" />} testId="card-current-plan">
        {planFailed && (subscription === undefined || plan === null) ? (
          <Unavailable />
        ) : subscription === undefined || plan === null ? (
          <Spinner className="h-5 w-5" label="Loading the plan" />
        ) : (
          <>
            <p className="text-3xl font-bold">{plan.name}</p>
            <p className="text-sm text-muted-foreground">
              {`${formatMoney(plan.priceCents)}/month · ${formatCredits(plan.credits)} per month`}
            </p>
            <p className="text-sm text-muted-foreground" data-testid="plan-period">
              {periodLine(subscription, plan)}
            </p>
          </>
        )}
      </SummaryCard>
    </div>
  );
}

/** The line under the balance: what it means for spending now. */
function balanceNote(b: Balance): string {
  if (b.state === "limit_reached") return "Overage limit reached: calls that need credits are refused";
  if (b.overageCredits > 0) return "Plan credits used up: overage is billed with your next invoice";
  return "left to spend";
}

function periodLine(sub: Subscription, plan: PlanInfo): string {
  const end = formatDate(sub.currentPeriodEnd);
  if (plan.id === "free" || sub.status === "none") return `Free credits renew on ${end}`;
  if (sub.cancelAtPeriodEnd) return `Ends on ${end}`;
  return `Renews on ${end}`;
}
