import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ValuePoint } from "./value-history";

// The drawing of the value history, with recharts: loaded lazily (value-history.tsx), so the signed-in app's chunk
// does not carry the charts library; it is the same code the Reporting and Markets screens load.

const BLUE = "#2563eb";
const compactUsd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", notation: "compact", maximumFractionDigits: 2 });
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });

export function ValueHistoryDrawing({ points }: { points: readonly (ValuePoint & { label: string })[] }) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <AreaChart data={[...points]} margin={{ top: 8, right: 12, bottom: 0, left: 0 }} accessibilityLayer={false}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" tickLine={false} minTickGap={28} fontSize={12} />
        <YAxis tickLine={false} width={60} fontSize={12} domain={["auto", "auto"]} tickFormatter={(v: number) => compactUsd.format(v)} />
        <Tooltip formatter={(v) => usd.format(Number(v))} />
        <Area type="monotone" dataKey="value" name="Estimated value" stroke={BLUE} fill={BLUE} fillOpacity={0.1} strokeWidth={2} isAnimationActive={false} />
      </AreaChart>
    </ResponsiveContainer>
  );
}
