import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { Search } from "lucide-react";
import { Badge } from "./components/pill";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAccounts } from "./admin-api";
import { balanceText } from "@/lib/balance";
import { formatDay, planLabel, STATUS_LABELS } from "./admin-helpers";
import { AdminFrame, AdminLoadError, Loading, Pager, operatorsOnly } from "./components/admin-frame";
import { DataTable } from "./components/data-table";

export const STATUS_VARIANT = { active: "success", suspended: "warning", closed: "secondary" } as const;

/**
 * Accounts (GET /api/admin/accounts?q=&page=&limit=): a search by email, name or company, newest first when empty.
 * The search and the page live in the address (?q=&page=), so Back returns to the same results.
 */
function AdminAccountsPageContent() {
  return (
    <AdminFrame title="Accounts" subtitle="Find a customer by email, name or company.">
      <AccountsSearch />
    </AdminFrame>
  );
}

function AccountsSearch() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const page = Math.max(Number(params.get("page")) || 1, 1);
  const [text, setText] = useState(q);
  const accounts = useAccounts(q, page);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (text.trim()) next.set("q", text.trim());
    setParams(next);
  };
  const onPage = (p: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(p));
    setParams(next);
  };

  const answer = accounts.data;
  return (
    <Card>
      <CardContent className="space-y-4 pt-6">
        <form role="search" onSubmit={onSubmit} className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="flex-1 space-y-2">
            <Label htmlFor="account-search">Search accounts</Label>
            <Input
              id="account-search"
              type="search"
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="Email, name or company"
              autoComplete="off"
            />
          </div>
          <Button type="submit">
            <Search aria-hidden="true" />
            Search
          </Button>
        </form>

        {accounts.isPending ? (
          <Loading label="Loading accounts" />
        ) : accounts.isError && !answer ? (
          <AdminLoadError
            error={accounts.error}
            fallback="The accounts could not be loaded."
            onRetry={() => void accounts.refetch()}
            busy={accounts.isFetching}
          />
        ) : answer && answer.data.length === 0 ? (
          <p className="py-6 text-center text-sm text-muted-foreground" role="status">
            {q ? `No account matches “${q}”.` : "No accounts yet."}
          </p>
        ) : answer ? (
          <>
            <p className="sr-only" role="status">
              {`${answer.pagination.total} ${answer.pagination.total === 1 ? "account" : "accounts"} found`}
            </p>
            <DataTable
              caption={q ? `Accounts matching ${q}` : "Newest accounts"}
              testId="accounts-table"
              rows={answer.data}
              rowKey={(a) => a.id}
              empty="No accounts yet."
              columns={[
                {
                  header: "Account",
                  cell: (a) => (
                    <>
                      <Link
                        to={`/admin/accounts/${a.id}`}
                        className="break-words font-medium text-primary underline-offset-4 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
                      >
                        {a.email}
                      </Link>
                      {a.fullName ? <p className="text-xs font-normal text-muted-foreground">{a.fullName}</p> : null}
                    </>
                  ),
                },
                { header: "Company", cell: (a) => a.company || "—" },
                { header: "Plan", cell: (a) => planLabel(a.plan) },
                {
                  header: "Status",
                  cell: (a) => <Badge variant={STATUS_VARIANT[a.status] ?? "outline"}>{STATUS_LABELS[a.status] ?? a.status}</Badge>,
                },
                { header: "Balance", numeric: true, cell: (a) => balanceText(a.balance) },
                { header: "Created", nowrap: true, cell: (a) => <time dateTime={a.createdAt}>{formatDay(a.createdAt)}</time> },
              ]}
            />
            <Pager pagination={answer.pagination} onPage={onPage} label="Accounts" />
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}

export const AdminAccountsPage = operatorsOnly(AdminAccountsPageContent, "AdminAccountsPage");
