import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { Search } from "lucide-react";
import { Badge } from "./components/pill";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { TableScroll } from "@/components/ui/table-scroll";
import { useAccounts } from "./admin-api";
import { balanceText } from "@/lib/balance";
import { formatDay, planLabel, STATUS_LABELS } from "./admin-helpers";
import { AdminFrame, AdminLoadError, Loading, Pager, tdClass, thClass, operatorsOnly } from "./components/admin-frame";

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
            <TableScroll label="Accounts" className="rounded-md border">
              <table className="w-full text-sm" data-testid="accounts-table">
                <caption className="sr-only">{q ? `Accounts matching ${q}` : "Newest accounts"}</caption>
                <thead className="bg-muted/40">
                  <tr className="border-b">
                    <th scope="col" className={thClass}>Account</th>
                    <th scope="col" className={thClass}>Company</th>
                    <th scope="col" className={thClass}>Plan</th>
                    <th scope="col" className={thClass}>Status</th>
                    <th scope="col" className={`${thClass} text-right`}>Balance</th>
                    <th scope="col" className={thClass}>Created</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.data.map((a) => (
                    <tr key={a.id} className="border-b last:border-0">
                      <td className={tdClass}>
                        <Link
                          to={`/admin/accounts/${a.id}`}
                          className="font-medium text-primary underline-offset-4 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
                        >
                          {a.email}
                        </Link>
                        {a.fullName ? <p className="text-xs text-muted-foreground">{a.fullName}</p> : null}
                      </td>
                      <td className={tdClass}>{a.company || "—"}</td>
                      <td className={tdClass}>{planLabel(a.plan)}</td>
                      <td className={tdClass}>
                        <Badge variant={STATUS_VARIANT[a.status] ?? "outline"}>{STATUS_LABELS[a.status] ?? a.status}</Badge>
                      </td>
                      <td className={`${tdClass} whitespace-nowrap text-right tabular-nums`}>{balanceText(a.balance)}</td>
                      <td className={`${tdClass} whitespace-nowrap`}>
                        <time dateTime={a.createdAt}>{formatDay(a.createdAt)}</time>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
            <Pager pagination={answer.pagination} onPage={onPage} label="Accounts" />
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}

export const AdminAccountsPage = operatorsOnly(AdminAccountsPageContent, "AdminAccountsPage");
