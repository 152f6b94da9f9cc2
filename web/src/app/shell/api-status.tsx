import { useQuery } from "@tanstack/react-query";
import { cn } from "@/lib/utils";

/** How often the header asks the server whether it is up. */
export const HEALTH_POLL_MS = 30000;

/**
 * The 'API Online' indicator of the signed-in header, fed by the liveness probe. It is the one query that polls
 * (the app's default is no polling), and it keeps polling after a failure so it recovers on its own.
 */
export function ApiStatus() {
  const { isPending, isError } = useQuery<{ status: string } | null>({
    queryKey: ["/healthz"],
    refetchInterval: HEALTH_POLL_MS,
    staleTime: 0,
  });

  const state = isError ? "offline" : isPending ? "checking" : "online";
  const label = state === "offline" ? "API Offline" : state === "checking" ? "Checking API..." : "API Online";

  return (
    <div
      data-testid="api-status"
      data-state={state}
      role="status"
      title={label}
      className={cn(
        "inline-flex items-center gap-1.5 whitespace-nowrap rounded-full border px-2.5 py-1 text-xs font-medium sm:gap-2 sm:px-3",
        state === "online" && "border-green-200 bg-green-50 text-green-700",
        state === "offline" && "border-red-200 bg-red-50 text-red-700",
        state === "checking" && "text-muted-foreground",
      )}
    >
      <span
        aria-hidden="true"
        className={cn(
          "h-2 w-2 rounded-full",
          state === "online" && "bg-green-500",
          state === "offline" && "bg-red-500",
          state === "checking" && "bg-muted-foreground/50",
        )}
      />
      {/* Below 420 px the header cannot hold the brand, this label and a balance in overage ("0 credits · 10 overage
          ($0.30)") side by side: the coloured dot stays and the words are still read out. */}
      <span className="max-[419px]:sr-only">{label}</span>
    </div>
  );
}
