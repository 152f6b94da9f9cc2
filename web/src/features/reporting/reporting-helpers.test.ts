import { describe, expect, it } from "vitest";
import {
  avgTimeNote,
  formatCount,
  formatDay,
  avgTimeText,
  keysNote,
  monthNote,
  PLACEHOLDER_SERIES,
  relativeTime,
  responseTimeSlices,
  sharePercent,
  statsPath,
  successNote,
  successRateText,
  usageSeries,
} from "./reporting-helpers";

describe("formatCount", () => {
  it("uses thousands separators and whole numbers", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(1234567)).toBe("1,234,567");
  });
});

describe("avgTimeText", () => {
  it("shows the mean with the shared response-time format, '<1 ms' under a millisecond", () => {
    expect(avgTimeText({ totalRequests: 3, avgResponseTime: 182.4 })).toBe("182 ms");
    expect(avgTimeText({ totalRequests: 3, avgResponseTime: 1500 })).toBe("1,500 ms");
    expect(avgTimeText({ totalRequests: 3, avgResponseTime: 0.3 })).toBe("<1 ms");
    expect(avgTimeText({ totalRequests: 3, avgResponseTime: 0 })).toBe("<1 ms");
  });

  it("shows '-' when there were no requests, as the success rate does (there is no time to show)", () => {
    expect(avgTimeText({ totalRequests: 0, avgResponseTime: 0 })).toBe("-");
  });
});

describe("monthNote", () => {
  it.each([
    [{ thisMonth: 120, monthOverMonthChange: 0.12 }, "+12% from last month"],
    [{ thisMonth: 120, monthOverMonthChange: 0.124 }, "+12% from last month"],
    [{ thisMonth: 120, monthOverMonthChange: 0.125 }, "+13% from last month"],
    [{ thisMonth: 95, monthOverMonthChange: -0.05 }, "-5% from last month"],
    [{ thisMonth: 95, monthOverMonthChange: -0.054 }, "-5% from last month"],
    [{ thisMonth: 95, monthOverMonthChange: -0.004 }, "0% from last month"],
    [{ thisMonth: 300, monthOverMonthChange: 2 }, "+200% from last month"],
    [{ thisMonth: 10, monthOverMonthChange: null }, "No activity last month"],
    [{ thisMonth: 0, monthOverMonthChange: null }, "No activity yet"],
    [{ thisMonth: 0, monthOverMonthChange: -1 }, "No activity yet"],
  ])("%j -> %s", (stats, want) => {
    expect(monthNote(stats)).toBe(want);
  });
});

describe("successRateText", () => {
  it.each([
    [973, 1000, "97.3%"],
    [1, 3, "33.3%"],
    [2, 3, "66.6%"],
    [5, 5, "100.0%"],
    [9999, 10000, "99.9%"],
    [0, 7, "0.0%"],
    [0, 0, "-"],
  ])("%i of %i -> %s", (ok, total, want) => {
    expect(successRateText(ok, total)).toBe(want);
  });
});

describe("successNote", () => {
  it.each([
    [100, 100, "Excellent performance"],
    [95, 100, "Excellent performance"],
    [94, 100, "Good"],
    [80, 100, "Good"],
    [79, 100, "Needs attention"],
    [0, 0, "No requests in this period"],
  ])("%i of %i -> %s", (ok, total, want) => {
    expect(successNote(ok, total)).toBe(want);
  });
});

describe("avgTimeNote and keysNote", () => {
  it("give the percentiles, or say there were no requests", () => {
    expect(avgTimeNote({ totalRequests: 10, p50: 120, p95: 1480 })).toBe("p50 120 ms · p95 1,480 ms");
    expect(avgTimeNote({ totalRequests: 0, p50: 0, p95: 0 })).toBe("No requests in this period");
  });

  it("say whether keys exist", () => {
    expect(keysNote(2)).toBe("Ready for use");
    expect(keysNote(0)).toBe("Create one to use the API");
  });
});

describe("usageSeries", () => {
  it("is the spec's seven zero-valued dates when there are no days", () => {
    const want = ["Jan 1", "Jan 5", "Jan 10", "Jan 15", "Jan 20", "Jan 25", "Jan 30"];
    for (const input of [[], null, undefined]) {
      const series = usageSeries(input);
      expect(series.map((p) => p.label)).toEqual(want);
      expect(series.every((p) => p.requests === 0)).toBe(true);
    }
    expect(PLACEHOLDER_SERIES).toHaveLength(7);
  });

  it("keeps every real day in order, labelled in UTC", () => {
    expect(
      usageSeries([
        { date: "2026-01-31", requests: 4, successful: 3 },
        { date: "2026-02-01", requests: 0, successful: 0 },
      ]),
    ).toEqual([
      { date: "2026-01-31", label: "Jan 31", requests: 4 },
      { date: "2026-02-01", label: "Feb 1", requests: 0 },
    ]);
    expect(formatDay("not a date")).toBe("not a date");
  });
});

describe("responseTimeSlices", () => {
  it("takes the real buckets with the spec's labels and green, amber, red", () => {
    expect(responseTimeSlices({ fast: 120, normal: 30, slow: 6 })).toEqual([
      { key: "fast", label: "Fast (<300ms)", color: "#16a34a", value: 120 },
      { key: "normal", label: "Normal (300-500ms)", color: "#f59e0b", value: 30 },
      { key: "slow", label: "Slow (>500ms)", color: "#dc2626", value: 6 },
    ]);
    expect(responseTimeSlices(undefined).map((s) => s.value)).toEqual([0, 0, 0]);
  });

  it("gives shares as whole percents", () => {
    expect(sharePercent(120, 156)).toBe("77%");
    expect(sharePercent(0, 0)).toBe("0%");
  });
});

describe("relativeTime", () => {
  const now = Date.parse("2026-02-03T12:00:00Z");
  it.each([
    ["2026-02-03T11:59:40Z", "just now"],
    ["2026-02-03T11:59:00Z", "1 minute ago"],
    ["2026-02-03T11:55:00Z", "5 minutes ago"],
    ["2026-02-03T10:30:00Z", "1 hour ago"],
    ["2026-02-02T11:00:00Z", "yesterday"],
    ["2026-01-20T12:00:00Z", "2 weeks ago"],
    ["2025-11-01T12:00:00Z", "3 months ago"],
    ["garbage", "garbage"],
  ])("%s -> %s", (iso, want) => {
    expect(relativeTime(iso, now)).toBe(want);
  });
});

describe("statsPath", () => {
  it("asks for the period's days", () => {
    expect(statsPath(30)).toBe("/api/usage/stats?days=30");
    expect(statsPath(7)).toBe("/api/usage/stats?days=7");
    expect(statsPath(90)).toBe("/api/usage/stats?days=90");
  });
});
