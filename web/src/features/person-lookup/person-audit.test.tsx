import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import type { PersonAuditEntry, PersonAuditLog } from "@/lib/types";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { PersonLookupPage } from "./person-lookup-page";

vi.setConfig({ testTimeout: 20_000 });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const AUDIT = "GET /api/person/audit?limit=20";

function entry(overrides: Partial<PersonAuditEntry> = {}): PersonAuditEntry {
  return {
    id: 1,
    createdAt: "2026-02-11T14:05:00Z",
    via: "dashboard",
    apiKeyId: null,
    apiKeyName: null,
    purpose: "real_estate_transaction",
    query: { name: "Jennifer Northcott", street_line_1: "5873 River Dr N", city: "Seattle", state_code: "WA", postal_code: "98103" },
    outcome: "found",
    credits: 5,
    resultId: "p-1",
    requestId: "req-1",
    clientRequestId: null,
    ...overrides,
  };
}

function page(data: PersonAuditEntry[], nextBefore: number | null = null): FakeRoute {
  const body: PersonAuditLog = { data, pagination: { limit: 20, hasMore: nextBefore !== null, nextBefore } };
  return { body };
}

function renderAudit(routes: Record<string, FakeRoute> = {}, route = "/person-lookup?tab=audit") {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({ "GET /api/user/profile": { body: makeUser() }, ...routes });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/person-lookup" element={<PersonLookupPage />} />
    </Routes>,
    { route },
  );
  return { ...server, user };
}

const auditReads = (requests: { method: string; url: string }[]) =>
  requests.filter((r) => r.method === "GET" && r.url.startsWith("/api/person/audit")).map((r) => r.url);

describe("the tabs", () => {
  it("are a tablist with Lookup and Lookup audit, moved between with the arrow keys", async () => {
    const { user } = renderAudit({ [AUDIT]: page([]) }, "/person-lookup");
    const tablist = screen.getByRole("tablist", { name: "Person Lookup" });
    const tabs = within(tablist).getAllByRole("tab");
    expect(tabs.map((t) => t.textContent)).toEqual(["Lookup", "Lookup audit"]);
    expect(tabs[0]).toHaveAttribute("aria-selected", "true");
    expect(screen.getByLabelText("Full Name")).toBeVisible();

    tabs[0]!.focus();
    await user.keyboard("{ArrowRight}");
    expect(tabs[1]).toHaveFocus();
    await waitFor(() => expect(tabs[1]).toHaveAttribute("aria-selected", "true"));
    expect(await screen.findByTestId("person-audit")).toBeInTheDocument();
    expect(screen.getByTestId("location")).toHaveTextContent("/person-lookup?tab=audit");

    await user.keyboard("{ArrowLeft}");
    await waitFor(() => expect(tabs[0]).toHaveAttribute("aria-selected", "true"));
    expect(screen.getByTestId("location")).toHaveTextContent(/^\/person-lookup$/);
  });

  it("keep what was typed in the form while the audit shows", async () => {
    const { user } = renderAudit({ [AUDIT]: page([]) }, "/person-lookup");
    await user.type(screen.getByLabelText("Full Name"), "Jennifer Northcott");
    await user.click(screen.getByRole("tab", { name: "Lookup audit" }));
    await screen.findByTestId("person-audit");
    await user.click(screen.getByRole("tab", { name: "Lookup" }));
    expect(screen.getByLabelText("Full Name")).toHaveValue("Jennifer Northcott");
  });
});

describe("the lookup audit", () => {
  it("lists every lookup: when, how, the query, purpose label, outcome badge and credits", async () => {
    renderAudit({
      [AUDIT]: page([
        entry({ id: 6 }),
        entry({
          id: 5,
          via: "api_key",
          apiKeyId: 3,
          apiKeyName: "CRM sync",
          purpose: "fraud_prevention",
          outcome: "not_found",
          credits: 0,
          query: { name: "Nobody Here", street_line_1: "", city: "Austin", state_code: "TX", postal_code: "" },
        }),
        entry({ id: 4, outcome: "invalid", credits: 0, purpose: "identity_verification" }),
        entry({ id: 3, outcome: "insufficient_credits", credits: 0, purpose: "contacting_owner" }),
        entry({ id: 2, outcome: "rate_limited", credits: 0, purpose: "legal_process" }),
        entry({ id: 1, outcome: "error", credits: 0, via: "api_key", apiKeyId: 9, apiKeyName: null }),
      ]),
    });
    const table = await screen.findByTestId("audit-table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "When",
      "How",
      "Query",
      "Purpose",
      "Outcome",
      "Credits",
    ]);
    const rows = within(table).getAllByTestId("audit-row");
    expect(rows).toHaveLength(6);

    const [hit, miss] = rows as [HTMLElement, HTMLElement];
    expect(hit).toHaveTextContent("Feb 11, 2026");
    expect(hit).toHaveTextContent("14:05 UTC");
    expect(within(hit).getByText("Dashboard")).toBeInTheDocument();
    expect(within(hit).getByTestId("audit-query")).toHaveTextContent("Jennifer Northcott5873 River Dr N, Seattle, WA 98103");
    expect(hit).toHaveTextContent("Real estate transaction");
    expect(within(hit).getByText("Hit")).toBeInTheDocument();
    expect(within(hit).getByTestId("audit-credits")).toHaveTextContent("5");

    expect(within(miss).getByText("API key: CRM sync")).toBeInTheDocument();
    expect(within(miss).getByTestId("audit-query")).toHaveTextContent("Nobody HereAustin, TX");
    expect(miss).toHaveTextContent("Fraud prevention");
    expect(within(miss).getByText("Miss")).toBeInTheDocument();
    expect(within(miss).getByTestId("audit-credits")).toHaveTextContent("0");

    const badges = rows.map((r) => within(r).getByTitle(/./).textContent);
    expect(badges).toEqual(["Hit", "Miss", "Invalid", "Out of credits", "Slowed down", "Error"]);
    expect(rows[2]).toHaveTextContent("Identity verification");
    expect(rows[3]).toHaveTextContent("Contacting a property owner");
    expect(rows[4]).toHaveTextContent("Service of legal process");
    expect(within(rows[5]!).getByText("API key #9")).toBeInTheDocument();
  });

  it("stacks each lookup into short lines on a phone and is a table on wide screens", async () => {
    renderAudit({ [AUDIT]: page([entry()]) });
    const table = await screen.findByTestId("audit-table");
    expect(table.querySelector("thead")).toHaveClass("hidden", "lg:table-header-group");
    const row = within(table).getByTestId("audit-row");
    expect(row).toHaveClass("grid", "grid-cols-[minmax(0,1fr)_auto]", "lg:table-row");
    // Long text wraps instead of widening the page.
    expect(within(row).getByTestId("audit-query")).toHaveClass("min-w-0", "break-words");
    // The phone layout says what the bare numbers are.
    expect(within(row).getByTestId("audit-credits")).toHaveTextContent("5 credits");
  });

  it("applies the filters together and reads the audit again with them", async () => {
    const filtered = "GET /api/person/audit?limit=20&from=2026-02-01&to=2026-02-28&purpose=fraud_prevention";
    const { user, requests } = renderAudit({
      [AUDIT]: page([entry({ id: 2 }), entry({ id: 1, purpose: "fraud_prevention" })]),
      [filtered]: page([entry({ id: 1, purpose: "fraud_prevention" })]),
    });
    expect(await screen.findAllByTestId("audit-row")).toHaveLength(2);

    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-02-01" } });
    fireEvent.change(screen.getByLabelText("To"), { target: { value: "2026-02-28" } });
    await user.click(screen.getByRole("combobox", { name: "Purpose" }));
    await user.click(await screen.findByRole("option", { name: "Fraud prevention" }));
    // Nothing is read until the filters are applied.
    expect(auditReads(requests)).toEqual(["/api/person/audit?limit=20"]);

    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(screen.getAllByTestId("audit-row")).toHaveLength(1));
    expect(auditReads(requests)).toEqual([
      "/api/person/audit?limit=20",
      "/api/person/audit?limit=20&from=2026-02-01&to=2026-02-28&purpose=fraud_prevention",
    ]);
    expect(requests.find((r) => r.url.includes("purpose="))?.headers.Authorization).toBe("Bearer tok-1");
  });

  it("refuses a from date after the to date", async () => {
    const { user, requests } = renderAudit({ [AUDIT]: page([]) });
    await screen.findByTestId("audit-empty");
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-03-01" } });
    fireEvent.change(screen.getByLabelText("To"), { target: { value: "2026-02-01" } });
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    expect(await screen.findByText("The from date must be on or before the to date.")).toBeInTheDocument();
    expect(screen.getByLabelText("From")).toHaveAttribute("aria-invalid", "true");
    expect(auditReads(requests)).toHaveLength(1);
  });

  it("reads the next older page with 'Show more' and keeps the filters", async () => {
    const first = "GET /api/person/audit?limit=20&purpose=legal_process";
    const second = "GET /api/person/audit?limit=20&purpose=legal_process&before=21";
    const older = Array.from({ length: 20 }, (_, i) => entry({ id: 40 - i, purpose: "legal_process" }));
    const { user, requests } = renderAudit({
      [AUDIT]: page([entry()]),
      [first]: page(older, 21),
      [second]: page([entry({ id: 20, purpose: "legal_process", outcome: "not_found", credits: 0 })]),
    });
    await screen.findByTestId("audit-table");
    await user.click(screen.getByRole("combobox", { name: "Purpose" }));
    await user.click(await screen.findByRole("option", { name: "Service of legal process" }));
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    await waitFor(() => expect(screen.getAllByTestId("audit-row")).toHaveLength(20));

    await user.click(screen.getByRole("button", { name: "Show more" }));
    await waitFor(() => expect(screen.getAllByTestId("audit-row")).toHaveLength(21));
    expect(auditReads(requests)).toContain("/api/person/audit?limit=20&purpose=legal_process&before=21");
    expect(screen.queryByRole("button", { name: "Show more" })).not.toBeInTheDocument();
  });

  it("exports CSV with the applied filters and the session, saved under the server's name", async () => {
    const blobs: Blob[] = [];
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return "blob:audit";
    });
    URL.revokeObjectURL = vi.fn();
    onTestFinished(() => {
      URL.createObjectURL = original.create;
      URL.revokeObjectURL = original.revoke;
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});

    const csvUrl = "GET /api/person/audit?format=csv&from=2026-02-01&purpose=identity_verification";
    const { user, requests } = renderAudit({
      [AUDIT]: page([entry()]),
      "GET /api/person/audit?limit=20&from=2026-02-01&purpose=identity_verification": page([]),
      [csvUrl]: {
        raw: "id,createdAt,via\r\n1,2026-02-11T14:05:00Z,dashboard\r\n",
        headers: { "Content-Type": "text/csv", "Content-Disposition": 'attachment; filename="person-audit-2026-02-11.csv"' },
      },
    });
    await screen.findByTestId("audit-table");
    fireEvent.change(screen.getByLabelText("From"), { target: { value: "2026-02-01" } });
    await user.click(screen.getByRole("combobox", { name: "Purpose" }));
    await user.click(await screen.findByRole("option", { name: "Identity verification" }));
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    expect(await screen.findByText("No lookups match these filters.")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(await screen.findByText("Export Started")).toBeInTheDocument();
    const csv = requests.filter((r) => r.url.includes("format=csv"));
    expect(csv).toHaveLength(1);
    expect(csv[0]?.url).toBe("/api/person/audit?format=csv&from=2026-02-01&purpose=identity_verification");
    expect(csv[0]?.headers.Authorization).toBe("Bearer tok-1");
    expect(click.mock.contexts.map((a) => (a as HTMLAnchorElement).download)).toEqual(["person-audit-2026-02-11.csv"]);
    expect(await blobs[0]!.text()).toContain("1,2026-02-11T14:05:00Z,dashboard");
  });

  it("says so when the export fails", async () => {
    const { user } = renderAudit({
      [AUDIT]: page([entry()]),
      "GET /api/person/audit?format=csv": { status: 500, body: errorBody("Internal error", { code: "internal" }) },
    });
    await screen.findByTestId("audit-table");
    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    const title = await screen.findByText("Download Failed");
    expect(title.closest("li")).toHaveTextContent("Internal error");
  });

  it("has an empty state", async () => {
    renderAudit({ [AUDIT]: page([]) });
    expect(await screen.findByTestId("audit-empty")).toHaveTextContent("No person lookups yet.");
    expect(screen.queryByRole("button", { name: "Show more" })).not.toBeInTheDocument();
  });

  it("has an error state with Retry", async () => {
    let fail = true;
    const { user } = renderAudit({
      [AUDIT]: () =>
        fail
          ? { status: 500, body: errorBody("Internal error", { code: "internal" }) }
          : { body: { data: [entry()], pagination: { limit: 20, hasMore: false, nextBefore: null } } },
    });
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Internal error");
    fail = false;
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(await screen.findByTestId("audit-table")).toBeInTheDocument();
  });

  it("reads the audit again after a lookup", async () => {
    const { user, requests } = renderAudit(
      {
        [AUDIT]: page([]),
        "POST /api/find-person": { status: 404, body: errorBody("No person found for this name and address", { code: "person_not_found" }) },
      },
      "/person-lookup",
    );
    await user.click(screen.getByRole("tab", { name: "Lookup audit" }));
    await screen.findByTestId("audit-empty");
    await user.click(screen.getByRole("tab", { name: "Lookup" }));
    await user.type(screen.getByLabelText("Full Name"), "Nobody Here");
    await user.type(screen.getByLabelText("City"), "Austin");
    await user.type(screen.getByLabelText("State"), "TX");
    await user.click(screen.getByRole("button", { name: "Search Person (5 Credits)" }));
    await screen.findByTestId("person-not-found");
    await user.click(screen.getByRole("tab", { name: "Lookup audit" }));
    await waitFor(() => expect(auditReads(requests).length).toBeGreaterThanOrEqual(2));
  });
});
