import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatCount, type UsagePoint } from "../reporting-helpers";

const BLUE = "#2563eb";

interface UsageChartProps {
  days: number;
  points: readonly UsagePoint[];
  /** Whether the points are the spec's placeholder series (no days came back), not real data. */
  placeholder: boolean;
}

/**
 * Calls per day over the period, as one blue line; a hidden table gives the same figures to screen readers. The line
 * takes no Tab stop: the table is the way in for a keyboard and a screen reader alike.
 */
export function UsageChart({ days, points, placeholder }: UsageChartProps) {
  const total = points.reduce((sum, p) => sum + p.requests, 0);
  return (
    <Card data-testid="usage-chart">
      <CardHeader>
        <CardTitle className="text-lg">API Usage (Last {days} Days)</CardTitle>
        <CardDescription>
          {placeholder ? "No usage recorded for this period yet" : `${formatCount(total)} calls, by day (UTC)`}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {/* The drawing is for the eye: hidden from screen readers, which read the table below, and out of the Tab
            order (recharts' keyboard layer would make a focusable stop that announces nothing). */}
        <div className="h-72 w-full" aria-hidden="true" data-testid="usage-chart-drawing">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart
              data={[...points]}
              margin={{ top: 8, right: 16, bottom: 0, left: 0 }}
              accessibilityLayer={false}
            >
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tickLine={false} minTickGap={16} fontSize={12} />
              <YAxis allowDecimals={false} tickLine={false} width={48} fontSize={12} />
              <Tooltip formatter={(v) => formatCount(Number(v))} />
              <Legend />
              <Line
                type="monotone"
                dataKey="requests"
                name="API Calls"
                stroke={BLUE}
                strokeWidth={2}
                dot={points.length <= 31}
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </div>
        {/* The hidden copy sits in an sr-only box, not on the table: a table ignores the 1 px height of sr-only, so a
            month of rows stood 768 px tall below the page and left a blank band at its bottom. */}
        <div className="sr-only">
          <table data-testid="usage-chart-data">
            <caption>API calls by day</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">API Calls</th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.date}>
                  <td>{p.label}</td>
                  <td>{p.requests}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </CardContent>
    </Card>
  );
}
