import { AlertTriangle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { formatCredits } from "../billing-helpers";

interface LowBalanceWarningProps {
  credits: number;
  threshold: number;
  /** Brings the plan selection into view. */
  onChoosePlan: () => void;
}

/** Shown when the balance is under the low-balance threshold (spec: under 50 credits). */
export function LowBalanceWarning({ credits, threshold, onChoosePlan }: LowBalanceWarningProps) {
  const left = Math.max(credits, 0);
  return (
    <div
      role="alert"
      data-testid="low-balance-warning"
      className="flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-900 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex gap-3">
        <AlertTriangle className="mt-0.5 h-5 w-5 shrink-0" aria-hidden="true" />
        <div>
          <p className="font-semibold">Low credit balance</p>
          <p className="text-sm">
            {`You have ${formatCredits(left)} left, under the ${formatCredits(threshold)} alert level. Choose a plan with more credits so your lookups and API calls keep working.`}
          </p>
        </div>
      </div>
      <Button type="button" variant="outline" className="shrink-0 border-amber-400 bg-white" onClick={onChoosePlan}>
        View plans
      </Button>
    </div>
  );
}
