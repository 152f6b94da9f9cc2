import { useEffect, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { toast } from "@/components/ui/use-toast";
import { ApiError, errorMessage } from "@/lib/api";
import { useUpdatePortfolio, type Portfolio } from "../api/portfolios-api";
import { checkThreshold } from "../portfolios-helpers";
import { AlertFields } from "./create-portfolio-dialog";

const SAVE_FAILED = "Could not save the portfolio's settings";
const FIELDS = ["name", "alertThreshold", "webhookUrl"] as const;

/**
 * A portfolio's settings (PATCH): its name, the alert threshold (empty for no alerts) and the webhook (empty for
 * none). Free. A 400 shows at its field; a webhook added gets a signing secret, shown on the portfolio's page.
 */
export function SettingsDialog({ open, onClose, portfolio }: { open: boolean; onClose: () => void; portfolio: Portfolio }) {
  const update = useUpdatePortfolio(portfolio.id);
  const [name, setName] = useState(portfolio.name);
  const [threshold, setThreshold] = useState("");
  const [webhook, setWebhook] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});

  useEffect(() => {
    if (open) {
      setName(portfolio.name);
      setThreshold(portfolio.alertThreshold === null ? "" : String(portfolio.alertThreshold));
      setWebhook(portfolio.webhookUrl ?? "");
      setErrors({});
      update.reset();
    }
    // Only when it opens: what the portfolio holds then.
  }, [open]);

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (update.isPending) return;
    const next: Record<string, string> = {};
    if (!name.trim()) next.name = "Portfolio name is required";
    const t = threshold.trim() === "" ? null : Number(threshold);
    const bad = checkThreshold(t);
    if (bad) next.alertThreshold = bad;
    setErrors(next);
    const first = FIELDS.find((f) => next[f]);
    if (first) {
      document.getElementById(`settings-${first}`)?.focus();
      return;
    }
    update.mutate(
      { name: name.trim(), alertThreshold: t, webhookUrl: webhook.trim() || null },
      {
        onSuccess: (p) => {
          toast({ title: "Settings Saved", description: `${p.name}: ${p.alertThreshold === null ? "no alerts" : `alerts past ${p.alertThreshold}% a month`}.` });
          onClose();
        },
        onError: (err) => {
          const field = err instanceof ApiError && err.status === 400 ? err.body?.field : undefined;
          if (field && (FIELDS as readonly string[]).includes(field)) {
            setErrors({ [field]: err instanceof ApiError ? (err.body?.error ?? SAVE_FAILED) : SAVE_FAILED });
            document.getElementById(`settings-${field}`)?.focus();
            return;
          }
          toast({ variant: "destructive", title: SAVE_FAILED, description: errorMessage(err, SAVE_FAILED) });
        },
      },
    );
  };

  return (
    <Dialog open={open} onOpenChange={(o) => !o && !update.isPending && onClose()}>
      <DialogContent data-testid="portfolio-settings-dialog">
        <DialogHeader>
          <DialogTitle>Portfolio settings</DialogTitle>
          <DialogDescription>Its name, when to alert, and where alerts are posted. Free.</DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={submit} className="space-y-4" aria-label="Portfolio settings">
          <Field id="settings-name" label="Name" error={errors.name}>
            <Input maxLength={100} value={name} onChange={(e) => setName(e.target.value)} {...fieldA11y("settings-name", errors.name, true)} />
          </Field>
          <AlertFields idPrefix="settings" threshold={threshold} onThreshold={setThreshold} webhook={webhook} onWebhook={setWebhook} errors={errors} />
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose} disabled={update.isPending}>
              Cancel
            </Button>
            <PendingButton type="submit" pending={update.isPending}>
              {update.isPending ? "Saving..." : "Save Settings"}
            </PendingButton>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
