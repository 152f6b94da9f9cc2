import { RefreshCw } from "lucide-react";
import { Button } from "@/components/ui/button";

/** A section that could not be read: the reason and a Retry button. */
export function LoadError({ message, onRetry, busy }: { message: string; onRetry: () => void; busy: boolean }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-3 py-6 text-center">
      <p className="text-sm">{message}</p>
      <Button type="button" variant="outline" size="sm" onClick={onRetry} disabled={busy}>
        <RefreshCw aria-hidden="true" className={busy ? "animate-spin" : undefined} />
        Retry
      </Button>
    </div>
  );
}
