import { useRef, useState, type ReactNode } from "react";
import { CalendarClock } from "lucide-react";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { formatCredits } from "@/lib/balance";
import type { BillingConfig, PlanInfo, Subscription } from "@/lib/types";
import {
  CANCELED_TEXT,
  CANCELED_TITLE,
  formatCard,
  formatDate,
  formatSubscriptionStatus,
  hasPaidPlan,
  planName,
} from "../billing-helpers";
import { useCancelSubscription } from "../api/billing-api";
import { UpdateCardDialog } from "./update-card-dialog";

interface SubscriptionCardProps {
  subscription: Subscription;
  plans: readonly PlanInfo[];
  /** The payment mode, for the card form; undefined while it is read (no 'Update card' until then). */
  config: Pick<BillingConfig, "mode" | "publishableKey"> | undefined;
  onChoosePlan: () => void;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 py-2">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="text-sm font-medium">{children}</dd>
    </div>
  );
}

/**
 * Subscription details (spec, section 4): the plan, its status (active: default badge, anything else: secondary),
 * the period end, 'Cancels at period end' (and then no cancel button), a scheduled downgrade, the card with
 * 'Update card', and Cancel subscription with a confirmation.
 */
export function SubscriptionCard({ subscription: sub, plans, config, onChoosePlan }: SubscriptionCardProps) {
  const [confirming, setConfirming] = useState(false);
  const [updatingCard, setUpdatingCard] = useState(false);
  // After a cancellation its button is gone: the dialog gives focus to the card's heading instead.
  const heading = useRef<HTMLHeadingElement>(null);
  const cancel = useCancelSubscription();
  const paid = hasPaidPlan(sub);
  const free = sub.status === "none" || sub.planType === "free";
  const name = planName(sub.planType, plans);
  const end = formatDate(sub.currentPeriodEnd);
  const freePlan = plans.find((p) => p.id === "free");

  const onConfirm = () => {
    cancel.mutate(undefined, {
      onSuccess: () => {
        toast({ title: CANCELED_TITLE, description: CANCELED_TEXT });
        setConfirming(false);
      },
      onError: (err) => {
        toast({ variant: "destructive", title: "Error", description: errorMessage(err, "Failed to cancel the subscription.") });
      },
    });
  };

  return (
    <Card data-testid="subscription-card" className="min-w-0">
      <CardHeader>
        <CardTitle ref={heading} tabIndex={-1} className="text-lg focus:outline-none">
          Subscription
        </CardTitle>
        <CardDescription>Your plan, its billing period and the card it is paid with.</CardDescription>
      </CardHeader>
      <CardContent>
        {free ? (
          <div className="space-y-3" data-testid="free-plan-note">
            <p className="text-sm">
              <span className="font-medium">You are on the Free plan: no subscription.</span>{" "}
              {`You get ${formatCredits(freePlan?.credits ?? 100)} each month with no card, and no overage. Your free credits renew on ${end}.`}
            </p>
            <Button type="button" variant="outline" onClick={onChoosePlan}>
              Choose a plan
            </Button>
          </div>
        ) : (
          <>
            <dl className="divide-y">
              <Row label="Plan">{name}</Row>
              <Row label="Status">
                <span className="flex flex-wrap justify-end gap-1.5">
                  <Badge variant={sub.status === "active" ? "default" : "secondary"} data-testid="subscription-status">
                    {formatSubscriptionStatus(sub.status)}
                  </Badge>
                  {sub.cancelAtPeriodEnd ? (
                    <Badge variant="secondary" data-testid="cancels-at-period-end">
                      Cancels at period end
                    </Badge>
                  ) : null}
                </span>
              </Row>
              <Row label={sub.cancelAtPeriodEnd ? "Ends on" : "Current period ends"}>{end}</Row>
              {sub.pendingPlanType ? (
                <Row label="Scheduled change">
                  <span className="inline-flex items-center gap-1.5" data-testid="pending-plan">
                    <CalendarClock className="h-4 w-4 text-muted-foreground" aria-hidden="true" />
                    {`Switches to ${planName(sub.pendingPlanType, plans)} on ${end}`}
                  </span>
                </Row>
              ) : null}
              <Row label="Payment method">
                <span className="flex flex-wrap items-center justify-end gap-x-3 gap-y-1">
                  {sub.paymentMethod ? (
                    <span data-testid="payment-method">
                      {formatCard(sub.paymentMethod)}
                      <span className="ml-2 font-normal text-muted-foreground">
                        {`expires ${String(sub.paymentMethod.expMonth).padStart(2, "0")}/${String(sub.paymentMethod.expYear).slice(-2)}`}
                      </span>
                    </span>
                  ) : (
                    <span className="text-muted-foreground">None on file</span>
                  )}
                  {paid && config && config.mode !== "disabled" ? (
                    <Button
                      type="button"
                      variant="outline"
                      size="sm"
                      onClick={() => setUpdatingCard(true)}
                    >
                      Update card
                    </Button>
                  ) : null}
                </span>
              </Row>
            </dl>
            {sub.status === "past_due" ? (
              <p role="note" className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
                The last payment for this subscription did not go through. Choose the plan again with another card to
                keep it.
              </p>
            ) : null}
            {!sub.cancelAtPeriodEnd && paid ? (
              <div className="mt-4">
                <Button
                  type="button"
                  variant="outline"
                  className="text-destructive"
                  onClick={() => setConfirming(true)}
                >
                  Cancel subscription
                </Button>
              </div>
            ) : null}
          </>
        )}
      </CardContent>

      <AlertDialog open={confirming} onOpenChange={(open) => !cancel.isPending && setConfirming(open)}>
        <AlertDialogContent returnFocusTo={heading}>
          <AlertDialogHeader>
            <AlertDialogTitle>Cancel your subscription?</AlertDialogTitle>
            <AlertDialogDescription>
              {`Your ${name} plan stays active until ${end} and is not renewed; overage used until then is still billed. After that your account moves to the Free plan and any credits left are forfeited.`}
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel type="button" disabled={cancel.isPending}>
              Keep subscription
            </AlertDialogCancel>
            <Button type="button" variant="destructive" disabled={cancel.isPending} onClick={onConfirm}>
              {cancel.isPending ? "Canceling..." : "Cancel subscription"}
            </Button>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
      {config ? (
        <UpdateCardDialog open={updatingCard} onOpenChange={setUpdatingCard} config={config} returnFocusTo={heading} />
      ) : null}
    </Card>
  );
}
