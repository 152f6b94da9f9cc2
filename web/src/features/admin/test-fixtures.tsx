// Answers of the admin API in the contract's shapes (api/openapi.yaml, tag Admin) and a console page rendered as an
// operator.
import type { ReactElement } from "react";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { vi } from "vitest";
import type { User } from "@/lib/types";
import { makeBalance, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import type { AccountDetail, AccountRow, AuditRow, InboxItem, Overview, Pagination, PersonAuditRow } from "./admin-api";

export const OPERATOR = { ...makeUser({ id: 1, email: "admin@valuator.dev", fullName: "Ada Admin" }), role: "admin" } as User;
export const CUSTOMER = { ...makeUser(), role: "customer" } as User;

/** The contract's answer of a list: the rows and their pagination. */
export function list<T>(data: T[], page = 1, pages = 1, total = data.length): { success: true; data: T[]; pagination: Pagination } {
  return { success: true, data, pagination: { page, limit: 25, total, pages } };
}

/** The contract's answer of one thing. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

export function makeAccountRow(overrides: Partial<AccountRow> = {}): AccountRow {
  return {
    id: 42,
    email: "jane@example.com",
    fullName: "Jane Doe",
    company: "Acme Realty",
    plan: "basic",
    status: "active",
    balance: makeBalance({ planType: "basic", credits: 1200 }),
    createdAt: "2026-01-21T10:00:00Z",
    ...overrides,
  };
}

export function makeAccountDetail(overrides: Partial<AccountDetail> = {}, account: Partial<AccountDetail["account"]> = {}): AccountDetail {
  return {
    account: {
      id: 42,
      email: "jane@example.com",
      fullName: "Jane Doe",
      company: "Acme Realty",
      plan: "basic",
      role: "customer",
      status: "active",
      suspendedAt: null,
      suspendReason: null,
      createdAt: "2026-01-21T10:00:00Z",
      closedAt: null,
      ...account,
    },
    balance: makeBalance({ planType: "basic", credits: 1200 }),
    ledger: [
      { id: 901, amount: 1000, balanceAfter: 1200, kind: "plan_credits", description: "Basic plan credits", reference: "pay_7", createdAt: "2026-02-01T09:00:00Z" },
      { id: 900, amount: 200, balanceAfter: 200, kind: "signup_bonus", description: "Welcome credits", reference: "", createdAt: "2026-01-21T10:00:00Z" },
    ],
    payments: [
      { id: 7, kind: "subscription", plan: "basic", amountCents: 3000, credits: 1000, status: "succeeded", description: "Basic plan, February", createdAt: "2026-02-01T09:00:00Z", refundable: true },
      { id: 6, kind: "subscription", plan: "basic", amountCents: 3000, credits: 1000, status: "failed", description: "Basic plan, declined", createdAt: "2026-01-31T09:00:00Z", refundable: false },
    ],
    keys: [{ id: 3, name: "Production", preview: "vk_live_ab…9f", createdAt: "2026-01-22T10:00:00Z", lastUsedAt: null }],
    usage: {
      callsThisMonth: 321,
      creditsThisMonth: 345,
      recent: [{ requestId: "req-1", endpoint: "/api/v1/property/valuation", status: 200, credits: 1, createdAt: "2026-02-03T10:00:00Z" }],
    },
    batchJobs: [
      { id: 12, fileName: "march.csv", status: "queued", totalRows: 50, processedRows: 0, failedRows: 0, createdAt: "2026-02-03T10:00:00Z", held: true },
      { id: 11, fileName: "portfolio.csv", status: "completed", totalRows: 100, processedRows: 100, failedRows: 2, createdAt: "2026-02-02T10:00:00Z", held: false },
    ],
    personLookups: [{ id: 5, purpose: "identity_verification", outcome: "miss", credits: 0, createdAt: "2026-02-02T11:00:00Z" }],
    ...overrides,
  };
}

export function makeInboxItem(overrides: Partial<InboxItem> = {}): InboxItem {
  return {
    type: "conversation",
    id: 1,
    accountId: 42,
    email: "jane@example.com",
    name: "Jane Doe",
    subject: null,
    preview: "My batch is stuck",
    status: "open",
    unread: false,
    assignee: null,
    updatedAt: "2026-02-03T10:00:00Z",
    ...overrides,
  };
}

export function makeAuditRow(overrides: Partial<AuditRow> = {}): AuditRow {
  return {
    id: 1,
    adminId: 1,
    adminEmail: "admin@valuator.dev",
    action: "credit_adjustment",
    accountId: 42,
    accountEmail: "jane@example.com",
    reason: "Goodwill for the outage",
    before: { balance: 12 },
    after: { balance: 262 },
    createdAt: "2026-02-03T10:00:00Z",
    ...overrides,
  };
}

export function makePersonAudit(overrides: Partial<PersonAuditRow> = {}): PersonAuditRow {
  return {
    id: 1,
    accountId: 42,
    accountEmail: "jane@example.com",
    keyName: null,
    purpose: "identity_verification",
    query: '{"name":"John Smith","street_line_1":"1 Main St","city":"","state_code":"","postal_code":"","purpose":"identity_verification"}',
    outcome: "miss",
    result: "not_found",
    credits: 0,
    requestId: "req-77",
    createdAt: "2026-02-03T10:00:00Z",
    flagged: false,
    ...overrides,
  };
}

export function makeOverview(overrides: Partial<Overview> = {}): Overview {
  return {
    from: "2026-01-04T00:00:00Z",
    to: "2026-02-02T12:00:00Z",
    payingByPlan: { basic: 10, professional: 4, enterprise: 1 },
    mrrCents: 100000,
    signupsPerDay: [
      { date: "2026-02-01", count: 3 },
      { date: "2026-02-02", count: 5 },
    ],
    callsPerDay: [
      { date: "2026-02-01", count: 1200 },
      { date: "2026-02-02", count: 1500 },
    ],
    creditsSold: 15000,
    creditsUsed: 9000,
    overageBilledCents: 4530,
    failingJobs: [
      { id: 11, accountId: 42, accountEmail: "jane@example.com", fileName: "portfolio.csv", failedRows: 20, status: "completed", createdAt: "2026-02-02T10:00:00Z" },
    ],
    ...overrides,
  };
}

/** Renders a console page at `route` (matched by `path`) for `user`, with the fake server's `routes`. */
export async function renderAdmin(
  ui: ReactElement,
  { path, route, routes = {}, user = OPERATOR, fakeTimers = false }: { path: string; route: string; routes?: Record<string, FakeRoute>; user?: User; fakeTimers?: boolean },
) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({ "GET /api/user/profile": { body: user }, ...routes });
  const u = userEvent.setup(fakeTimers ? { advanceTimers: vi.advanceTimersByTime.bind(vi) } : {});
  const view = renderWithProviders(
    <Routes>
      <Route path={path} element={ui} />
    </Routes>,
    { route },
  );
  // The session is read first (the frame shows the page to operators only).
  await screen.findByRole("heading", { level: 1 });
  return { ...view, ...server, user: u };
}

/** The requests to the admin API, as "METHOD url". */
export function adminCalls(requests: { method: string; url: string }[]): string[] {
  return requests.filter((r) => r.url.startsWith("/api/admin")).map((r) => `${r.method} ${r.url}`);
}
