import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { PortfolioDetail } from "../api/portfolios-api";
import { compactDollars, dollars, homesText, monthLabel } from "../portfolios-helpers";

// A portfolio's value month by month (recharts, this screen's own chunk, as on Markets). The drawing is for the eye:
// hidden from screen readers, with a hidden table of the same figures beside it.

export function ValueChart({ history }: { history: PortfolioDetail["history"] }) {
  const data = history.map((h) => ({ ...h, label: monthLabel(h.month) }));
  // A portfolio moves by a percent or two a month: the axis spans the values with 2% of room either side, and says
  // its figures to the ten-thousand, so that its ticks never all read "$3.3M".
  const values = data.map((d) => d.value);
  const lo = values.length ? Math.min(...values) : 0;
  const hi = values.length ? Math.max(...values) : 0;
  const pad = Math.max(hi * 0.02, (hi - lo) * 0.1, 1);
  const domain: [number, number] = [Math.max(0, Math.floor(lo - pad)), Math.ceil(hi + pad)];
  return (
    <Card data-testid="value-chart">
      <CardHeader>
        <CardTitle className="text-lg">Value over time</CardTitle>
        <CardDescription>The portfolio&apos;s value at the end of each month since it was created</CardDescription>
      </CardHeader>
      <CardContent>
        {data.length < 2 ? (
          <p data-testid="value-chart-one" className="mb-2 text-sm text-muted-foreground">
            {data.length === 0
              ? "No month valued yet."
              : `One month so far (${data[0]!.label}: ${dollars(data[0]!.value)}); the line starts with next month's revaluation.`}
          </p>
        ) : null}
        <div className="h-56 w-full" aria-hidden="true" data-testid="value-chart-drawing">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tickLine={false} minTickGap={24} fontSize={12} />
              <YAxis tickLine={false} width={64} fontSize={12} domain={domain} tickCount={5} tickFormatter={(v: number) => compactDollars(v)} />
              <Tooltip formatter={(v) => dollars(Number(v))} />
              <Line type="monotone" dataKey="value" name="Value" stroke="#2563eb" strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
        <div className="sr-only">
          <table data-testid="value-chart-data">
            <caption>Portfolio value by month</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col">Value</th>
                <th scope="col">Homes valued</th>
              </tr>
            </thead>
            <tbody>
              {data.map((h) => (
                <tr key={h.month}>
                  <td>{h.label}</td>
                  <td>{dollars(h.value)}</td>
                  <td>{homesText(h.homes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </CardContent>
    </Card>
  );
}
