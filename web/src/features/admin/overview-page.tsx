import { useState, type ReactNode } from "react";
import { Link } from "react-router";
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardContent } from "@/components/ui/card";
import { Label } from "@/components/ui/label";
import { formatMoney } from "@/lib/money";
import { useOverview, type Overview } from "./admin-api";
import { formatCount, formatDay, formatWhen } from "./admin-helpers";
import { AdminFrame, AdminLoadError, Loading, selectClass, operatorsOnly } from "./components/admin-frame";
import { DataTable } from "./components/data-table";
import { Section } from "./components/section";

export const OVERVIEW_PERIODS = [7, 30, 90, 365] as const;
const BLUE = "#2563eb";
const GREEN = "#15803d";

/**
 * The business overview (GET /api/admin/overview?days=): paying accounts by plan, MRR, sign-ups and calls per day,
 * credits sold and used, overage billed, and the batch jobs that are failing, over the chosen window. Every figure
 * is the server's, read from the database.
 */
function AdminOverviewPageContent() {
  const [days, setDays] = useState<number>(30);
  const overview = useOverview(days);
  const data = overview.data;
  return (
    <AdminFrame title="Overview" subtitle="How the business is doing.">
      <div className="mb-4 w-full space-y-1 sm:w-48">
        <Label htmlFor="overview-days">Period</Label>
        <select id="overview-days" className={selectClass} value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {OVERVIEW_PERIODS.map((d) => (
            <option key={d} value={d}>
              Last {d} days
            </option>
          ))}
        </select>
      </div>
      {overview.isPending ? (
        <Loading label="Loading the overview" />
      ) : overview.isError && !data ? (
        <AdminLoadError error={overview.error} fallback="The overview could not be loaded." onRetry={() => void overview.refetch()} busy={overview.isFetching} />
      ) : data ? (
        <OverviewView data={data} days={days} />
      ) : null}
    </AdminFrame>
  );
}

function Stat({ title, value, note, testId }: { title: string; value: ReactNode; note?: ReactNode; testId: string }) {
  return (
    <Card data-testid={testId}>
      <CardContent className="space-y-1 pt-6">
        <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
        <p className="text-2xl font-bold tabular-nums" data-testid={`${testId}-value`}>
          {value}
        </p>
        {note ? <p className="text-xs text-muted-foreground">{note}</p> : null}
      </CardContent>
    </Card>
  );
}

function OverviewView({ data, days }: { data: Overview; days: number }) {
  const paying = data.payingByPlan.basic + data.payingByPlan.professional + data.payingByPlan.enterprise;
  return (
    <div className="space-y-6">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Stat
          testId="stat-paying"
          title="Paying accounts"
          value={formatCount(paying)}
          note={`Basic ${formatCount(data.payingByPlan.basic)} · Professional ${formatCount(data.payingByPlan.professional)} · Enterprise ${formatCount(data.payingByPlan.enterprise)}`}
        />
        <Stat testId="stat-mrr" title="MRR" value={formatMoney(data.mrrCents)} note="Monthly recurring revenue" />
        <Stat
          testId="stat-credits"
          title="Credits sold / used"
          value={`${formatCount(data.creditsSold)} / ${formatCount(data.creditsUsed)}`}
          note={`Last ${days} days`}
        />
        <Stat testId="stat-overage" title="Overage billed" value={formatMoney(data.overageBilledCents)} note={`Last ${days} days`} />
      </div>

      <div className="grid gap-6 lg:grid-cols-2">
        <DailyChart
          title="Sign-ups per day"
          points={data.signupsPerDay}
          kind="bar"
          color={GREEN}
          unit="Sign-ups"
          testId="signups-chart"
        />
        <DailyChart title="API calls per day" points={data.callsPerDay} kind="line" color={BLUE} unit="Calls" testId="calls-chart" />
      </div>

      <Section title="Failing batch jobs" description="Jobs with failed rows in the period.">
        <DataTable
          caption="Failing batch jobs"
          testId="failing-jobs-table"
          rows={data.failingJobs}
          rowKey={(j) => j.id}
          empty="No failing batch jobs."
          columns={[
            { header: "Job", nowrap: true, cell: (j) => `#${j.id}` },
            {
              header: "Account",
              cell: (j) => (
                <Link to={`/admin/accounts/${j.accountId}`} className="break-words text-primary underline-offset-4 hover:underline">
                  {j.accountEmail}
                </Link>
              ),
            },
            { header: "File", cell: (j) => <span className="break-words">{j.fileName}</span> },
            { header: "Failed rows", numeric: true, cell: (j) => formatCount(j.failedRows) },
            { header: "Status", cell: (j) => j.status },
            { header: "Created", nowrap: true, cell: (j) => formatWhen(j.createdAt) },
          ]}
        />
      </Section>
    </div>
  );
}

/**
 * A per-day chart that fits a 390 px phone (the drawing takes its card's width; the axis skips labels that would
 * overlap), hidden from screen readers, which read the same figures from the table beside it.
 */
function DailyChart({
  title,
  points,
  kind,
  color,
  unit,
  testId,
}: {
  title: string;
  points: { date: string; count: number }[];
  kind: "bar" | "line";
  color: string;
  unit: string;
  testId: string;
}) {
  const series = points.map((p) => ({ label: formatDay(p.date).replace(/, \d{4}$/, ""), count: p.count, date: p.date }));
  const total = points.reduce((s, p) => s + p.count, 0);
  return (
    <Section title={title} description={`${formatCount(total)} in all`} testId={testId}>
      <div className="h-56 w-full min-w-0" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          {kind === "bar" ? (
            <BarChart data={series} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tickLine={false} minTickGap={16} fontSize={12} />
              <YAxis allowDecimals={false} tickLine={false} width={40} fontSize={12} />
              <Tooltip formatter={(v) => formatCount(Number(v))} />
              <Bar dataKey="count" name={unit} fill={color} isAnimationActive={false} />
            </BarChart>
          ) : (
            <LineChart data={series} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tickLine={false} minTickGap={16} fontSize={12} />
              <YAxis allowDecimals={false} tickLine={false} width={40} fontSize={12} />
              <Tooltip formatter={(v) => formatCount(Number(v))} />
              <Line type="linear" dataKey="count" name={unit} stroke={color} strokeWidth={2} dot={false} isAnimationActive={false} />
            </LineChart>
          )}
        </ResponsiveContainer>
      </div>
      <div className="sr-only">
        <table data-testid={`${testId}-data`}>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.date}>
                <td>{formatDay(p.date)}</td>
                <td>{p.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

export const AdminOverviewPage = operatorsOnly(AdminOverviewPageContent, "AdminOverviewPage");
