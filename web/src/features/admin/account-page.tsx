import { useState, type ReactNode } from "react";
import { Link, useParams } from "react-router";
import { ArrowLeft, Ban, Minus, Plus, RotateCcw, XCircle } from "lucide-react";
import { Badge } from "./components/pill";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { balanceText, formatCredits } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import { paymentStatusLabel } from "@/lib/payment-status";
import {
  useAccount,
  useAccountAction,
  useAdjustCredits,
  useRefund,
  type AccountAction,
  type AccountDetail,
  type AdminPayment,
} from "./admin-api";
import {
  ACCOUNT_ACTIONS,
  formatCount,
  formatWhen,
  planLabel,
  REFUND_ENDS_PLAN,
  refundPlanText,
  signedCredits,
  STATUS_LABELS,
} from "./admin-helpers";
import { STATUS_VARIANT } from "./accounts-page";
import { CreditsDialog, ReasonDialog, type CreditsMode } from "./components/action-dialogs";
import { AdminFrame, AdminLoadError, Loading, operatorsOnly } from "./components/admin-frame";
import { DataTable } from "./components/data-table";
import { Section } from "./components/section";

/**
 * One account (GET /api/admin/accounts/{id}): who it is, its balance and everything it did lately, and the
 * operator's actions on it. Each action asks for a reason (the admin audit log keeps it); once it succeeds the page
 * reads the account again, so the figures shown are the server's, and a toast says what happened.
 */
function AdminAccountPageContent() {
  const { id = "" } = useParams();
  const account = useAccount(id);
  const data = account.data;
  return (
    <AdminFrame title={data ? data.account.email : "Account"}>
      <Link
        to="/admin/accounts"
        className="mb-4 inline-flex items-center gap-1 text-sm font-medium text-primary underline-offset-4 hover:underline"
      >
        <ArrowLeft className="h-4 w-4" aria-hidden="true" />
        All accounts
      </Link>
      {account.isPending ? (
        <Loading label="Loading the account" />
      ) : account.isError && !data ? (
        <AdminLoadError
          error={account.error}
          fallback="The account could not be loaded."
          onRetry={() => void account.refetch()}
          busy={account.isFetching}
        />
      ) : data ? (
        <AccountView data={data} />
      ) : null}
    </AdminFrame>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="break-words text-sm font-medium">{children}</dd>
    </div>
  );
}

function AccountView({ data }: { data: AccountDetail }) {
  const { account, balance, usage } = data;
  const adjust = useAdjustCredits(account.id);
  const act = useAccountAction(account.id);
  const refund = useRefund(account.id);
  const [creditsMode, setCreditsMode] = useState<CreditsMode | null>(null);
  const [action, setAction] = useState<AccountAction | null>(null);
  const [refunding, setRefunding] = useState<AdminPayment | null>(null);

  const closed = account.status === "closed";
  const onCredits = async (amount: number, reason: string) => {
    const res = await adjust.mutateAsync({ amount, reason });
    toast({
      title: amount > 0 ? "Credits granted" : "Credits deducted",
      description: `${amount > 0 ? "Added" : "Took"} ${formatCredits(Math.abs(amount))} ${amount > 0 ? "to" : "from"} ${account.email}. Balance now: ${balanceText(res.balance)}.`,
    });
  };
  const onAction = async (reason: string) => {
    if (!action) return;
    await act.mutateAsync({ action, reason });
    toast({ title: ACCOUNT_ACTIONS[action].done, description: `${account.email}: ${reason}` });
  };
  const onRefund = async (reason: string) => {
    if (!refunding) return;
    const res = await refund.mutateAsync({ paymentId: refunding.id, reason });
    toast({
      title: "Payment refunded",
      description: `${formatMoney(refunding.amountCents)} refunded to ${account.email}. Balance now: ${balanceText(res.balance)}.`,
    });
  };

  return (
    <div className="space-y-6">
      <div className="grid gap-6 lg:grid-cols-3">
        <Section title="Account" testId="account-summary">
          <dl className="grid grid-cols-2 gap-4">
            <Fact label="Name">{account.fullName || "—"}</Fact>
            <Fact label="Company">{account.company || "—"}</Fact>
            <Fact label="Plan">{planLabel(account.plan)}</Fact>
            <Fact label="Status">
              <Badge variant={STATUS_VARIANT[account.status] ?? "outline"} data-testid="account-status">
                {STATUS_LABELS[account.status] ?? account.status}
              </Badge>
            </Fact>
            <Fact label="Role">{account.role === "admin" ? "Operator" : "Customer"}</Fact>
            <Fact label="Created">
              <time dateTime={account.createdAt}>{formatWhen(account.createdAt)}</time>
            </Fact>
            {account.status === "suspended" ? (
              <div className="col-span-2">
                <Fact label="Suspended">
                  {formatWhen(account.suspendedAt)}
                  {account.suspendReason ? `: ${account.suspendReason}` : ""}
                </Fact>
              </div>
            ) : null}
            {closed ? <Fact label="Closed">{formatWhen(account.closedAt)}</Fact> : null}
          </dl>
        </Section>

        <Section title="Balance" testId="account-balance">
          <p className="text-2xl font-bold tabular-nums" data-testid="balance-figure">
            {balanceText(balance)}
          </p>
          <dl className="mt-4 grid grid-cols-2 gap-4">
            <Fact label="Calls this month">{formatCount(usage.callsThisMonth)}</Fact>
            <Fact label="Credits used this month">{formatCount(usage.creditsThisMonth)}</Fact>
          </dl>
          <div className="mt-4 flex flex-wrap gap-2">
            <Button type="button" size="sm" disabled={closed} onClick={() => setCreditsMode("grant")}>
              <Plus aria-hidden="true" />
              Grant credits
            </Button>
            <Button type="button" size="sm" variant="outline" disabled={closed} onClick={() => setCreditsMode("deduct")}>
              <Minus aria-hidden="true" />
              Deduct credits
            </Button>
          </div>
        </Section>

        <Section title="Account actions" description="Each asks for a reason, kept in the admin audit log.">
          <div className="flex flex-col gap-2">
            {account.status === "active" ? (
              <Button type="button" variant="outline" onClick={() => setAction("suspend")}>
                <Ban aria-hidden="true" />
                Suspend
              </Button>
            ) : null}
            {account.status === "suspended" ? (
              <Button type="button" variant="outline" onClick={() => setAction("reinstate")}>
                <RotateCcw aria-hidden="true" />
                Reinstate
              </Button>
            ) : null}
            {!closed ? (
              <Button type="button" variant="destructive" onClick={() => setAction("close")}>
                <XCircle aria-hidden="true" />
                Close account
              </Button>
            ) : (
              <p className="text-sm text-muted-foreground">This account is closed.</p>
            )}
            <Link
              to={`/admin/audit?accountId=${account.id}`}
              className="pt-2 text-sm font-medium text-primary underline-offset-4 hover:underline"
            >
              This account's audit log
            </Link>
          </div>
        </Section>
      </div>

      <Section
        title="Payments"
        description={`A paid payment can be refunded; its credits are taken back by the refund rule. ${REFUND_ENDS_PLAN}`}
      >
        <DataTable
          caption="Payments"
          testId="payments-table"
          rows={data.payments}
          rowKey={(p) => p.id}
          empty="No payments."
          columns={[
            { header: "Date", nowrap: true, cell: (p) => <time dateTime={p.createdAt}>{formatWhen(p.createdAt)}</time> },
            { header: "Description", cell: (p) => p.description },
            { header: "Plan", cell: (p) => planLabel(p.plan) },
            { header: "Amount", numeric: true, cell: (p) => formatMoney(p.amountCents) },
            { header: "Credits", numeric: true, cell: (p) => formatCount(p.credits) },
            { header: "Status", cell: (p) => <Badge variant="outline">{paymentStatusLabel(p.status)}</Badge> },
            {
              header: "Refund",
              cell: (p) =>
                p.refundable ? (
                  <Button type="button" size="sm" variant="outline" onClick={() => setRefunding(p)} aria-label={`Refund ${p.description}`}>
                    Refund
                  </Button>
                ) : (
                  <span className="text-muted-foreground">
                    <span aria-hidden="true">—</span>
                    <span className="sr-only">Not refundable</span>
                  </span>
                ),
            },
          ]}
        />
      </Section>

      <Section title="Credit ledger" description="The newest 50 entries.">
        <DataTable
          caption="Credit ledger"
          testId="ledger-table"
          rows={data.ledger}
          rowKey={(e) => e.id}
          empty="No ledger entries."
          columns={[
            { header: "Date", nowrap: true, cell: (e) => <time dateTime={e.createdAt}>{formatWhen(e.createdAt)}</time> },
            { header: "Description", cell: (e) => e.description },
            { header: "Kind", nowrap: true, cell: (e) => e.kind },
            { header: "Amount", numeric: true, cell: (e) => signedCredits(e.amount) },
            { header: "Balance after", numeric: true, cell: (e) => formatCount(e.balanceAfter) },
            { header: "Reference", cell: (e) => e.reference || "—" },
          ]}
        />
      </Section>

      <div className="grid gap-6 lg:grid-cols-2">
        <Section title="API keys" description="Previews only; the keys themselves are never shown.">
          <DataTable
            caption="API keys"
            rows={data.keys}
            rowKey={(k) => k.id}
            empty="No API keys."
            columns={[
              { header: "Name", cell: (k) => k.name },
              { header: "Key", nowrap: true, cell: (k) => <code className="text-xs">{k.preview}</code> },
              { header: "Created", nowrap: true, cell: (k) => formatWhen(k.createdAt) },
              { header: "Last used", nowrap: true, cell: (k) => (k.lastUsedAt ? formatWhen(k.lastUsedAt) : "Never") },
            ]}
          />
        </Section>

        <Section title="Person lookups" description="The newest 20.">
          <DataTable
            caption="Person lookups"
            rows={data.personLookups}
            rowKey={(p) => p.id}
            empty="No person lookups."
            columns={[
              { header: "Date", nowrap: true, cell: (p) => formatWhen(p.createdAt) },
              { header: "Purpose", cell: (p) => p.purpose },
              { header: "Outcome", cell: (p) => (p.outcome === "hit" ? "Found" : "Not found") },
              { header: "Credits", numeric: true, cell: (p) => formatCount(p.credits) },
            ]}
          />
        </Section>
      </div>

      <Section title="Recent API calls" description="The newest 20.">
        <DataTable
          caption="Recent API calls"
          rows={usage.recent}
          rowKey={(u) => u.requestId}
          empty="No calls yet."
          columns={[
            { header: "Date", nowrap: true, cell: (u) => formatWhen(u.createdAt) },
            { header: "Endpoint", cell: (u) => <code className="text-xs">{u.endpoint}</code> },
            { header: "Status", cell: (u) => String(u.status) },
            { header: "Credits", numeric: true, cell: (u) => formatCount(u.credits) },
            { header: "Request id", nowrap: true, cell: (u) => <code className="text-xs">{u.requestId}</code> },
          ]}
        />
      </Section>

      <Section title="Batch jobs" description="The newest 20.">
        <DataTable
          caption="Batch jobs"
          rows={data.batchJobs}
          rowKey={(j) => j.id}
          empty="No batch jobs."
          columns={[
            { header: "File", cell: (j) => <span className="break-words">{j.fileName}</span> },
            { header: "Status", cell: (j) => (j.held ? `${j.status} (held while suspended)` : j.status) },
            { header: "Rows", numeric: true, cell: (j) => `${formatCount(j.processedRows)} / ${formatCount(j.totalRows)}` },
            { header: "Failed", numeric: true, cell: (j) => formatCount(j.failedRows) },
            { header: "Created", nowrap: true, cell: (j) => formatWhen(j.createdAt) },
          ]}
        />
      </Section>

      <CreditsDialog
        mode={creditsMode}
        onClose={() => setCreditsMode(null)}
        email={account.email}
        balance={balanceText(balance)}
        onConfirm={onCredits}
      />
      <ReasonDialog
        open={action !== null}
        onOpenChange={(o) => (o ? undefined : setAction(null))}
        title={action ? ACCOUNT_ACTIONS[action].title : ""}
        description={action ? ACCOUNT_ACTIONS[action].describe(account.email) : ""}
        confirmLabel={action ? ACCOUNT_ACTIONS[action].button : ""}
        destructive={action === "close" || action === "suspend"}
        onConfirm={onAction}
      />
      <ReasonDialog
        open={refunding !== null}
        onOpenChange={(o) => (o ? undefined : setRefunding(null))}
        title="Refund payment"
        description={
          refunding
            ? `Refund ${formatMoney(refunding.amountCents)} (${refunding.description}) to ${account.email}. Its ${formatCredits(refunding.credits)} are taken back by the refund rule. ${refundPlanText(refunding.kind)}`
            : ""
        }
        confirmLabel="Refund"
        destructive
        onConfirm={onRefund}
      />
    </div>
  );
}

export const AdminAccountPage = operatorsOnly(AdminAccountPageContent, "AdminAccountPage");
