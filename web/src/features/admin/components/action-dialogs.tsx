import { useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { Textarea } from "@/components/ui/textarea";
import { ApiError, errorMessage } from "@/lib/api";
import { parseAmount, reasonError, REASON_MAX } from "../admin-helpers";

/** The server's message for a field, when its error names one (the error shape's `field` or `fields`). */
function serverFieldError(err: unknown, field: string): string | null {
  if (!(err instanceof ApiError) || !err.body) return null;
  if (err.body.fields?.[field]) return err.body.fields[field]!;
  if (err.body.field === field) return err.body.error;
  return null;
}

interface ReasonDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** A destructive action's button is red. */
  destructive?: boolean;
  /** Sends the action; throws the failed call's error, which the dialog shows. */
  onConfirm: (reason: string) => Promise<void>;
}

/**
 * A confirmation that needs a reason (suspend, reinstate, close, refund): the reason goes to the admin audit log.
 * Validation names the field; a refusal of the server is shown in the dialog, which stays open.
 */
export function ReasonDialog({ open, onOpenChange, ...props }: ReasonDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-md">{open ? <ReasonForm {...props} onDone={() => onOpenChange(false)} /> : null}</DialogContent>
    </Dialog>
  );
}

function ReasonForm({
  title,
  description,
  confirmLabel,
  destructive,
  onConfirm,
  onDone,
}: Omit<ReasonDialogProps, "open" | "onOpenChange"> & { onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    const invalid = reasonError(reason);
    setError(invalid);
    setFailure(null);
    if (invalid) {
      document.getElementById("action-reason")?.focus();
      return;
    }
    setPending(true);
    try {
      await onConfirm(reason.trim());
      onDone();
    } catch (err) {
      const onField = serverFieldError(err, "reason");
      if (onField) setError(onField);
      else setFailure(errorMessage(err, "The action failed. Please try again."));
    } finally {
      setPending(false);
    }
  };

  return (
    <form onSubmit={(e) => void onSubmit(e)} noValidate className="space-y-4">
      <DialogHeader>
        <DialogTitle>{title}</DialogTitle>
        <DialogDescription>{description}</DialogDescription>
      </DialogHeader>
      <Field id="action-reason" label="Reason" error={error ?? undefined} hint="Kept in the admin audit log.">
        <Textarea rows={3} maxLength={REASON_MAX + 50} value={reason} onChange={(e) => setReason(e.target.value)} {...fieldA11y("action-reason", error ?? undefined)} />
      </Field>
      {failure ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          {failure}
        </p>
      ) : null}
      <DialogFooter>
        <Button type="button" variant="outline" onClick={onDone}>
          Cancel
        </Button>
        <PendingButton type="submit" pending={pending} variant={destructive ? "destructive" : "default"}>
          {pending ? "Working..." : confirmLabel}
        </PendingButton>
      </DialogFooter>
    </form>
  );
}

export type CreditsMode = "grant" | "deduct";

interface CreditsDialogProps {
  mode: CreditsMode | null;
  onClose: () => void;
  email: string;
  /** The balance as shown, for the description. */
  balance: string;
  /** Sends the signed amount and the reason; throws the failed call's error. */
  onConfirm: (amount: number, reason: string) => Promise<void>;
}

/** Grant or deduct credits: a positive amount (the mode gives the sign) and a reason, both required. */
export function CreditsDialog({ mode, onClose, ...props }: CreditsDialogProps) {
  return (
    <Dialog open={mode !== null} onOpenChange={(o) => (o ? undefined : onClose())}>
      <DialogContent className="max-w-md">{mode ? <CreditsForm mode={mode} onDone={onClose} {...props} /> : null}</DialogContent>
    </Dialog>
  );
}

function CreditsForm({
  mode,
  email,
  balance,
  onConfirm,
  onDone,
}: Omit<CreditsDialogProps, "mode" | "onClose"> & { mode: CreditsMode; onDone: () => void }) {
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [amountErr, setAmountErr] = useState<string | null>(null);
  const [reasonErr, setReasonErr] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const grant = mode === "grant";

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    const parsed = parseAmount(amount);
    const rErr = reasonError(reason);
    setAmountErr(parsed.ok ? null : parsed.message);
    setReasonErr(rErr);
    setFailure(null);
    if (!parsed.ok || rErr) {
      document.getElementById(!parsed.ok ? "credits-amount" : "credits-reason")?.focus();
      return;
    }
    setPending(true);
    try {
      await onConfirm(grant ? parsed.credits : -parsed.credits, reason.trim());
      onDone();
    } catch (err) {
      const a = serverFieldError(err, "amount");
      const r = serverFieldError(err, "reason");
      if (a) setAmountErr(a);
      if (r) setReasonErr(r);
      if (!a && !r) setFailure(errorMessage(err, "The credits could not be changed. Please try again."));
    } finally {
      setPending(false);
    }
  };

  return (
    <form onSubmit={(e) => void onSubmit(e)} noValidate className="space-y-4">
      <DialogHeader>
        <DialogTitle>{grant ? "Grant credits" : "Deduct credits"}</DialogTitle>
        <DialogDescription>
          {grant ? `Add credits to ${email}.` : `Take credits from ${email}; the balance cannot go below zero.`} Balance
          now: {balance}.
        </DialogDescription>
      </DialogHeader>
      <Field id="credits-amount" label="Amount (credits)" error={amountErr ?? undefined}>
        <Input inputMode="numeric" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} {...fieldA11y("credits-amount", amountErr ?? undefined)} />
      </Field>
      <Field id="credits-reason" label="Reason" error={reasonErr ?? undefined} hint="Kept in the ledger and the admin audit log.">
        <Textarea rows={3} value={reason} onChange={(e) => setReason(e.target.value)} {...fieldA11y("credits-reason", reasonErr ?? undefined)} />
      </Field>
      {failure ? (
        <p role="alert" className="text-sm font-medium text-destructive">
          {failure}
        </p>
      ) : null}
      <DialogFooter>
        <Button type="button" variant="outline" onClick={onDone}>
          Cancel
        </Button>
        <PendingButton type="submit" pending={pending}>
          {pending ? "Saving..." : grant ? "Grant credits" : "Deduct credits"}
        </PendingButton>
      </DialogFooter>
    </form>
  );
}
