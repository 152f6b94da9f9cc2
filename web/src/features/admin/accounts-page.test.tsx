import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { AdminAccountsPage } from "./accounts-page";
import { AdminConsole } from "./admin-pages";
import { AdminAuditPage } from "./audit-page";
import { AdminOverviewPage } from "./overview-page";
import { AdminSupportPage } from "./support-inbox-page";
import { adminCalls, CUSTOMER, list, makeAccountRow, renderAdmin } from "./test-fixtures";
import { makeBalance } from "@/test/utils";

afterEach(() => {
  vi.unstubAllGlobals();
});

const FIRST = "GET /api/admin/accounts?page=1&limit=25";

describe("the console's gate", () => {
  it.each([
    ["Accounts", <AdminAccountsPage key="a" />],
    ["Support inbox", <AdminSupportPage key="s" />],
    ["Overview", <AdminOverviewPage key="o" />],
    ["Audit log", <AdminAuditPage key="l" />],
  ])("shows a customer the operators-only page on %s, and calls nothing", async (_, page) => {
    const { requests } = await renderAdmin(page, { path: "/admin", route: "/admin", user: CUSTOMER });
    expect(screen.getByRole("heading", { level: 1, name: "Admin console" })).toBeInTheDocument();
    expect(screen.getByText("Only Valuator operators can open this page.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to the dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByRole("navigation", { name: "Admin sections" })).not.toBeInTheDocument();
    expect(adminCalls(requests)).toEqual([]);
  });

  it("says the same when the server refuses (403 forbidden: the role was taken away meanwhile)", async () => {
    await renderAdmin(<AdminAccountsPage />, {
      path: "/admin",
      route: "/admin",
      routes: { [FIRST]: { status: 403, body: { error: "Only Valuator operators can do this.", code: "forbidden", requestId: "r" } } },
    });
    expect(await screen.findByRole("alert")).toHaveTextContent("Only Valuator operators can open this page.");
    expect(screen.queryByRole("button", { name: "Retry" })).not.toBeInTheDocument();
  });
});

describe("Accounts", () => {
  it("lists the newest accounts from the contract's rows, with the sections' navigation", async () => {
    await renderAdmin(<AdminAccountsPage />, {
      path: "/admin",
      route: "/admin",
      routes: {
        [FIRST]: {
          body: list([
            makeAccountRow(),
            makeAccountRow({ id: 43, email: "bob@example.com", fullName: "Bob", company: "", plan: "free", status: "suspended", balance: makeBalance({ credits: 3 }) }),
            makeAccountRow({ id: 44, email: "olga@example.com", balance: makeBalance({ planType: "basic", credits: 0, overageCredits: 10, overageCents: 30 }) }),
          ]),
        },
      },
    });
    expect(screen.getByRole("heading", { level: 1, name: "Accounts" })).toBeInTheDocument();
    const nav = screen.getByRole("navigation", { name: "Admin sections" });
    expect(within(nav).getByRole("link", { name: "Accounts" })).toHaveAttribute("aria-current", "page");
    expect(within(nav).getByRole("link", { name: "Support inbox" })).toHaveAttribute("href", "/admin/support");
    const table = await screen.findByTestId("accounts-table");
    const rows = within(table).getAllByRole("row");
    expect(rows).toHaveLength(4);
    expect(within(rows[1]!).getByRole("link", { name: "jane@example.com" })).toHaveAttribute("href", "/admin/accounts/42");
    expect(rows[1]).toHaveTextContent("Acme Realty");
    expect(rows[1]).toHaveTextContent("Basic");
    expect(rows[1]).toHaveTextContent("Active");
    expect(rows[1]).toHaveTextContent("1,200 credits");
    expect(rows[2]).toHaveTextContent("Suspended");
    expect(rows[2]).toHaveTextContent("3 credits");
    // In overage, the balance every surface shows (never the ledger's -10).
    expect(rows[3]).toHaveTextContent("0 credits · 10 overage ($0.30)");
    expect(screen.getByLabelText("Search accounts")).toBeInTheDocument();
  });

  it("searches by what is typed and pages through the results", async () => {
    const { user, requests } = await renderAdmin(<AdminAccountsPage />, {
      path: "/admin/accounts",
      route: "/admin/accounts",
      routes: {
        [FIRST]: { body: list([makeAccountRow()]) },
        "GET /api/admin/accounts?q=acme&page=1&limit=25": { body: list([makeAccountRow()], 1, 2, 30) },
        "GET /api/admin/accounts?q=acme&page=2&limit=25": { body: list([makeAccountRow({ id: 44, email: "z@acme.com" })], 2, 2, 30) },
        "GET /api/admin/accounts?q=nobody&page=1&limit=25": { body: list([]) },
      },
    });
    await screen.findByTestId("accounts-table");
    await user.type(screen.getByLabelText("Search accounts"), " acme ");
    await user.click(screen.getByRole("button", { name: "Search" }));
    expect(await screen.findByText("Page 1 of 2 (30 in all)")).toBeInTheDocument();
    expect(screen.getByTestId("location")).toHaveTextContent("/admin/accounts?q=acme");
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByRole("link", { name: "z@acme.com" })).toBeInTheDocument();
    expect(adminCalls(requests)).toContain("GET /api/admin/accounts?q=acme&page=2&limit=25");

    await user.clear(screen.getByLabelText("Search accounts"));
    await user.type(screen.getByLabelText("Search accounts"), "nobody");
    await user.click(screen.getByRole("button", { name: "Search" }));
    expect(await screen.findByText("No account matches “nobody”.")).toBeInTheDocument();
  });

  it("shows a failure with Retry", async () => {
    let fail = true;
    const { user } = await renderAdmin(<AdminAccountsPage />, {
      path: "/admin",
      route: "/admin",
      routes: {
        [FIRST]: () =>
          fail ? { status: 500, body: { error: "Internal error", code: "internal", requestId: "r" } } : { body: list([makeAccountRow()]) },
      },
    });
    expect(await screen.findByRole("alert")).toHaveTextContent("Internal error");
    fail = false;
    await user.click(screen.getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(screen.getByTestId("accounts-table")).toBeInTheDocument());
  });
});

describe("AdminConsole (the one component the route table renders at every console path)", () => {
  it.each([
    ["/admin", "Accounts"],
    ["/admin/accounts", "Accounts"],
    ["/admin/accounts/42", "Account"],
    ["/admin/support", "Support inbox"],
    ["/admin/compliance", "Compliance"],
    ["/admin/overview", "Overview"],
    ["/admin/audit/", "Audit log"],
  ])("shows the page of %s", async (route, heading) => {
    // Every read is left pending: only the page chosen matters here.
    const pending = () => new Promise<never>(() => {});
    await renderAdmin(<AdminConsole />, {
      path: route.startsWith("/admin/accounts/") ? "/admin/accounts/:id" : route.replace(/\/$/, "") || "/admin",
      route,
      routes: Object.fromEntries(
        [
          FIRST,
          "GET /api/admin/accounts/42",
          "GET /api/admin/support?status=open&page=1",
          "GET /api/admin/person-audits?page=1",
          "GET /api/admin/opt-outs?page=1",
          "GET /api/admin/overview?days=30",
          "GET /api/admin/audit?page=1&limit=25",
        ].map((k) => [k, pending]),
      ),
    });
    expect(screen.getByRole("heading", { level: 1, name: heading })).toBeInTheDocument();
  });
});
