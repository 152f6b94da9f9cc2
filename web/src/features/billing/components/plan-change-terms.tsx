import { RefreshCw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { PendingButton } from "@/components/ui/pending-button";
import { DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";
import { formatCredits } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import type { PlanInfo } from "@/lib/types";
import { failureText, formatCard, formatDate, type PaidPlanId } from "../billing-helpers";
import { useProration } from "../api/billing-api";

interface PlanChangeTermsProps {
  plan: PlanInfo;
  upgrade: boolean;
  /** The plan the account pays for now. */
  currentPlan: PlanInfo | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * What a change of plan means before it is asked for: an upgrade's prorated charge, the card on file that pays it
 * and the credits it grants at once; a downgrade's date. One click confirms: the card on file pays without a form.
 */
export function PlanChangeTerms({ plan, upgrade, currentPlan, busy, onConfirm, onCancel }: PlanChangeTermsProps) {
  const proration = useProration(plan.id as PaidPlanId);
  const terms = proration.data;
  const price = `${formatMoney(plan.priceCents)}/month`;

  return (
    <>
      <DialogHeader>
        <DialogTitle>{upgrade ? `Upgrade to ${plan.name}` : `Switch to ${plan.name}`}</DialogTitle>
        <DialogDescription>{`${plan.name}: ${price} with ${formatCredits(plan.credits)} each month.`}</DialogDescription>
      </DialogHeader>
      <div className="space-y-3 text-sm" data-testid="plan-change-terms" aria-live="polite">
        {proration.isPending ? (
          <div className="flex justify-center py-4">
            <Spinner label="Loading the charge" />
          </div>
        ) : proration.isError ? (
          <div role="alert" className="space-y-2 rounded-md border border-destructive/40 p-3">
            <p>{`The terms of this change could not be loaded. ${failureText(proration.error, "")}`.trim()}</p>
            <Button type="button" size="sm" variant="outline" onClick={() => void proration.refetch()} disabled={proration.isFetching}>
              <RefreshCw aria-hidden="true" />
              Retry
            </Button>
          </div>
        ) : terms && upgrade ? (
          <>
            <p className="rounded-md bg-muted/60 p-3">
              {terms.requiresPayment ? (
                <>
                  You pay <strong data-testid="proration-charge">{formatMoney(terms.chargeCents)}</strong> now
                  {terms.paymentMethod ? (
                    <>
                      {" with "}
                      <strong className="whitespace-nowrap" data-testid="proration-card">
                        {formatCard(terms.paymentMethod)}
                      </strong>
                    </>
                  ) : null}
                  , prorated for the rest of this billing period, and get <strong>{formatCredits(terms.credits)}</strong> at
                  once.
                </>
              ) : (
                <>
                  Nothing is charged now, and you get <strong>{formatCredits(terms.credits)}</strong> at once.
                </>
              )}
            </p>
            <p className="text-muted-foreground">
              {`The upgrade takes effect immediately. From your next billing date the plan costs ${price}.`}
            </p>
          </>
        ) : terms ? (
          <>
            <p className="rounded-md bg-muted/60 p-3">
              {`The switch takes effect at the end of the current period, on `}
              <strong>{formatDate(terms.effectiveAt)}</strong>. Nothing is charged now.
            </p>
            <p className="text-muted-foreground">
              {`You keep ${currentPlan?.name ?? "your current plan"} and its credits until then; from that date the plan costs ${price}.`}
            </p>
          </>
        ) : null}
      </div>
      <DialogFooter>
        <Button type="button" variant="outline" disabled={busy} onClick={onCancel}>
          Cancel
        </Button>
        <PendingButton type="button" pending={busy} disabled={upgrade && !terms} onClick={onConfirm}>
          {busy ? "Processing..." : upgrade ? "Confirm Upgrade" : "Confirm Switch"}
        </PendingButton>
      </DialogFooter>
    </>
  );
}
