import { Loader2 } from "lucide-react";
import { cn } from "@/lib/utils";

/** A spinning indicator; `label` is read by screen readers. */
export function Spinner({ className, label = "Loading" }: { className?: string; label?: string }) {
  return (
    <span role="status" aria-label={label} className="inline-flex">
      <Loader2 className={cn("h-6 w-6 animate-spin text-primary", className)} aria-hidden="true" />
    </span>
  );
}

/** A spinner centred in the available space, for whole-screen loading states. */
export function FullPageSpinner({ label }: { label?: string }) {
  return (
    <div className="flex min-h-[50vh] w-full items-center justify-center">
      <Spinner className="h-8 w-8" label={label} />
    </div>
  );
}
