import { forwardRef } from "react";
import { Check } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter, CardHeader } from "@/components/ui/card";
import { formatCredits } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import type { BillingConfig, PlanInfo } from "@/lib/types";
import { cn } from "@/lib/utils";
import { formatDate, formatNumber, formatRateCap, planAction, type PlanAction } from "../billing-helpers";
import { PaymentsDisabledNote } from "./payment-form";

interface PlanSelectionProps {
  /** The paid plans, cheapest first. */
  plans: readonly PlanInfo[];
  current: PlanInfo | null;
  /** Whether the account pays for a plan now (otherwise every card offers 'Get Started'). */
  paid: boolean;
  mode: BillingConfig["mode"];
  /** A scheduled downgrade's plan and when it takes effect. */
  pending: { planType: string; at: string } | null;
  onSelect: (plan: PlanInfo, action: PlanAction) => void;
}

/**
 * Plan selection (spec, section 4): a card per paid plan with its price, credits, rate cap and batch size, and the
 * button the rules give it. With payments disabled on the server, nothing that needs a card can be chosen.
 */
export const PlanSelection = forwardRef<HTMLHeadingElement, PlanSelectionProps>(function PlanSelection(
  { plans, current, paid, mode, pending, onSelect },
  headingRef,
) {
  return (
    <section aria-labelledby="plans-heading" id="plans" className="scroll-mt-20 space-y-4">
      <div>
        <h2 id="plans-heading" ref={headingRef} tabIndex={-1} className="text-xl font-semibold tracking-tight focus:outline-none">
          Plans
        </h2>
        <p className="text-sm text-muted-foreground">
          Upgrades take effect at once with a prorated charge; downgrades at the end of the billing period.
        </p>
      </div>
      {mode === "disabled" ? <PaymentsDisabledNote /> : null}
      <ul className="grid gap-4 lg:grid-cols-3">
        {plans.map((plan) => {
          const action = planAction(plan, current, paid);
          const scheduled = pending?.planType === plan.id;
          const needsCard = action.kind === "subscribe" || action.kind === "upgrade";
          const disabled = action.disabled || scheduled || (mode === "disabled" && needsCard);
          const headingId = `plan-card-${plan.id}`;
          return (
            <li key={plan.id} className="min-w-0">
              <article aria-labelledby={headingId} className="h-full" data-testid={`plan-${plan.id}`}>
                <Card className={cn("flex h-full flex-col", action.kind === "current" && "border-2 border-primary")}>
                  <CardHeader className="space-y-2">
                    <div className="flex items-center justify-between gap-2">
                      <h3 id={headingId} className="text-lg font-semibold">
                        {plan.name}
                      </h3>
                      {action.kind === "current" ? <Badge>Your plan</Badge> : null}
                      {scheduled && pending ? <Badge variant="secondary">{`From ${formatDate(pending.at)}`}</Badge> : null}
                    </div>
                    <p>
                      <span className="text-3xl font-extrabold tracking-tight">{formatMoney(plan.priceCents)}</span>
                      <span className="text-muted-foreground">/month</span>
                    </p>
                    <p className="text-sm font-medium text-primary">{`${formatCredits(plan.credits)} per month`}</p>
                  </CardHeader>
                  <CardContent className="flex-1">
                    <ul className="space-y-2 text-sm">
                      {[
                        plan.overageCents > 0 ? `${formatMoney(plan.overageCents)} per credit above the plan` : "No overage",
                        `Rate limit: ${formatRateCap(plan.rateCap)}`,
                        `Batch uploads up to ${formatNumber(plan.batchRows)} properties`,
                        "Unused credits roll over for one month",
                        ...(plan.id === "enterprise" ? ["Custom overage pricing available"] : []),
                      ].map((f) => (
                        <li key={f} className="flex gap-2">
                          <Check className="mt-0.5 h-4 w-4 shrink-0 text-success" aria-hidden="true" />
                          <span>{f}</span>
                        </li>
                      ))}
                    </ul>
                  </CardContent>
                  <CardFooter className="flex-col items-stretch gap-2">
                    <Button
                      type="button"
                      className="w-full"
                      variant={action.kind === "current" || action.kind === "downgrade" ? "outline" : "default"}
                      disabled={disabled}
                      onClick={() => onSelect(plan, action)}
                    >
                      {action.label}
                    </Button>
                    {scheduled ? (
                      <p className="text-center text-xs text-muted-foreground">Already scheduled for the end of this period.</p>
                    ) : null}
                  </CardFooter>
                </Card>
              </article>
            </li>
          );
        })}
      </ul>
    </section>
  );
});
