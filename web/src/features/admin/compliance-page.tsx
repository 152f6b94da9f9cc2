import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { Badge } from "./components/pill";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import {
  NO_AUDIT_FILTERS,
  useOptOuts,
  usePersonAudits,
  type AuditFilters,
} from "./admin-api";
import { PURPOSES } from "@/features/person-lookup/person-types";
import { formatCount, formatWhen, queryText } from "./admin-helpers";
import { AdminFrame, AdminLoadError, Loading, Pager, selectClass, operatorsOnly } from "./components/admin-frame";
import { DataTable } from "./components/data-table";
import { Section } from "./components/section";

function purposeLabel(p: string): string {
  const known = PURPOSES.find((x) => x.value === p);
  if (known) return known.label;
  const w = p.replace(/_/g, " ");
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/**
 * Compliance: every person lookup across accounts (GET /api/admin/person-audits), filtered on the server, with the
 * accounts the slow-down rule flagged marked; and the opt-out log (GET /api/admin/opt-outs).
 */
function AdminCompliancePageContent() {
  return (
    <AdminFrame title="Compliance" subtitle="Person lookups across every account, and the opt-out log.">
      <div className="space-y-6">
        <PersonAudits />
        <OptOuts />
      </div>
    </AdminFrame>
  );
}

function PersonAudits() {
  const [draft, setDraft] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [filters, setFilters] = useState<AuditFilters>(NO_AUDIT_FILTERS);
  const [page, setPage] = useState(1);
  const [dateError, setDateError] = useState<string | null>(null);
  const audits = usePersonAudits(filters, page);
  const set = <K extends keyof AuditFilters>(k: K, v: AuditFilters[K]) => setDraft((d) => ({ ...d, [k]: v }));

  const onApply = (e: FormEvent) => {
    e.preventDefault();
    if (draft.from && draft.to && draft.from > draft.to) {
      setDateError("To must be on or after From.");
      document.getElementById("audit-to")?.focus();
      return;
    }
    setDateError(null);
    setFilters({ ...draft, accountId: draft.accountId.trim() });
    setPage(1);
  };
  const onReset = () => {
    setDraft(NO_AUDIT_FILTERS);
    setFilters(NO_AUDIT_FILTERS);
    setDateError(null);
    setPage(1);
  };

  const answer = audits.data;
  return (
    <Section title="Person-lookup audit" description="Flagged: the account made more than 50 misses within an hour.">
      <form onSubmit={onApply} noValidate className="mb-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-3" aria-label="Filter person lookups">
        <div className="space-y-1">
          <Label htmlFor="audit-account">Account id</Label>
          <Input id="audit-account" inputMode="numeric" value={draft.accountId} onChange={(e) => set("accountId", e.target.value)} />
        </div>
        <div className="space-y-1">
          <Label htmlFor="audit-purpose">Purpose</Label>
          <select id="audit-purpose" className={selectClass} value={draft.purpose} onChange={(e) => set("purpose", e.target.value)}>
            <option value="">Any purpose</option>
            {PURPOSES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1">
          <Label htmlFor="audit-outcome">Outcome</Label>
          <select
            id="audit-outcome"
            className={selectClass}
            value={draft.outcome}
            onChange={(e) => set("outcome", e.target.value as AuditFilters["outcome"])}
          >
            <option value="">Hits and misses</option>
            <option value="hit">Hits only</option>
            <option value="miss">Misses only</option>
          </select>
        </div>
        <div className="space-y-1">
          <Label htmlFor="audit-from">From</Label>
          <Input id="audit-from" type="date" value={draft.from} onChange={(e) => set("from", e.target.value)} />
        </div>
        <div className="space-y-1">
          <Label htmlFor="audit-to">To</Label>
          <Input
            id="audit-to"
            type="date"
            value={draft.to}
            onChange={(e) => set("to", e.target.value)}
            aria-invalid={dateError ? true : undefined}
            aria-describedby={dateError ? "audit-to-error" : undefined}
          />
          {dateError ? (
            <p id="audit-to-error" role="alert" className="text-sm font-medium text-destructive">
              {dateError}
            </p>
          ) : null}
        </div>
        <div className="flex items-center gap-2 pt-6">
          <input
            id="audit-flagged"
            type="checkbox"
            className="h-4 w-4 rounded border-input accent-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
            checked={draft.flagged}
            onChange={(e) => set("flagged", e.target.checked)}
          />
          <Label htmlFor="audit-flagged">Flagged only</Label>
        </div>
        <div className="flex gap-2 sm:col-span-2 lg:col-span-3">
          <Button type="submit">Apply filters</Button>
          <Button type="button" variant="outline" onClick={onReset}>
            Reset
          </Button>
        </div>
      </form>

      {audits.isPending ? (
        <Loading label="Loading person lookups" />
      ) : audits.isError && !answer ? (
        <AdminLoadError error={audits.error} fallback="The person-lookup audit could not be loaded." onRetry={() => void audits.refetch()} busy={audits.isFetching} />
      ) : answer ? (
        <>
          <p className="sr-only" role="status">{`${answer.pagination.total} person lookups`}</p>
          <DataTable
            caption="Person lookups across accounts"
            testId="person-audits-table"
            rows={answer.data}
            rowKey={(r) => r.id}
            empty="No person lookups match."
            rowClassName={(r) => (r.flagged ? "bg-amber-50" : undefined)}
            columns={[
              { header: "When", nowrap: true, cell: (r) => <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time> },
              {
                header: "Account",
                cell: (r) => (
                  <Link to={`/admin/accounts/${r.accountId}`} className="break-words text-primary underline-offset-4 hover:underline">
                    {r.accountEmail}
                  </Link>
                ),
              },
              { header: "Key", cell: (r) => r.keyName ?? "Dashboard" },
              { header: "Purpose", cell: (r) => purposeLabel(r.purpose) },
              { header: "Query", cell: (r) => <span className="break-words">{queryText(r.query)}</span> },
              {
                header: "Outcome",
                cell: (r) => `${r.outcome === "hit" ? "Hit" : "Miss"}${r.result && r.outcome !== "hit" && r.result !== "not_found" ? ` (${r.result.replace(/_/g, " ")})` : ""}`,
              },
              { header: "Credits", numeric: true, cell: (r) => formatCount(r.credits) },
              { header: "Flag", cell: (r) => (r.flagged ? <Badge variant="warning">Flagged</Badge> : <span className="sr-only">Not flagged</span>) },
              { header: "Request id", nowrap: true, cell: (r) => <code className="text-xs">{r.requestId}</code> },
            ]}
          />
          <Pager pagination={answer.pagination} onPage={setPage} label="Person lookups" />
        </>
      ) : null}
    </Section>
  );
}

/** An opt-out's outcome (AdminOptOut.outcome); its confirmation is a column of its own. */
const OUTCOMES: Record<string, string> = {
  sent: "Link sent",
  no_match: "No matching listing",
  listing_limited: "Listing limited",
};

function outcomeLabel(o: string): string {
  return OUTCOMES[o] ?? o;
}

function OptOuts() {
  const [page, setPage] = useState(1);
  const optOuts = useOptOuts(page);
  const answer = optOuts.data;
  return (
    <Section title="Opt-out log" description="Each request to remove a listing, its confirmation and the listing removed.">
      {optOuts.isPending ? (
        <Loading label="Loading the opt-out log" />
      ) : optOuts.isError && !answer ? (
        <AdminLoadError error={optOuts.error} fallback="The opt-out log could not be loaded." onRetry={() => void optOuts.refetch()} busy={optOuts.isFetching} />
      ) : answer ? (
        <>
          <DataTable
            caption="Opt-out log"
            testId="opt-outs-table"
            rows={answer.data}
            rowKey={(r) => r.id}
            empty="No opt-out requests."
            columns={[
              { header: "Requested", nowrap: true, cell: (r) => formatWhen(r.createdAt) },
              { header: "Asked about", cell: (r) => <span className="break-words">{queryText(r.query)}</span> },
              { header: "Outcome", cell: (r) => outcomeLabel(r.outcome) },
              { header: "Listing", nowrap: true, cell: (r) => r.listingId ?? "—" },
              { header: "Confirmed", nowrap: true, cell: (r) => (r.confirmedAt ? formatWhen(r.confirmedAt) : "Not yet") },
            ]}
          />
          <Pager pagination={answer.pagination} onPage={setPage} label="Opt-out log" />
        </>
      ) : null}
    </Section>
  );
}

export const AdminCompliancePage = operatorsOnly(AdminCompliancePageContent, "AdminCompliancePage");
