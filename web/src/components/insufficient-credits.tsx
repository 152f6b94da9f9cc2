import { Link } from "react-router";
import { toast } from "@/components/ui/use-toast";
import { ApiError, errorMessage } from "@/lib/api";

// A call refused for want of credits (a 402) is said the same way on every screen that charges: the balance and the
// price the answer reports, and the way to Billing.

/** The balance and the price a 402 answer reports (Error.balance and Error.creditsRequired in the contract). */
export function insufficientCredits(err: unknown, price: number): { balance: number | null; creditsRequired: number } | null {
  if (!(err instanceof ApiError) || err.status !== 402) return null;
  const body = (err.body ?? {}) as { balance?: unknown; creditsRequired?: unknown };
  return {
    balance: typeof body.balance === "number" ? body.balance : null,
    creditsRequired: typeof body.creditsRequired === "number" ? body.creditsRequired : price,
  };
}

interface Refusal {
  /** What the call costs, as the sentence says it: "a valuation costs", "this search costs". */
  costs: string;
  /** Its price when the answer does not say. */
  price: number;
  /** What to say when the answer gives no balance. */
  fallback: string;
  /** Brings the header's balance up to date: it may show an older one than the server's. */
  refreshUser: () => Promise<unknown> | void;
}

/** Toasts a 402 refusal and returns true; returns false, saying nothing, for any other error. */
export function toastInsufficientCredits(err: unknown, { costs, price, fallback, refreshUser }: Refusal): boolean {
  const credits = insufficientCredits(err, price);
  if (!credits) return false;
  void refreshUser();
  toast({
    variant: "destructive",
    title: "Insufficient Credits",
    description: (
      <span data-testid="insufficient-credits">
        {credits.balance !== null
          ? `Your balance is ${credits.balance} ${credits.balance === 1 ? "credit" : "credits"} and ${costs} ${credits.creditsRequired}. `
          : `${errorMessage(err, fallback)} `}
        <Link to="/billing" className="font-semibold underline underline-offset-2">
          Add credits on Billing &amp; Credits
        </Link>
      </span>
    ),
  });
  return true;
}
