import { useState } from "react";
import { useNavigate } from "react-router";
import { Activity, CheckCircle2, Clock, KeyRound, Plus } from "lucide-react";
import { PageHeader } from "@/app/shell/page-header";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Spinner } from "@/components/ui/spinner";
import { cn } from "@/lib/utils";
import { useApiKeys, useRecentActivity, useUsageStats } from "./api/reporting-api";
import { ErrorCard } from "./components/error-card";
import { RecentActivity } from "./components/recent-activity";
import { ResponseTimesChart } from "./components/response-times-chart";
import { StatCard } from "./components/stat-card";
import { UsageChart } from "./components/usage-chart";
import {
  avgTimeNote,
  DEFAULT_PERIOD,
  formatCount,
  avgTimeText,
  isPeriod,
  keysNote,
  monthNote,
  PERIOD_LABELS,
  PERIODS,
  responseTimeSlices,
  successNote,
  successRateText,
  usageSeries,
  type Period,
} from "./reporting-helpers";

// The Reporting screen (product-and-account spec, section 2), with real figures where the spec had fixed ones: the
// period selector changes the data, the month note is the real change, the doughnut shows the real response-time
// buckets and the activity panel lists the latest calls.

export const STATS_FAILED = "Failed to fetch stats";
export const KEYS_FAILED = "Failed to fetch API keys";

export function ReportingPage() {
  const navigate = useNavigate();
  const [days, setDays] = useState<Period>(DEFAULT_PERIOD);
  const stats = useUsageStats(days);
  const keys = useApiKeys();
  const recent = useRecentActivity();

  const s = stats.data;
  const keyCount = keys.data?.length;
  const activity = (
    <RecentActivity
      entries={recent.data?.data}
      loading={recent.isPending}
      error={recent.isError ? recent.error : null}
      onRetry={() => void recent.refetch()}
    />
  );

  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader
        title="Reporting"
        subtitle="Analytics and insights for your API usage and performance"
        action={{ label: "New API Key", icon: <Plus aria-hidden="true" />, onClick: () => navigate("/api-keys") }}
      />

      <div className="space-y-6">
        <div className="flex items-center justify-end gap-3">
          <Label htmlFor="reporting-period" className="text-muted-foreground">
            Period
          </Label>
          <Select
            value={String(days)}
            onValueChange={(v) => {
              const n = Number(v);
              if (isPeriod(n)) setDays(n);
            }}
          >
            <SelectTrigger id="reporting-period" className="w-40">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {PERIODS.map((p) => (
                <SelectItem key={p} value={String(p)}>
                  {PERIOD_LABELS[p]}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>

        {stats.isError ? (
          <ErrorCard
            testId="stats-error"
            message={STATS_FAILED}
            error={stats.error}
            onRetry={() => void stats.refetch()}
            retrying={stats.isFetching}
          />
        ) : null}
        {keys.isError ? (
          <ErrorCard
            testId="keys-error"
            message={KEYS_FAILED}
            error={keys.error}
            onRetry={() => void keys.refetch()}
            retrying={keys.isFetching}
          />
        ) : null}

        {stats.isPending ? (
          <div className="flex justify-center py-16">
            <Spinner label="Loading statistics" className="h-8 w-8" />
          </div>
        ) : s ? (
          <div
            className={cn("space-y-6 transition-opacity", stats.isPlaceholderData && "opacity-60")}
            aria-busy={stats.isPlaceholderData || undefined}
          >
            <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <StatCard
                testId="stat-calls"
                title="API Calls This Month"
                icon={<Activity />}
                value={formatCount(s.thisMonth)}
                note={monthNote(s)}
                hint="Calls this calendar month (UTC) so far, compared with all of last month"
              />
              <StatCard
                testId="stat-success-rate"
                title="Success Rate"
                icon={<CheckCircle2 />}
                value={successRateText(s.successfulRequests, s.totalRequests)}
                note={successNote(s.successfulRequests, s.totalRequests)}
                noteClassName={
                  s.totalRequests > 0 && s.successfulRequests / s.totalRequests < 0.8 ? "text-destructive" : undefined
                }
                hint={`${formatCount(s.successfulRequests)} of ${formatCount(s.totalRequests)} calls succeeded (${PERIOD_LABELS[days].toLowerCase()})`}
              />
              <StatCard
                testId="stat-avg-time"
                title="Avg Response Time"
                icon={<Clock />}
                value={avgTimeText(s)}
                note={avgTimeNote(s)}
                hint={`Mean, median (p50) and 95th percentile of ${PERIOD_LABELS[days].toLowerCase()}`}
              />
              <StatCard
                testId="stat-keys"
                title="Active API Keys"
                icon={<KeyRound />}
                value={keyCount !== undefined ? formatCount(keyCount) : keys.isError ? "—" : "…"}
                note={keyCount !== undefined ? keysNote(keyCount) : keys.isError ? "Unavailable" : "Loading"}
              />
            </div>

            <UsageChart days={isPeriod(s.days) ? s.days : days} points={usageSeries(s.requestsByDay)} placeholder={s.requestsByDay.length === 0} />

            <div className="grid gap-6 lg:grid-cols-2">
              <ResponseTimesChart slices={responseTimeSlices(s.responseTimes)} />
              {activity}
            </div>
          </div>
        ) : (
          // The statistics failed: the latest calls come from another read and can still be shown.
          activity
        )}
      </div>
    </div>
  );
}
