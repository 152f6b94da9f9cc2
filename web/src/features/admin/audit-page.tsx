import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAudit } from "./admin-api";
import { actionLabel, describeChange, formatWhen } from "./admin-helpers";
import { AdminFrame, AdminLoadError, Loading, Pager, operatorsOnly } from "./components/admin-frame";
import { DataTable } from "./components/data-table";
import { Section } from "./components/section";

/**
 * The admin audit log (GET /api/admin/audit?accountId=&page=): every operator action, who took it, on which
 * account, why, and what it changed. Append-only on the server; read-only here. ?accountId= in the address filters
 * it, so an account's page can link to its own entries.
 */
function AdminAuditPageContent() {
  const [params, setParams] = useSearchParams();
  const accountId = params.get("accountId") ?? "";
  const [page, setPage] = useState(1);
  const [text, setText] = useState(accountId);
  const [error, setError] = useState<string | null>(null);
  const audit = useAudit(accountId, page);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const t = text.trim();
    if (t && !/^\d+$/.test(t)) {
      setError("Account id must be a number, like 42.");
      document.getElementById("audit-log-account")?.focus();
      return;
    }
    setError(null);
    setPage(1);
    setParams(t ? { accountId: t } : {});
  };

  const answer = audit.data;
  return (
    <AdminFrame title="Audit log" subtitle="Every action an operator took, with the reason given.">
      <Section title="Admin actions">
        <form onSubmit={onSubmit} noValidate className="mb-4 flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="space-y-1 sm:w-48">
            <Label htmlFor="audit-log-account">Account id</Label>
            <Input
              id="audit-log-account"
              inputMode="numeric"
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? "audit-log-account-error" : undefined}
            />
          </div>
          <Button type="submit">Filter</Button>
          {error ? (
            <p id="audit-log-account-error" role="alert" className="text-sm font-medium text-destructive sm:self-center">
              {error}
            </p>
          ) : null}
        </form>
        {audit.isPending ? (
          <Loading label="Loading the audit log" />
        ) : audit.isError && !answer ? (
          <AdminLoadError error={audit.error} fallback="The audit log could not be loaded." onRetry={() => void audit.refetch()} busy={audit.isFetching} />
        ) : answer ? (
          <>
            <DataTable
              caption="Admin actions"
              testId="audit-table"
              rows={answer.data}
              rowKey={(r) => r.id}
              empty="No admin actions recorded."
              columns={[
                { header: "When", nowrap: true, cell: (r) => <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time> },
                { header: "Who", cell: (r) => <span className="break-words">{r.adminEmail ?? "Command line"}</span> },
                { header: "What", cell: (r) => actionLabel(r.action) },
                {
                  header: "Account",
                  cell: (r) =>
                    r.accountId ? (
                      <Link to={`/admin/accounts/${r.accountId}`} className="break-words text-primary underline-offset-4 hover:underline">
                        {r.accountEmail ?? `#${r.accountId}`}
                      </Link>
                    ) : (
                      "—"
                    ),
                },
                { header: "Reason", cell: (r) => <span className="break-words">{r.reason}</span> },
                { header: "Before → after", cell: (r) => <span className="break-words">{describeChange(r.before, r.after)}</span> },
              ]}
            />
            <Pager pagination={answer.pagination} onPage={setPage} label="Audit log" />
          </>
        ) : null}
      </Section>
    </AdminFrame>
  );
}

export const AdminAuditPage = operatorsOnly(AdminAuditPageContent, "AdminAuditPage");
