import { Pie, PieChart, ResponsiveContainer, Tooltip } from "recharts";
import { Timer } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatCount, sharePercent, type ResponseTimeSlice } from "../reporting-helpers";

interface ResponseTimesChartProps {
  slices: readonly ResponseTimeSlice[];
}

/** The real split of the period's calls by response time, as a doughnut with its figures listed beside it. */
export function ResponseTimesChart({ slices }: ResponseTimesChartProps) {
  const total = slices.reduce((sum, s) => sum + s.value, 0);
  const fast = slices.find((s) => s.key === "fast");
  const slow = slices.find((s) => s.key === "slow");
  return (
    <Card data-testid="response-times-chart">
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-2 space-y-0">
        <div className="space-y-1.5">
          <CardTitle className="text-lg">Response Times</CardTitle>
          <CardDescription>Calls in this period by how long they took</CardDescription>
        </div>
        <div className="flex flex-wrap gap-1.5">
          {fast ? <Badge variant="success">{fast.label}</Badge> : null}
          {slow ? <Badge className="border-transparent bg-red-100 text-red-800">{slow.label}</Badge> : null}
        </div>
      </CardHeader>
      <CardContent>
        {total === 0 ? (
          <div className="flex h-56 flex-col items-center justify-center gap-2 text-center" data-testid="response-times-empty">
            <Timer className="h-8 w-8 text-muted-foreground" aria-hidden="true" />
            <p className="font-medium">No requests in this period</p>
            <p className="text-sm text-muted-foreground">Response times appear once calls are made.</p>
          </div>
        ) : (
          <div className="grid items-center gap-4 sm:grid-cols-[minmax(0,1fr)_auto]">
            {/* The doughnut is for the eye: the list beside it gives the same figures to everyone, so it is hidden
                from screen readers and takes no Tab stop (recharts makes the chart and the pie focusable by default). */}
            <div className="h-56 w-full" aria-hidden="true" data-testid="response-times-drawing">
              <ResponsiveContainer width="100%" height="100%">
                <PieChart accessibilityLayer={false}>
                  <Pie
                    rootTabIndex={-1}
                    data={slices.map((s) => ({ name: s.label, value: s.value, fill: s.color }))}
                    dataKey="value"
                    nameKey="name"
                    innerRadius="55%"
                    outerRadius="85%"
                    paddingAngle={slices.filter((s) => s.value > 0).length > 1 ? 2 : 0}
                    stroke="none"
                    isAnimationActive={false}
                  />
                  <Tooltip formatter={(v) => formatCount(Number(v))} />
                </PieChart>
              </ResponsiveContainer>
            </div>
            <ul className="grid grid-cols-[auto_auto_auto_auto] items-center gap-x-2 gap-y-2 text-sm" data-testid="response-times-legend">
              {slices.map((s) => (
                <li key={s.key} className="contents" data-testid={`response-times-${s.key}`}>
                  <span className="h-3 w-3 shrink-0 rounded-full" style={{ backgroundColor: s.color }} aria-hidden="true" />
                  <span>{s.label}</span>
                  <span className="text-right font-medium tabular-nums">{formatCount(s.value)}</span>
                  <span className="tabular-nums text-muted-foreground">({sharePercent(s.value, total)})</span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
