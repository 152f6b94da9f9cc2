import type { RowFailure } from "../portfolios-helpers";

/** The properties a create or add did not add, each with the server's reason (not charged). */
export function RowFailures({ failures }: { failures: readonly RowFailure[] }) {
  return (
    <ul data-testid="row-failures" className="max-h-48 space-y-1 overflow-y-auto rounded-md border bg-muted/40 p-3 text-sm">
      {failures.map((f, i) => (
        <li key={i} className="break-words">
          <span className="font-medium">{f.address}</span>: {f.error}
        </li>
      ))}
    </ul>
  );
}
