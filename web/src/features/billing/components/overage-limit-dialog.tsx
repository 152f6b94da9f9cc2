import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { PendingButton } from "@/components/ui/pending-button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import {
  INVALID_INPUT_TITLE,
  formatOverageLimit,
  overageLimitMax,
  overageLimitText,
  parseOverageLimit,
} from "../billing-helpers";
import { useSetOverageLimit } from "../api/billing-api";

interface OverageLimitDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The saved limit in dollars; null means no limit. */
  current: number | null;
  /** The current plan's monthly price in dollars (0 or null with no paid plan): the stated maximum is ten times it. */
  planPrice: number | null;
}

/**
 * The custom usage limit (spec, sections 4 and 5): the most overage, in dollars, a period may run up. Save, 'Reset
 * to plan limit' (no limit), or Cancel; Enter saves. Empty means no limit; anything else must be a number, not
 * negative. The stated maximum of ten times the plan price is advice, not enforced.
 */
export function OverageLimitDialog({ open, onOpenChange, current, planPrice }: OverageLimitDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-md">
        {open ? <LimitForm current={current} planPrice={planPrice} onDone={() => onOpenChange(false)} /> : null}
      </DialogContent>
    </Dialog>
  );
}

function LimitForm({ current, planPrice, onDone }: { current: number | null; planPrice: number | null; onDone: () => void }) {
  const save = useSetOverageLimit();
  const [text, setText] = useState(() => overageLimitText(current));
  const [error, setError] = useState<string | null>(null);
  const max = overageLimitMax(planPrice);

  const send = (limit: number | null) => {
    save.mutate(limit, {
      onSuccess: (saved) => {
        const value = saved.overageLimit;
        toast({
          title: "Limit Updated",
          description:
            value === null
              ? "Your overage limit is removed: overage is billed without a cap."
              : `Overage is now capped at ${formatOverageLimit(value)} a billing period.`,
        });
        onDone();
      },
      onError: (err) => {
        const message = errorMessage(err, "The limit could not be saved. Please try again.");
        setError(message);
        toast({ variant: "destructive", title: "Error", description: message });
      },
    });
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    const parsed = parseOverageLimit(text);
    if (!parsed.ok) {
      setError(parsed.message);
      toast({ variant: "destructive", title: INVALID_INPUT_TITLE, description: parsed.message });
      return;
    }
    setError(null);
    send(parsed.limit);
  };

  const onReset = () => {
    if (save.isPending) return;
    setError(null);
    setText("");
    send(null);
  };

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <DialogHeader>
        <DialogTitle>Custom Usage Limit</DialogTitle>
        <DialogDescription>
          The most overage you can be billed in one billing period, in US dollars. Once it is reached, calls that need
          credits are refused until the next period or until you raise the limit. Leave it empty for no limit.
        </DialogDescription>
      </DialogHeader>
      <Field
        id="overage-limit"
        label="Overage limit (USD)"
        error={error ?? undefined}
        hint="Leave empty to remove the limit."
      >
        <div className="relative">
          <span className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-sm text-muted-foreground" aria-hidden="true">
            $
          </span>
          <Input
            inputMode="decimal"
            autoComplete="off"
            placeholder="No limit"
            className="pl-7"
            value={text}
            onChange={(e) => setText(e.target.value)}
            {...fieldA11y("overage-limit", error ?? undefined)}
          />
        </div>
      </Field>
      <p className="text-xs text-muted-foreground" data-testid="overage-limit-max">
        {planPrice && planPrice > 0 ? `Maximum: $${max} (ten times your plan price)` : `Maximum: $${max}`}
      </p>
      <DialogFooter className="gap-2 sm:justify-between">
        <Button type="button" variant="ghost" disabled={save.isPending} onClick={onReset}>
          Reset to plan limit
        </Button>
        <div className="flex flex-col-reverse gap-2 sm:flex-row">
          <Button type="button" variant="outline" disabled={save.isPending} onClick={onDone}>
            Cancel
          </Button>
          <PendingButton type="submit" pending={save.isPending}>
            {save.isPending ? "Saving..." : "Save"}
          </PendingButton>
        </div>
      </DialogFooter>
    </form>
  );
}
