import { ShieldCheck } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PendingButton } from "@/components/ui/pending-button";
import { DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { formatMoney } from "@/lib/money";

interface BankAuthenticationProps {
  amountCents: number;
  /** What the bank asks, in the provider's words. */
  message: string | null;
  busy: boolean;
  onAnswer: (answer: "complete" | "fail") => void;
}

/**
 * The test mode's imitation of the page Stripe's test mode shows for a card that needs 3-D Secure: no bank is
 * involved, the customer picks the bank's answer. (In Stripe mode Stripe.js shows the real one itself.)
 */
export function BankAuthentication({ amountCents, message, busy, onAnswer }: BankAuthenticationProps) {
  return (
    <>
      <DialogHeader>
        <DialogTitle>Confirm the payment</DialogTitle>
        <DialogDescription>{`Test mode: your bank asks you to confirm this payment of ${formatMoney(amountCents)}.`}</DialogDescription>
      </DialogHeader>
      <div role="note" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        <p className="flex items-center gap-2 font-semibold">
          <ShieldCheck className="h-4 w-4 shrink-0" aria-hidden="true" />
          <Badge variant="warning">Test mode</Badge>
          <span>No bank is contacted.</span>
        </p>
        {message ? <p data-testid="authentication-message">{message}</p> : null}
        <p>This step stands in for your bank&apos;s 3-D Secure page: choose what the bank answers.</p>
      </div>
      <DialogFooter>
        <Button type="button" variant="outline" disabled={busy} onClick={() => onAnswer("fail")}>
          Fail authentication
        </Button>
        {/* The step replaces the button that led here: focus its main action so the keyboard carries on. */}
        <PendingButton type="button" autoFocus pending={busy} onClick={() => onAnswer("complete")}>
          Complete authentication
        </PendingButton>
      </DialogFooter>
    </>
  );
}
