import { AlertTriangle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { balanceText, type Balance } from "@/lib/balance";
import type { BalanceAdvice } from "../billing-helpers";

interface LowBalanceWarningProps {
  advice: BalanceAdvice;
  /** The balance the advice is about, shown in the same words as the header and the Available Credits card. */
  balance: Balance;
  /** Brings the plan selection into view. */
  onChoosePlan: () => void;
}

/**
 * The balance banner, shown whenever the balance is not `ok`, with the advice balanceAdvice gives for the plan. It
 * interrupts (role="alert") only when calls are refused now; a low balance or overage is advice, announced politely.
 */
export function LowBalanceWarning({ advice, balance, onChoosePlan }: LowBalanceWarningProps) {
  return (
    <div
      role={advice.blocking ? "alert" : "status"}
      data-testid="low-balance-warning"
      className="flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-900 sm:flex-row sm:items-center sm:justify-between"
    >
      <div className="flex min-w-0 gap-3">
        <AlertTriangle className="mt-0.5 h-5 w-5 shrink-0" aria-hidden="true" />
        <div className="min-w-0">
          <p className="font-semibold">
            {`${advice.title}: `}
            <span className="whitespace-nowrap" data-testid="banner-balance">
              {balanceText(balance)}
            </span>
          </p>
          <p className="text-sm">{advice.text}</p>
        </div>
      </div>
      <Button type="button" variant="outline" className="shrink-0 border-amber-400 bg-white" onClick={onChoosePlan}>
        View plans
      </Button>
    </div>
  );
}
