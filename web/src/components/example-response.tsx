import { CodeBlock } from "@/components/code-block";
import { exampleNote, exampleResponseJson, useExampleValuation, type ExampleView } from "@/lib/example-valuation";
import { cn } from "@/lib/utils";

/**
 * The example answer of GET /api/v1/property/valuation as a code sample, with the line that says where it comes
 * from: this server's live answer (lib/example-valuation.ts), a skeleton while it loads, or the generated example
 * with its day when the server has none.
 */
export function ExampleResponse({ className, noteClassName }: { className?: string; noteClassName?: string }) {
  const view = useExampleValuation();
  return (
    <div data-testid="example-response" data-state={view.state} className="min-w-0 space-y-3">
      {view.state === "loading" ? (
        <ExampleSkeleton />
      ) : (
        <>
          <CodeBlock title="Response" code={exampleResponseJson(view.example)} className={className} />
          <ExampleNote view={view} className={noteClassName} />
        </>
      )}
    </div>
  );
}

/**
 * Where an example's numbers come from (note, by default exampleNote's words); with a retry when the server could not
 * answer.
 */
export function ExampleNote({
  view,
  className,
  testId = "example-note",
  note = exampleNote(view),
}: {
  view: Exclude<ExampleView, { state: "loading" }>;
  className?: string;
  testId?: string;
  note?: string;
}) {
  return (
    <p data-testid={testId} data-state={view.state} className={cn("text-xs text-muted-foreground", className)}>
      {note}
      {view.state === "error" ? (
        <>
          {" "}
          <button
            type="button"
            onClick={view.retry}
            className="font-medium text-primary underline-offset-4 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          >
            Try again
          </button>
        </>
      ) : null}
    </p>
  );
}

/** The shape of a code sample while its answer loads: never the generated numbers, which may not be this server's. */
function ExampleSkeleton() {
  return (
    <div
      data-testid="example-loading"
      role="status"
      aria-label="Loading the example answer"
      className="min-w-0 overflow-hidden rounded-lg border border-slate-800 bg-slate-950"
    >
      <div className="border-b border-slate-800 px-4 py-2 text-xs font-medium text-slate-400">Response</div>
      <div className="animate-pulse space-y-2.5 p-4" aria-hidden="true">
        {["w-2/5", "w-2/3", "w-1/2", "w-3/4", "w-1/2", "w-3/5", "w-1/3", "w-2/3", "w-1/2", "w-2/5"].map((w, i) => (
          <div key={i} className={cn("h-3 rounded bg-slate-800", w)} />
        ))}
      </div>
    </div>
  );
}
