import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import type { ApiKey, UsageEntry, UsageHistory, UsageStats } from "@/lib/types";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { ReportingPage } from "./reporting-page";

// jsdom lays nothing out, so ResponsiveContainer would measure 0 x 0 and draw nothing: give the charts a size.
vi.mock("recharts", async (original) => (await import("@/test/recharts")).sized(await original<object>()));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const STATS30 = "GET /api/usage/stats?days=30";
const STATS7 = "GET /api/usage/stats?days=7";
const KEYS = "GET /api/api-keys";
const RECENT = "GET /api/usage/history?page=1&limit=5";

function days(n: number, perDay: (i: number) => number): UsageStats["requestsByDay"] {
  const start = Date.parse("2026-01-05T00:00:00Z");
  return Array.from({ length: n }, (_, i) => ({
    date: new Date(start + i * 86_400_000).toISOString().slice(0, 10),
    requests: perDay(i),
    successful: perDay(i),
  }));
}

function makeStats(overrides: Partial<UsageStats> = {}): UsageStats {
  return {
    days: 30,
    totalRequests: 1000,
    successfulRequests: 973,
    avgResponseTime: 182.4,
    requestsByDay: days(30, (i) => i + 1),
    responseTimes: { fast: 820, normal: 150, slow: 30 },
    p50: 120,
    p95: 1480,
    creditsUsed: 950,
    thisMonth: 12345,
    lastMonth: 11022,
    monthOverMonthChange: 0.12,
    ...overrides,
  };
}

const NO_REQUESTS: Partial<UsageStats> = {
  totalRequests: 0,
  successfulRequests: 0,
  avgResponseTime: 0,
  requestsByDay: [],
  responseTimes: { fast: 0, normal: 0, slow: 0 },
  p50: 0,
  p95: 0,
  creditsUsed: 0,
  thisMonth: 0,
  lastMonth: 0,
  monthOverMonthChange: null,
};

function makeKey(id: number): ApiKey {
  return {
    id,
    name: `Key ${id}`,
    keyPreview: "vk_live_7Qm2…x9Ka",
    keyValue: `vk_live_${id}`,
    rateLimit: 100,
    effectiveRateLimit: 60,
    createdAt: "2026-01-21T10:00:00Z",
    lastUsedAt: null,
  };
}

function makeEntry(id: number, overrides: Partial<UsageEntry> = {}): UsageEntry {
  return {
    id,
    createdAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    propertyAddress: "2114 Bigelow Ave N, Seattle, WA 98109",
    valuation: 987_400,
    responseStatus: 200,
    responseTimeMs: 142,
    apiKeyName: "Production",
    endpoint: "GET /api/v1/property/valuation",
    apiService: "property_valuation",
    creditsUsed: 1,
    requestData: null,
    requestId: `req-${id}`,
    ...overrides,
  };
}

function history(data: UsageEntry[]): UsageHistory {
  return {
    data,
    pagination: { page: 1, limit: 5, total: data.length, totalPages: data.length ? 1 : 0, hasPreviousPage: false, hasNextPage: false },
  };
}

function renderReporting(routes: Record<string, FakeRoute> = {}) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({
    "GET /api/user/profile": { body: makeUser() },
    [STATS30]: { body: makeStats() },
    [KEYS]: { body: [makeKey(1), makeKey(2)] },
    [RECENT]: { body: history([]) },
    ...routes,
  });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/reporting" element={<ReportingPage />} />
      <Route path="/api-keys" element={<h1>API Keys page</h1>} />
    </Routes>,
    { route: "/reporting" },
  );
  const calls = (key: string) => server.requests.filter((r) => `${r.method} ${r.url}` === key);
  return { ...server, user, calls };
}

function card(testId: string) {
  return {
    value: screen.getByTestId(`${testId}-value`).textContent,
    note: screen.getByTestId(`${testId}-note`).textContent,
  };
}

function chartRows(): string[][] {
  const table = within(screen.getByTestId("usage-chart")).getByTestId("usage-chart-data");
  return within(table)
    .getAllByRole("row")
    .slice(1)
    .map((r) => within(r).getAllByRole("cell").map((c) => c.textContent ?? ""));
}

describe("ReportingPage", () => {
  it("shows the title, a spinner while the statistics load, then the four cards", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    renderReporting({
      [STATS30]: async () => {
        await held;
        return { body: makeStats() };
      },
    });
    expect(screen.getByRole("heading", { name: "Reporting" })).toBeInTheDocument();
    expect(screen.getByText("Analytics and insights for your API usage and performance")).toBeInTheDocument();
    expect(await screen.findByRole("status", { name: "Loading statistics" })).toBeInTheDocument();
    expect(screen.queryByTestId("stat-calls")).not.toBeInTheDocument();
    release();

    await screen.findByTestId("stat-calls");
    expect(card("stat-calls")).toEqual({ value: "12,345", note: "+12% from last month" });
    expect(card("stat-success-rate")).toEqual({ value: "97.3%", note: "Excellent performance" });
    expect(card("stat-avg-time")).toEqual({ value: "182 ms", note: "p50 120 ms · p95 1,480 ms" });
    await waitFor(() => expect(card("stat-keys")).toEqual({ value: "2", note: "Ready for use" }));
    expect(screen.queryByRole("status", { name: "Loading statistics" })).not.toBeInTheDocument();
  });

  it("states the real month-over-month change, and honest notes for low success", async () => {
    renderReporting({
      [STATS30]: { body: makeStats({ thisMonth: 950, monthOverMonthChange: -0.054, successfulRequests: 700 }) },
    });
    await screen.findByTestId("stat-calls");
    expect(card("stat-calls")).toEqual({ value: "950", note: "-5% from last month" });
    expect(card("stat-success-rate")).toEqual({ value: "70.0%", note: "Needs attention" });
  });

  it("says there was no activity last month when the change is unknown", async () => {
    renderReporting({ [STATS30]: { body: makeStats({ thisMonth: 40, lastMonth: 0, monthOverMonthChange: null }) } });
    await screen.findByTestId("stat-calls");
    expect(card("stat-calls")).toEqual({ value: "40", note: "No activity last month" });
  });

  it("shows '-' and no activity when there are no requests", async () => {
    const stats = makeStats(NO_REQUESTS) as Partial<UsageStats>;
    // The spec reads a missing average as 0.
    delete stats.avgResponseTime;
    renderReporting({ [STATS30]: { body: stats }, [KEYS]: { body: [] } });
    await screen.findByTestId("stat-calls");
    expect(card("stat-calls")).toEqual({ value: "0", note: "No activity yet" });
    expect(card("stat-success-rate")).toEqual({ value: "-", note: "No requests in this period" });
    // No requests: no time to show (not "0 ms", not "<1 ms"), as the success rate says "-".
    expect(card("stat-avg-time")).toEqual({ value: "-", note: "No requests in this period" });
    await waitFor(() => expect(card("stat-keys")).toEqual({ value: "0", note: "Create one to use the API" }));
  });

  it("charts calls per day as 'API Calls' over the period", async () => {
    renderReporting();
    const chart = await screen.findByTestId("usage-chart");
    expect(within(chart).getByText("API Usage (Last 30 Days)")).toBeInTheDocument();
    const rows = chartRows();
    expect(rows).toHaveLength(30);
    expect(rows[0]).toEqual(["Jan 5", "1"]);
    expect(rows[29]).toEqual(["Feb 3", "30"]);
    // The SVG is drawn: a line, in blue, named in the legend.
    const line = chart.querySelector(".recharts-line-curve");
    expect(line).not.toBeNull();
    expect(line).toHaveAttribute("stroke", "#2563eb");
    expect(chart.querySelector(".recharts-legend-item-text")).toHaveTextContent("API Calls");
  });

  it("charts the spec's placeholder series when no days came back", async () => {
    renderReporting({ [STATS30]: { body: makeStats({ requestsByDay: [] }) } });
    const chart = await screen.findByTestId("usage-chart");
    expect(chartRows()).toEqual([
      ["Jan 1", "0"],
      ["Jan 5", "0"],
      ["Jan 10", "0"],
      ["Jan 15", "0"],
      ["Jan 20", "0"],
      ["Jan 25", "0"],
      ["Jan 30", "0"],
    ]);
    expect(chart.querySelector(".recharts-line-curve")).not.toBeNull();
    expect(within(chart).getByText("No usage recorded for this period yet")).toBeInTheDocument();
  });

  it("asks for the chosen period and shows its figures", async () => {
    const { user, calls } = renderReporting({
      [STATS7]: {
        body: makeStats({ days: 7, totalRequests: 50, successfulRequests: 45, requestsByDay: days(7, () => 2) }),
      },
    });
    await screen.findByTestId("stat-calls");
    expect(calls(STATS30)).toHaveLength(1);
    expect(calls(STATS7)).toHaveLength(0);

    await user.click(screen.getByLabelText("Period"));
    const options = (await screen.findAllByRole("option")).map((o) => o.textContent);
    expect(options).toEqual(["Last 30 days", "Last 7 days", "Last 90 days"]);
    await user.click(screen.getByRole("option", { name: "Last 7 days" }));

    await waitFor(() => expect(calls(STATS7)).toHaveLength(1));
    await waitFor(() => expect(card("stat-success-rate").value).toBe("90.0%"));
    expect(within(screen.getByTestId("usage-chart")).getByText("API Usage (Last 7 Days)")).toBeInTheDocument();
    expect(chartRows()).toHaveLength(7);
  });

  it("feeds the doughnut the real response-time buckets", async () => {
    renderReporting({ [STATS30]: { body: makeStats({ responseTimes: { fast: 120, normal: 30, slow: 6 } }) } });
    const chart = await screen.findByTestId("response-times-chart");
    expect(within(chart).getByText("Response Times")).toBeInTheDocument();
    expect(within(chart).getByTestId("response-times-fast")).toHaveTextContent("Fast (<300ms)120(77%)");
    expect(within(chart).getByTestId("response-times-normal")).toHaveTextContent("Normal (300-500ms)30(19%)");
    expect(within(chart).getByTestId("response-times-slow")).toHaveTextContent("Slow (>500ms)6(4%)");
    // Three sectors drawn in green, amber and red.
    const sectors = [...chart.querySelectorAll(".recharts-pie-sector path")].map((p) => p.getAttribute("fill"));
    expect(sectors).toEqual(["#16a34a", "#f59e0b", "#dc2626"]);
  });

  it("keeps the drawings out of the Tab order: they are hidden from screen readers, whose figures are the table and list", async () => {
    renderReporting({ [STATS30]: { body: makeStats({ responseTimes: { fast: 120, normal: 30, slow: 6 } }) } });
    const usage = await screen.findByTestId("usage-chart-drawing");
    const times = await screen.findByTestId("response-times-drawing");
    await waitFor(() => expect(times.querySelector(".recharts-pie-sector")).not.toBeNull());
    expect(usage.querySelector(".recharts-line-curve")).not.toBeNull();
    for (const drawing of [usage, times]) {
      expect(drawing).toHaveAttribute("aria-hidden", "true");
      // Nothing inside may take a Tab stop (an aria-hidden stop is announced as nothing).
      const tabbable = [...drawing.querySelectorAll("[tabindex]")].filter((el) => Number(el.getAttribute("tabindex")) >= 0);
      expect(tabbable).toEqual([]);
    }
    // The figures are there for everyone: the table of calls by day and the legend list of response times.
    expect(screen.getByTestId("usage-chart-data")).toBeInTheDocument();
    expect(screen.getByTestId("response-times-legend")).toHaveTextContent("Fast (<300ms)120(77%)");
  });

  it("shows an empty doughnut state when there were no requests", async () => {
    renderReporting({ [STATS30]: { body: makeStats(NO_REQUESTS) } });
    const chart = await screen.findByTestId("response-times-chart");
    expect(within(chart).getByText("No requests in this period")).toBeInTheDocument();
    expect(chart.querySelector(".recharts-pie-sector")).toBeNull();
  });

  it("lists the latest calls in Recent Activity", async () => {
    const { calls } = renderReporting({
      [RECENT]: {
        body: history([
          makeEntry(1),
          makeEntry(2, {
            propertyAddress: null,
            apiService: "person_lookup",
            responseStatus: 404,
            responseTimeMs: 1234,
            apiKeyName: null,
            createdAt: new Date(Date.now() - 3 * 3600_000).toISOString(),
          }),
        ]),
      },
    });
    const panel = await screen.findByTestId("recent-activity");
    const items = await within(panel).findAllByTestId("activity-item");
    expect(calls(RECENT)).toHaveLength(1);
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent("2114 Bigelow Ave N, Seattle, WA 98109");
    expect(items[0]).toHaveTextContent("Production • Response: 200 • 142 ms • 5 minutes ago");
    expect(within(items[0]!).getByText("Success")).toBeInTheDocument();
    expect(items[1]).toHaveTextContent("Person lookup");
    expect(items[1]).toHaveTextContent("Dashboard • Response: 404 • 1,234 ms • 3 hours ago");
    expect(within(items[1]!).getByText("Error")).toBeInTheDocument();
    expect(within(panel).getByRole("link", { name: "View all" })).toHaveAttribute("href", "/history");
  });

  it("shows times under a millisecond as '<1 ms', never '0 ms' (cards and Recent Activity)", async () => {
    renderReporting({
      [STATS30]: { body: makeStats({ avgResponseTime: 0.4, p50: 0, p95: 3 }) },
      [RECENT]: { body: history([makeEntry(1, { responseTimeMs: 0 })]) },
    });
    await screen.findByTestId("stat-calls");
    expect(card("stat-avg-time")).toEqual({ value: "<1 ms", note: "p50 <1 ms · p95 3 ms" });
    const items = await within(await screen.findByTestId("recent-activity")).findAllByTestId("activity-item");
    expect(items[0]).toHaveTextContent("Production • Response: 200 • <1 ms • 5 minutes ago");
    expect(screen.queryByText(/\b0 ms/)).not.toBeInTheDocument();
  });

  it("shows the empty activity state when there are no calls", async () => {
    renderReporting();
    const panel = await screen.findByTestId("recent-activity");
    expect(await within(panel).findByText("No activity yet")).toBeInTheDocument();
    expect(within(panel).getByText("Start using your API to see activity here")).toBeInTheDocument();
    expect(within(panel).queryByTestId("activity-item")).not.toBeInTheDocument();
  });

  it("shows 'Failed to fetch stats' with a Retry that loads them", async () => {
    let fail = true;
    const { user, calls } = renderReporting({
      [STATS30]: () => (fail ? { status: 500, body: errorBody("Internal error", { code: "internal" }) } : { body: makeStats() }),
    });
    const alert = await screen.findByTestId("stats-error");
    expect(alert).toHaveTextContent("Failed to fetch stats");
    expect(alert).toHaveTextContent("Internal error");
    expect(screen.queryByTestId("stat-calls")).not.toBeInTheDocument();
    // The latest calls come from another read and still show.
    expect(screen.getByTestId("recent-activity")).toBeInTheDocument();

    fail = false;
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    await screen.findByTestId("stat-calls");
    expect(screen.queryByTestId("stats-error")).not.toBeInTheDocument();
    expect(calls(STATS30)).toHaveLength(2);
  });

  it("shows 'Failed to fetch API keys' with a Retry, and the other cards still", async () => {
    let fail = true;
    const { user } = renderReporting({
      [KEYS]: () => (fail ? { status: 503, body: errorBody("Try again shortly", { code: "unavailable" }) } : { body: [makeKey(1)] }),
    });
    const alert = await screen.findByTestId("keys-error");
    expect(alert).toHaveTextContent("Failed to fetch API keys");
    await screen.findByTestId("stat-calls");
    expect(card("stat-keys")).toEqual({ value: "—", note: "Unavailable" });
    expect(card("stat-calls").value).toBe("12,345");

    fail = false;
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(card("stat-keys")).toEqual({ value: "1", note: "Ready for use" }));
    expect(screen.queryByTestId("keys-error")).not.toBeInTheDocument();
  });

  it("opens API Keys from 'New API Key'", async () => {
    const { user } = renderReporting();
    await screen.findByTestId("stat-calls");
    await user.click(screen.getByRole("button", { name: "New API Key" }));
    expect(await screen.findByRole("heading", { name: "API Keys page" })).toBeInTheDocument();
    expect(screen.getByTestId("location")).toHaveTextContent("/api-keys");
  });
});
