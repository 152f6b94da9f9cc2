import { useEffect, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Copy, ShieldAlert } from "lucide-react";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { toast } from "@/components/ui/use-toast";
import type { ApiKey } from "@/lib/types";
import { applyServerFieldErrors } from "@/lib/form-errors";
import { useCreateApiKey } from "../api/api-keys-api";
import {
  CREATE_FAILED,
  KEY_NAME_MAX,
  RATE_LIMIT_MAX,
  RATE_LIMIT_MIN,
  failureDetail,
  formatRateLimit,
  generateKeySchema,
  defaultRateLimit,
  planCapNote,
  type GenerateKeyInput,
  type GenerateKeyValues,
  type Plan,
} from "../api-key-helpers";
import { copyApiKey } from "../copy-key";

interface GenerateKeyDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  plan: Plan;
}

/** A fresh form: no name, and the plan's cap as the rate limit (the limit a key on this plan really gets). */
const defaultsFor = (plan: Plan): GenerateKeyInput => ({ name: "", rateLimit: String(defaultRateLimit(plan)) });

/**
 * The 'Generate New Key' dialog: asks for a name and a rate limit, then shows the new full key once with a copy
 * button. The server keeps the key encrypted, so it can also be copied again later from the table.
 */
export function GenerateKeyDialog({ open, onOpenChange, plan }: GenerateKeyDialogProps) {
  const create = useCreateApiKey();
  const [created, setCreated] = useState<ApiKey | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<GenerateKeyInput, unknown, GenerateKeyValues>({
    resolver: zodResolver(generateKeySchema),
    mode: "onSubmit",
    defaultValues: defaultsFor(plan),
  });

  // The plan is known once the profile is read (and changes with an upgrade): the form follows it, keeping whatever
  // the user has typed into an open dialog.
  useEffect(() => {
    reset(defaultsFor(plan), { keepDirtyValues: open });
  }, [open, plan, reset]);

  const changeOpen = (next: boolean) => {
    if (isSubmitting) return;
    if (!next) {
      // A fresh form next time, and the shown key is not kept on screen once the dialog is closed.
      reset(defaultsFor(plan));
      setCreated(null);
    }
    onOpenChange(next);
  };

  const onSubmit = async (values: GenerateKeyValues) => {
    try {
      const key = await create.mutateAsync({ name: values.name, rateLimit: values.rateLimit });
      setCreated(key);
      toast({ title: "API Key Created", description: `"${key.name}" is ready. Copy it and store it safely.` });
    } catch (err) {
      applyServerFieldErrors(err, setError, ["name", "rateLimit"]);
      toast({ variant: "destructive", title: CREATE_FAILED, description: failureDetail(err) });
    }
  };

  return (
    <Dialog open={open} onOpenChange={changeOpen}>
      <DialogContent>
        {created ? (
          <CreatedKey apiKey={created} onDone={() => changeOpen(false)} />
        ) : (
          <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
            <DialogHeader>
              <DialogTitle>Generate New Key</DialogTitle>
              <DialogDescription>
                Name the key after the app or environment that will use it, so you can tell keys apart and delete one
                without touching the others.
              </DialogDescription>
            </DialogHeader>
            <Field id="key-name" label="Key Name" error={errors.name?.message}>
              <Input
                autoComplete="off"
                placeholder="Production server"
                maxLength={KEY_NAME_MAX}
                {...fieldA11y("key-name", errors.name?.message)}
                {...register("name")}
              />
            </Field>
            <Field
              id="key-rate-limit"
              label="Rate Limit (requests per minute)"
              error={errors.rateLimit?.message}
              hint={`A whole number from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}. ${planCapNote(plan)}`}
            >
              <Input
                type="number"
                inputMode="numeric"
                min={RATE_LIMIT_MIN}
                max={RATE_LIMIT_MAX}
                step={1}
                {...fieldA11y("key-rate-limit", errors.rateLimit?.message)}
                {...register("rateLimit")}
              />
            </Field>
            <DialogFooter>
              <Button type="button" variant="outline" disabled={isSubmitting} onClick={() => changeOpen(false)}>
                Cancel
              </Button>
              {/* Not disabled while the key is made: focus stays on it, then moves to the new key's heading. */}
              <PendingButton type="submit" pending={isSubmitting}>
                {isSubmitting ? "Generating..." : "Generate Key"}
              </PendingButton>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}

function CreatedKey({ apiKey, onDone }: { apiKey: ApiKey; onDone: () => void }) {
  // The form made way for the key: focus goes to its title, which a screen reader reads out with the key's
  // description, instead of falling to the dialog as a whole.
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);
  return (
    <div className="space-y-4">
      <DialogHeader>
        <DialogTitle ref={title} tabIndex={-1} className="rounded-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-ring">
          Your new API key
        </DialogTitle>
        <DialogDescription>
          {`"${apiKey.name}" is ready, limited to ${formatRateLimit(apiKey)}. Send it in the x-api-key header.`}
        </DialogDescription>
      </DialogHeader>
      <div className="flex items-center gap-2 rounded-md border bg-muted/40 p-3">
        <code data-testid="new-key-value" className="min-w-0 flex-1 break-all font-mono text-sm">
          {apiKey.keyValue}
        </code>
        <Button type="button" variant="outline" size="sm" className="shrink-0" onClick={() => void copyApiKey(apiKey.keyValue)}>
          <Copy aria-hidden="true" />
          Copy Key
        </Button>
      </div>
      <div role="note" className="flex gap-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        <ShieldAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
        <p>
          Store this key safely, in your server's secret store or environment, never in a web page, mobile app or code
          repository. Anyone who has it can spend your credits. You can copy it again later from the keys table.
        </p>
      </div>
      <DialogFooter>
        <Button type="button" onClick={onDone}>
          Done
        </Button>
      </DialogFooter>
    </div>
  );
}
