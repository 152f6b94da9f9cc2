import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { Market } from "../api/markets-api";
import { dollars, historyWindowNote, indexAreaLabel, indexLines, monthLabel, percentChange } from "../markets-helpers";

// The Markets screen's two charts, drawn with recharts (this screen's own chunk, like Reporting's). As on Reporting,
// the drawing is for the eye: hidden from screen readers and out of the Tab order, with a hidden table of the same
// figures beside it.

/** One colour per ZIP compared, in order (distinct for common colour blindness, and on white). */
export const SERIES_COLOURS = ["#2563eb", "#d97706", "#059669", "#db2777", "#7c3aed"] as const;
const SALE = "#2563eb";
const RENT = "#059669";

const compactUsd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", notation: "compact", maximumFractionDigits: 1 });

/**
 * The price index of the ZIPs shown (1.0 is the first month shown): each ZIP's area's (its own, its 3-digit area's,
 * its metro's or the whole market's), named under the chart; ZIPs with the same series share one line.
 */
export function PriceIndexChart({ markets }: { markets: readonly Market[] }) {
  const lines = indexLines(markets);
  const months = [...new Set(lines.flatMap((l) => l.points.map((p) => p.month)))].sort();
  const data = months.map((month) => {
    const row: Record<string, string | number | null> = { month, label: monthLabel(month) };
    for (const l of lines) row[l.name] = l.points.find((p) => p.month === month)?.index ?? null;
    return row;
  });
  return (
    <Card data-testid="price-index-chart">
      <CardHeader>
        <CardTitle className="text-lg">Price index</CardTitle>
        <CardDescription data-testid="price-index-description">
          The monthly index of each ZIP code&apos;s area: its own where its sales support one, else its 3-digit
          area&apos;s, its metro&apos;s or the whole market&apos;s ({markets.map((m) => `${m.zip}: ${indexAreaLabel(m.priceIndexArea)}`).join("; ")}); 1.00 is the first month shown
        </CardDescription>
      </CardHeader>
      <CardContent>
        {months.length === 0 ? (
          <p data-testid="price-index-none" className="rounded-md border border-dashed bg-muted/40 p-4 text-sm text-muted-foreground">
            No price index: the market has too few sales for the engine to fit one.
          </p>
        ) : (
          <>
            <div className="h-64 w-full" aria-hidden="true" data-testid="price-index-drawing">
              <ResponsiveContainer width="100%" height="100%">
                <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} accessibilityLayer={false}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="label" tickLine={false} minTickGap={24} fontSize={12} />
                  <YAxis tickLine={false} width={44} fontSize={12} domain={["auto", "auto"]} tickFormatter={(v: number) => v.toFixed(2)} />
                  <Tooltip formatter={(v) => Number(v).toFixed(3)} />
                  {markets.length > 1 ? <Legend /> : null}
                  {lines.map((l, i) => (
                    <Line
                      key={l.name}
                      type="monotone"
                      dataKey={l.name}
                      name={l.name}
                      stroke={SERIES_COLOURS[i % SERIES_COLOURS.length]}
                      strokeWidth={2}
                      dot={false}
                      connectNulls
                      isAnimationActive={false}
                    />
                  ))}
                </LineChart>
              </ResponsiveContainer>
            </div>
            <div className="sr-only">
              <table data-testid="price-index-data">
                <caption>Price index by month</caption>
                <thead>
                  <tr>
                    <th scope="col">Month</th>
                    {lines.map((l) => (
                      <th key={l.name} scope="col">{`${l.name} index (12-month change)`}</th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {months.map((month) => (
                    <tr key={month}>
                      <td>{monthLabel(month)}</td>
                      {lines.map((l) => {
                        const p = l.points.find((x) => x.month === month);
                        return <td key={l.name}>{p ? `${p.index.toFixed(3)} (${percentChange(p.change12m)})` : "—"}</td>;
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </CardContent>
    </Card>
  );
}

/**
 * The median sale price and the median rent of one ZIP by month; a month with fewer than 5 records is a gap. A thin
 * ZIP's medians are rolling 3-month ones (historyWindow), and the chart says so.
 */
export function MedianPricesChart({ market }: { market: Market }) {
  const data = market.history.map((h) => ({
    month: h.month,
    label: monthLabel(h.month),
    sale: h.medianSalePrice,
    rent: h.medianRent,
  }));
  // A small market may have no month with 5 records: say so rather than draw empty axes.
  const empty = data.every((d) => d.sale === null && d.rent === null);
  const rolling = historyWindowNote(market);
  const saleName = market.historyWindow.sales > 1 ? "Median sale price (3-month rolling)" : "Median sale price";
  const rentName = market.historyWindow.rents > 1 ? "Median rent (monthly, 3-month rolling)" : "Median rent (monthly)";
  return (
    <Card data-testid="median-prices-chart">
      <CardHeader>
        <CardTitle className="text-lg">Median sale price and rent</CardTitle>
        <CardDescription>
          {rolling
            ? `${market.zip} by month; a median over fewer than 5 sales or rents is left out`
            : `${market.zip} by month; a month with fewer than 5 sales or rents is left out`}
        </CardDescription>
        {rolling ? (
          <p className="text-xs font-medium text-foreground" data-testid="median-prices-window">
            {rolling}
          </p>
        ) : null}
      </CardHeader>
      <CardContent>
        {empty ? (
          <p className="py-8 text-center text-sm text-muted-foreground" data-testid="median-prices-none">
            No month has 5 or more sales or rents in this ZIP, so there is no monthly median to draw.
          </p>
        ) : null}
        <div
          className={empty ? "hidden" : "h-64 w-full"}
          aria-hidden="true"
          data-testid="median-prices-drawing"
        >
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={data} margin={{ top: 8, right: 4, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="label" tickLine={false} minTickGap={24} fontSize={12} />
              <YAxis yAxisId="sale" tickLine={false} width={56} fontSize={12} tickFormatter={(v: number) => compactUsd.format(v)} />
              <YAxis yAxisId="rent" orientation="right" tickLine={false} width={52} fontSize={12} tickFormatter={(v: number) => compactUsd.format(v)} />
              <Tooltip formatter={(v) => dollars(Number(v))} />
              <Legend />
              <Line yAxisId="sale" type="monotone" dataKey="sale" name={saleName} stroke={SALE} strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
              <Line yAxisId="rent" type="monotone" dataKey="rent" name={rentName} stroke={RENT} strokeWidth={2} dot={{ r: 2 }} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
        <div className="sr-only">
          <table data-testid="median-prices-data">
            <caption>{`Median sale price and rent by month, ${market.zip}`}</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col">Sales</th>
                <th scope="col">{saleName}</th>
                <th scope="col">Rents</th>
                <th scope="col">{rentName}</th>
              </tr>
            </thead>
            <tbody>
              {market.history.map((h) => (
                <tr key={h.month}>
                  <td>{monthLabel(h.month)}</td>
                  <td>{h.salesCount}</td>
                  <td>{h.medianSalePrice === null ? "Fewer than 5 sales" : dollars(h.medianSalePrice)}</td>
                  <td>{h.rentsCount}</td>
                  <td>{h.medianRent === null ? "Fewer than 5 rents" : dollars(h.medianRent)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </CardContent>
    </Card>
  );
}
