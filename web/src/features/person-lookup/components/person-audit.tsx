import { useState, type FormEvent } from "react";
import { Download, Filter } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { saveBlobFile } from "@/lib/csv";
import type { PersonAuditEntry } from "@/lib/types";
import { formatDate } from "@/features/billing/billing-helpers";
import { LoadError } from "@/features/billing/components/load-error";
import { NO_AUDIT_FILTERS, fetchAuditCsv, usePersonAudit, type AuditFilters } from "../api/person-audit-api";
import { auditAddress, auditVia, outcomeOf, purposeLabel } from "../person-helpers";
import { PURPOSES, type Purpose } from "../person-types";

// The Lookup audit tab: every person lookup of the account (the dashboard's and the API keys'), newest first, with
// who made it, the query, the permissible purpose, the outcome and the credits charged. Filters (from, to, purpose)
// are edited as a draft and applied together; 'Export CSV' downloads all that match the applied filters.

const ALL_PURPOSES = "all";

const COLUMNS = ["When", "How", "Query", "Purpose", "Outcome", "Credits"] as const;

const timeFormat = new Intl.DateTimeFormat("en-US", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC" });

/** "14:05 UTC": the lookup's time of day, under its date. */
function formatTime(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? "" : `${timeFormat.format(ms)} UTC`;
}

function AuditFiltersForm({
  applied,
  onApply,
  onExport,
  exporting,
}: {
  applied: AuditFilters;
  onApply: (f: AuditFilters) => void;
  onExport: () => void;
  exporting: boolean;
}) {
  const [draft, setDraft] = useState<AuditFilters>(applied);
  const [rangeError, setRangeError] = useState<string | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Days in YYYY-MM-DD compare as text.
    if (draft.from && draft.to && draft.from > draft.to) {
      setRangeError("The from date must be on or before the to date.");
      return;
    }
    setRangeError(null);
    onApply(draft);
  };

  return (
    <form
      onSubmit={submit}
      role="search"
      aria-label="Filter the lookup audit"
      noValidate
      className="grid grid-cols-2 gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_minmax(0,1.5fr)_auto_auto] lg:items-end"
    >
      <div className="flex min-w-0 flex-col gap-2">
        <Label htmlFor="audit-from">From</Label>
        <Input
          id="audit-from"
          type="date"
          value={draft.from}
          max={draft.to || undefined}
          aria-invalid={rangeError ? true : undefined}
          aria-describedby={rangeError ? "audit-range-error" : undefined}
          onChange={(e) => setDraft({ ...draft, from: e.target.value })}
        />
      </div>
      <div className="flex min-w-0 flex-col gap-2">
        <Label htmlFor="audit-to">To</Label>
        <Input
          id="audit-to"
          type="date"
          value={draft.to}
          min={draft.from || undefined}
          aria-invalid={rangeError ? true : undefined}
          aria-describedby={rangeError ? "audit-range-error" : undefined}
          onChange={(e) => setDraft({ ...draft, to: e.target.value })}
        />
      </div>
      <div className="col-span-2 flex min-w-0 flex-col gap-2 lg:col-span-1">
        <Label htmlFor="audit-purpose">Purpose</Label>
        <Select
          value={draft.purpose || ALL_PURPOSES}
          onValueChange={(v) => setDraft({ ...draft, purpose: v === ALL_PURPOSES ? "" : (v as Purpose) })}
        >
          <SelectTrigger id="audit-purpose">
            <SelectValue />
          </SelectTrigger>
          <SelectContent>
            <SelectItem value={ALL_PURPOSES}>All purposes</SelectItem>
            {PURPOSES.map((p) => (
              <SelectItem key={p.value} value={p.value}>
                {p.label}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      </div>
      <Button type="submit" className="col-span-2 sm:col-span-1">
        <Filter aria-hidden="true" />
        Apply filters
      </Button>
      <Button type="button" variant="outline" onClick={onExport} disabled={exporting} className="col-span-2 sm:col-span-1">
        {exporting ? <Spinner className="h-4 w-4" label="Exporting" /> : <Download aria-hidden="true" />}
        Export CSV
      </Button>
      {rangeError ? (
        <p id="audit-range-error" role="alert" className="col-span-2 text-sm font-medium text-destructive lg:col-span-5">
          {rangeError}
        </p>
      ) : null}
    </form>
  );
}

function AuditRow({ entry }: { entry: PersonAuditEntry }) {
  const outcome = outcomeOf(entry.outcome);
  const address = auditAddress(entry.query);
  // On a phone the bare number needs its unit; the table's column header says it on wide screens.
  const creditsWord = entry.credits === 1 ? " credit" : " credits";
  return (
    // A table row on wide screens; on a phone each lookup stacks into short lines (query and outcome, when and
    // credits, how, purpose), so nothing needs a sideways scroll.
    <tr
      data-testid="audit-row"
      className="grid grid-cols-[minmax(0,1fr)_auto] items-start gap-x-3 gap-y-1 border-b px-3 py-3 last:border-0 lg:table-row lg:p-0"
    >
      <td className="order-3 text-xs text-muted-foreground lg:px-3 lg:py-2 lg:align-top lg:text-sm lg:text-foreground">
        <time dateTime={entry.createdAt} className="whitespace-nowrap">
          {formatDate(entry.createdAt)}
          <span className="lg:block">
            <span className="lg:hidden">, </span>
            <span className="lg:text-xs lg:text-muted-foreground">{formatTime(entry.createdAt)}</span>
          </span>
        </time>
      </td>
      <td className="order-5 col-span-2 break-words text-xs text-muted-foreground lg:col-span-1 lg:px-3 lg:py-2 lg:align-top lg:text-sm lg:text-foreground">
        {auditVia(entry)}
      </td>
      <td className="order-1 min-w-0 break-words lg:px-3 lg:py-2 lg:align-top" data-testid="audit-query">
        <span className="block font-medium">{entry.query.name}</span>
        {address ? <span className="block text-xs text-muted-foreground lg:text-sm">{address}</span> : null}
      </td>
      <td className="order-6 col-span-2 break-words text-xs text-muted-foreground lg:col-span-1 lg:px-3 lg:py-2 lg:align-top lg:text-sm lg:text-foreground">
        <span className="lg:hidden">Purpose: </span>
        {purposeLabel(entry.purpose)}
      </td>
      <td className="order-2 text-right lg:px-3 lg:py-2 lg:text-left lg:align-top">
        <Badge variant={outcome.tone} title={outcome.description}>
          {outcome.label}
        </Badge>
      </td>
      <td className="order-4 whitespace-nowrap text-right text-xs tabular-nums lg:px-3 lg:py-2 lg:align-top lg:text-sm" data-testid="audit-credits">
        {entry.credits}
        <span className="lg:hidden">{creditsWord}</span>
      </td>
    </tr>
  );
}

export function PersonAudit() {
  const [filters, setFilters] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [exporting, setExporting] = useState(false);
  const audit = usePersonAudit(filters);
  const rows = audit.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = filters.from !== "" || filters.to !== "" || filters.purpose !== "";

  const onExport = async () => {
    if (exporting) return;
    setExporting(true);
    try {
      const file = await fetchAuditCsv(filters);
      saveBlobFile(file.blob, file.fileName);
      toast({ title: "Export Started", description: `Saved as ${file.fileName}` });
    } catch (err) {
      toast({
        variant: "destructive",
        title: "Download Failed",
        description: errorMessage(err, "Failed to export the lookup audit. Please try again."),
      });
    } finally {
      setExporting(false);
    }
  };

  return (
    <Card data-testid="person-audit" className="min-w-0">
      <CardHeader>
        <CardTitle className="text-lg">Lookup audit</CardTitle>
        <CardDescription>
          Every person lookup of this account, from the dashboard and with API keys, with its permissible purpose.
          Only a hit is charged (5 credits); a miss or a refused lookup is free.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <AuditFiltersForm applied={filters} onApply={setFilters} onExport={() => void onExport()} exporting={exporting} />

        {audit.isPending ? (
          <div className="flex justify-center py-6">
            <Spinner label="Loading the lookup audit" />
          </div>
        ) : audit.isError && rows.length === 0 ? (
          <LoadError
            message={errorMessage(audit.error, "Failed to load the lookup audit.")}
            onRetry={() => void audit.refetch()}
            busy={audit.isFetching}
          />
        ) : rows.length === 0 ? (
          <p data-testid="audit-empty" className="py-6 text-center text-sm text-muted-foreground">
            {filtered
              ? "No lookups match these filters."
              : "No person lookups yet. Each lookup, from this screen or with an API key, will be listed here."}
          </p>
        ) : (
          <div className="rounded-md border" aria-busy={audit.isFetching}>
            <table className="w-full text-sm" data-testid="audit-table">
              <caption className="sr-only">Person lookup audit, newest first</caption>
              <thead className="hidden lg:table-header-group">
                <tr className="border-b bg-muted/40 text-left">
                  {COLUMNS.map((c) => (
                    <th
                      key={c}
                      scope="col"
                      className={`h-10 px-3 font-medium text-muted-foreground ${c === "Credits" ? "text-right" : ""}`}
                    >
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((entry) => (
                  <AuditRow key={entry.id} entry={entry} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {audit.isError && rows.length > 0 ? (
          <p role="alert" className="text-sm text-destructive">
            {errorMessage(audit.error, "Failed to load more of the lookup audit.")}
          </p>
        ) : null}
        {audit.hasNextPage ? (
          <div className="flex justify-center">
            <Button
              type="button"
              variant="outline"
              disabled={audit.isFetchingNextPage}
              onClick={() => void audit.fetchNextPage()}
            >
              {audit.isFetchingNextPage ? "Loading..." : "Show more"}
            </Button>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}
