import { useState } from "react";
import { Copy, Eye, EyeOff } from "lucide-react";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";

interface WebhookSecretProps {
  url: string;
  secret: string;
  /** The heading's level where it is shown: h3 in a job's details, h2 on a portfolio's page. */
  heading?: "h2" | "h3";
}

/** The secret with all but its prefix and last four characters hidden, until the person asks to see it. */
export function maskSecret(secret: string): string {
  const prefix = secret.startsWith("whsec_") ? "whsec_" : "";
  const tail = secret.slice(-4);
  return `${prefix}${"•".repeat(12)}${tail}`;
}

/**
 * A job's or a portfolio's webhook and the secret that signs it (shown to its owner only, by the server): the receiver checks
 * each webhook's X-Valuator-Signature header with it. Hidden until shown, so it is not read over a shoulder; the
 * copy button copies it either way.
 */
export function WebhookSecret({ url, secret, heading: Heading = "h3" }: WebhookSecretProps) {
  const [shown, setShown] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
    } catch {
      toast({
        variant: "destructive",
        title: "Copy Failed",
        description: "The browser refused access to the clipboard. Show the secret and copy it by hand.",
      });
      return;
    }
    toast({ title: "Copied", description: "Webhook signing secret copied to clipboard" });
  }

  return (
    <section aria-labelledby="job-webhook-heading" data-testid="job-webhook" className="space-y-2 rounded-md border p-4">
      <Heading id="job-webhook-heading" className="font-semibold">
        Webhook
      </Heading>
      <p className="break-all text-sm">
        <span className="text-muted-foreground">Sent to </span>
        <code className="font-mono text-xs">{url}</code>
      </p>
      <div className="space-y-1">
        <p id="job-webhook-secret-label" className="text-xs text-muted-foreground">
          Signing secret: use it to verify the <code className="font-mono">X-Valuator-Signature</code> header of each
          webhook (HMAC-SHA256 of <code className="font-mono">{"<t>.<body>"}</code>).
        </p>
        <div className="flex items-center gap-2">
          <code
            data-testid="job-webhook-secret"
            aria-labelledby="job-webhook-secret-label"
            className="min-w-0 flex-1 break-all rounded bg-muted px-2 py-1 font-mono text-xs"
          >
            {shown ? secret : maskSecret(secret)}
          </code>
          <Button
            type="button"
            variant="outline"
            size="sm"
            onClick={() => setShown((s) => !s)}
            aria-label={shown ? "Hide webhook signing secret" : "Show webhook signing secret"}
          >
            {shown ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
            {shown ? "Hide" : "Show"}
          </Button>
          <Button type="button" variant="outline" size="sm" onClick={() => void copy()} aria-label="Copy webhook signing secret">
            <Copy aria-hidden="true" />
            Copy
          </Button>
        </div>
      </div>
    </section>
  );
}
