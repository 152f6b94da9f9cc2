import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import { AdminAuditPage } from "./audit-page";
import { AdminOverviewPage } from "./overview-page";
import { adminCalls, list, makeAuditRow, makeOverview, ok, renderAdmin } from "./test-fixtures";

afterEach(() => {
  vi.unstubAllGlobals();
});

// recharts' ResponsiveContainer measures its box; jsdom has no layout, so it is given one.
class FakeResizeObserver {
  constructor(private cb: ResizeObserverCallback) {}
  observe(target: Element) {
    this.cb([{ target, contentRect: { width: 360, height: 224 } } as unknown as ResizeObserverEntry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}

describe("Overview", () => {
  it("shows the contract's figures, the per-day series as tables and the failing jobs; the period goes to the server", async () => {
    vi.stubGlobal("ResizeObserver", FakeResizeObserver);
    const { user, requests } = await renderAdmin(<AdminOverviewPage />, {
      path: "/admin/overview",
      route: "/admin/overview",
      routes: {
        "GET /api/admin/overview?days=30": { body: ok(makeOverview()) },
        "GET /api/admin/overview?days=7": { body: ok(makeOverview({ mrrCents: 12345, failingJobs: [] })) },
      },
    });
    expect(await screen.findByTestId("stat-paying-value")).toHaveTextContent("15");
    expect(screen.getByTestId("stat-paying")).toHaveTextContent("Basic 10 · Professional 4 · Enterprise 1");
    expect(screen.getByTestId("stat-mrr-value")).toHaveTextContent("$1,000");
    expect(screen.getByTestId("stat-credits-value")).toHaveTextContent("15,000 / 9,000");
    expect(screen.getByTestId("stat-overage-value")).toHaveTextContent("$45.30");
    const signups = within(screen.getByTestId("signups-chart-data")).getAllByRole("row");
    expect(signups).toHaveLength(3);
    expect(signups[2]).toHaveTextContent("Feb 2, 2026");
    expect(signups[2]).toHaveTextContent("5");
    expect(screen.getByTestId("calls-chart")).toHaveTextContent("2,700 in all");
    expect(screen.getByTestId("failing-jobs-table")).toHaveTextContent("portfolio.csv");

    await user.selectOptions(screen.getByLabelText("Period"), "7");
    expect(await screen.findByText("$123.45")).toBeInTheDocument();
    expect(screen.getByText("No failing batch jobs.")).toBeInTheDocument();
    expect(adminCalls(requests)).toEqual(["GET /api/admin/overview?days=30", "GET /api/admin/overview?days=7"]);
  });
});

describe("Audit log", () => {
  it("shows who did what to which account, why, and before → after; filters by account", async () => {
    const { user, requests } = await renderAdmin(<AdminAuditPage />, {
      path: "/admin/audit",
      route: "/admin/audit",
      routes: {
        "GET /api/admin/audit?page=1&limit=25": {
          body: list([
            makeAuditRow({ action: "credit_adjustment", after: { balance: 262, amount: 250, ledgerId: 77 } }),
            makeAuditRow({ id: 2, action: "suspend", before: { status: "active" }, after: { status: "suspended" }, reason: "Chargebacks" }),
            makeAuditRow({ id: 3, adminId: null, adminEmail: null, action: "role_grant", before: { role: "customer" }, after: { role: "admin" }, reason: "valuator admin add" }),
          ]),
        },
        "GET /api/admin/audit?accountId=43&page=1&limit=25": { body: list([]) },
      },
    });
    const rows = within(await screen.findByTestId("audit-table")).getAllByRole("row");
    expect(rows[1]).toHaveTextContent("admin@valuator.dev");
    expect(rows[1]).toHaveTextContent("Credit adjustment");
    expect(rows[1]).toHaveTextContent("Goodwill for the outage");
    expect(rows[1]).toHaveTextContent("balance: 12 → 262; amount: 250; ledgerId: 77");
    expect(within(rows[1]!).getByRole("link", { name: "jane@example.com" })).toHaveAttribute("href", "/admin/accounts/42");
    expect(rows[2]).toHaveTextContent("status: active → suspended");
    expect(rows[3]).toHaveTextContent("Command line");
    expect(rows[3]).toHaveTextContent("Role grant");

    await user.type(screen.getByLabelText("Account id"), "abc");
    await user.click(screen.getByRole("button", { name: "Filter" }));
    expect(screen.getByText("Account id must be a number, like 42.")).toBeInTheDocument();
    await user.clear(screen.getByLabelText("Account id"));
    await user.type(screen.getByLabelText("Account id"), "43");
    await user.click(screen.getByRole("button", { name: "Filter" }));
    expect(await screen.findByText("No admin actions recorded.")).toBeInTheDocument();
    expect(adminCalls(requests)).toContain("GET /api/admin/audit?accountId=43&page=1&limit=25");
    expect(screen.getByTestId("location")).toHaveTextContent("/admin/audit?accountId=43");
  });
});
