// The operator console's calls (issue 27; the contract is /tmp/issue27/api.md, written before the server side, so the
// shapes live here until api/openapi.yaml describes them and `npm run gen:api` can replace them). Every /api/admin/*
// route answers 401 without a session and 403 {"code":"forbidden"} for a signed-in customer; the console shows the
// latter as its "operators only" state (admin-frame.tsx).
//
// The contract wraps answers as {"success": true, "data": ...} (lists add "pagination"); the server's existing routes
// answer the bare object. unwrap() reads either, so the console does not depend on which way the server goes.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiJson } from "@/lib/api";
import type { Balance } from "@/lib/balance";

export type AccountStatus = "active" | "suspended" | "closed";
export type Plan = "free" | "basic" | "professional" | "enterprise";

/** A page of a list: its rows and where it sits (the contract's "pages"; the existing API's "totalPages"). */
export interface Paged<T> {
  rows: T[];
  page: number;
  pages: number;
  total: number;
}

export interface AccountRow {
  id: number;
  email: string;
  fullName: string;
  company: string;
  plan: Plan | string;
  status: AccountStatus;
  /** Credits, or the split balance object (the contract does not say which); both are shown. */
  balance: number | Balance;
  createdAt: string;
}

export interface AccountDetail {
  account: {
    id: number;
    email: string;
    fullName: string;
    company: string;
    plan: Plan | string;
    role: "customer" | "admin" | string;
    status: AccountStatus;
    suspendedAt: string | null;
    suspendReason: string | null;
    createdAt: string;
    closedAt: string | null;
  };
  balance: Balance;
  ledger: LedgerEntry[];
  payments: AdminPayment[];
  keys: AdminKey[];
  usage: {
    callsThisMonth: number;
    creditsThisMonth: number;
    recent: { requestId: string; endpoint: string; status: number | string; credits: number; createdAt: string }[];
  };
  batchJobs: AdminBatchJob[];
  personLookups: { id: number; purpose: string; outcome: "hit" | "miss"; credits: number; createdAt: string }[];
}

export interface LedgerEntry {
  id: number;
  amount: number;
  balanceAfter: number;
  kind: string;
  description: string;
  reference: string | null;
  createdAt: string;
}

export interface AdminPayment {
  id: number;
  kind: string;
  plan: string | null;
  amountCents: number;
  credits: number;
  status: string;
  description: string;
  createdAt: string;
  refundable: boolean;
}

export interface AdminKey {
  id: number;
  name: string;
  preview: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface AdminBatchJob {
  id: number;
  fileName: string;
  status: string;
  totalRows: number;
  processedRows: number;
  failedRows: number;
  createdAt: string;
  /** Held while the account is suspended; it resumes on reinstatement. */
  held?: boolean;
}

export interface AuditRow {
  id: number;
  /** null for a role change made on the command line (`valuator admin add|remove`). */
  adminId: number | null;
  adminEmail: string | null;
  action: string;
  accountId: number | null;
  accountEmail: string | null;
  reason: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: string;
}

export interface InboxItem {
  type: "conversation" | "contact";
  id: number;
  accountId: number | null;
  email: string;
  name: string;
  /** A contact message's subject; null for a chat. */
  subject?: string | null;
  /** The latest message, or the contact message, cut to 140 characters. */
  preview?: string | null;
  status: string;
  unread: boolean;
  assignee: { id: number; email: string } | null;
  updatedAt: string;
}

export interface ChatMessage {
  id: number;
  from: "customer" | "team";
  authorName: string;
  body: string;
  createdAt: string;
}

export interface AdminConversation {
  id: number;
  accountId: number | null;
  email?: string;
  name?: string;
  status: string;
  assignee?: { id: number; email: string } | null;
  messages: ChatMessage[];
}

export interface ContactMessage {
  id: number;
  accountId?: number | null;
  firstName?: string;
  lastName?: string;
  name?: string;
  email?: string;
  company?: string;
  subject?: string;
  message?: string;
  body?: string;
  status?: string;
  createdAt?: string;
}

export interface PersonAuditRow {
  id: number;
  accountId: number;
  accountEmail: string;
  keyName: string | null;
  purpose: string;
  query: string | Record<string, unknown>;
  outcome: "hit" | "miss";
  /** The stored outcome behind hit/miss: found, not_found, invalid, insufficient_credits, rate_limited, error. */
  result?: string;
  credits: number;
  requestId: string;
  createdAt: string;
  flagged: boolean;
}

/** One row of the opt-out log. The contract names its content only ("request, confirmation, which listing"). */
export type OptOutRow = Record<string, unknown> & { id: number | string };

export interface Overview {
  payingByPlan: { basic: number; professional: number; enterprise: number };
  mrrCents: number;
  signupsPerDay: { date: string; count: number }[];
  callsPerDay: { date: string; count: number }[];
  creditsSold: number;
  creditsUsed: number;
  overageBilledCents: number;
  failingJobs: {
    id: number;
    accountId: number;
    accountEmail: string;
    fileName: string;
    failedRows: number;
    status: string;
    createdAt: string;
  }[];
}

// ---- Reading answers -------------------------------------------------------------------------------------------

/** The payload of an answer, with or without the {"success", "data"} envelope. */
export function unwrap<T>(body: unknown): T {
  if (body && typeof body === "object" && !Array.isArray(body) && "data" in body) {
    const b = body as { data: unknown; success?: unknown; pagination?: unknown };
    if ("success" in b || "pagination" in b || Object.keys(b).length === 1) return b.data as T;
  }
  return body as T;
}

/** A list answer as rows and paging; a bare array (or a missing pagination) reads as one page. */
export function toPaged<T>(body: unknown): Paged<T> {
  const rows = unwrap<unknown>(body);
  const list = Array.isArray(rows) ? (rows as T[]) : [];
  const p = (body && typeof body === "object" ? (body as { pagination?: Record<string, unknown> }).pagination : undefined) ?? {};
  const num = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) ? v : fallback);
  const page = num(p.page, 1);
  const total = num(p.total, list.length);
  const pages = Math.max(num(p.pages, num(p.totalPages, 1)), 1);
  return { rows: list, page, pages, total };
}

/** A query string of the parameters that have a value, in order (empty ones are left out). */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "" || v === false) continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

async function getPaged<T>(url: string): Promise<Paged<T>> {
  return toPaged<T>(await apiJson<unknown>("GET", url));
}

async function getOne<T>(url: string): Promise<T> {
  return unwrap<T>(await apiJson<unknown>("GET", url));
}

async function post<T>(url: string, body?: unknown): Promise<T> {
  return unwrap<T>(await apiJson<unknown>("POST", url, body ?? {}));
}

// ---- Paths -------------------------------------------------------------------------------------------------------

export const ADMIN = "/api/admin";
export const PAGE_SIZE = 25;

export const accountsUrl = (q: string, page: number) =>
  `${ADMIN}/accounts${query({ q: q.trim(), page, limit: PAGE_SIZE })}`;
export const accountUrl = (id: string | number) => `${ADMIN}/accounts/${encodeURIComponent(String(id))}`;
export const auditUrl = (accountId: string, page: number) =>
  `${ADMIN}/audit${query({ accountId: accountId.trim(), page, limit: PAGE_SIZE })}`;
export const inboxUrl = (status: string, page: number) => `${ADMIN}/support${query({ status, page })}`;
export const conversationUrl = (id: number) => `${ADMIN}/support/conversations/${id}`;
export const contactUrl = (id: number) => `${ADMIN}/support/contact/${id}`;
export const overviewUrl = (days: number) => `${ADMIN}/overview${query({ days })}`;
export const optOutsUrl = (page: number) => `${ADMIN}/opt-outs${query({ page })}`;

export interface AuditFilters {
  accountId: string;
  purpose: string;
  outcome: "" | "hit" | "miss";
  flagged: boolean;
  from: string;
  to: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = { accountId: "", purpose: "", outcome: "", flagged: false, from: "", to: "" };

export const personAuditsUrl = (f: AuditFilters, page: number) =>
  `${ADMIN}/person-audits${query({
    accountId: f.accountId.trim(),
    purpose: f.purpose,
    outcome: f.outcome,
    flagged: f.flagged ? "true" : "",
    from: f.from,
    to: f.to,
    page,
  })}`;

// ---- Hooks -------------------------------------------------------------------------------------------------------

/** Every admin read sits under this key, so an action can refresh the figures it changed. */
export const ADMIN_KEY = "admin";

export function useAccounts(q: string, page: number) {
  const url = accountsUrl(q, page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getPaged<AccountRow>(url), placeholderData: keepPreviousData });
}

export function useAccount(id: string) {
  const url = accountUrl(id);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getOne<AccountDetail>(url), staleTime: 0 });
}

export function useAudit(accountId: string, page: number) {
  const url = auditUrl(accountId, page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getPaged<AuditRow>(url), placeholderData: keepPreviousData });
}

/** How often the inbox is read again while the tab is visible (TanStack pauses the interval in a hidden tab). */
export const INBOX_POLL_MS = 5000;

export function useInbox(status: string, page: number) {
  const url = inboxUrl(status, page);
  return useQuery({
    queryKey: [ADMIN_KEY, url],
    queryFn: () => getPaged<InboxItem>(url),
    placeholderData: keepPreviousData,
    refetchInterval: INBOX_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useConversation(id: number | null) {
  const url = id === null ? "" : conversationUrl(id);
  return useQuery({
    queryKey: [ADMIN_KEY, url],
    queryFn: async () => {
      const body = await getOne<AdminConversation | { conversation: AdminConversation }>(url);
      return "conversation" in body ? body.conversation : body;
    },
    enabled: id !== null,
    staleTime: 0,
    refetchInterval: INBOX_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

export function useContactMessage(id: number | null) {
  const url = id === null ? "" : contactUrl(id);
  return useQuery({
    queryKey: [ADMIN_KEY, url],
    queryFn: async () => {
      const body = await getOne<ContactMessage | { message: ContactMessage } | { contact: ContactMessage }>(url);
      if ("contact" in body && body.contact && typeof body.contact === "object") return body.contact;
      if ("message" in body && body.message && typeof body.message === "object") return body.message;
      return body as ContactMessage;
    },
    enabled: id !== null,
    staleTime: 0,
  });
}

export function usePersonAudits(filters: AuditFilters, page: number) {
  const url = personAuditsUrl(filters, page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getPaged<PersonAuditRow>(url), placeholderData: keepPreviousData });
}

export function useOptOuts(page: number) {
  const url = optOutsUrl(page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getPaged<OptOutRow>(url), placeholderData: keepPreviousData });
}

export function useOverview(days: number) {
  const url = overviewUrl(days);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getOne<Overview>(url), placeholderData: keepPreviousData });
}

/** A POST of the console; on success every admin read is marked stale and the ones on screen are read again. */
function useAdminAction<V, R>(send: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => client.invalidateQueries({ queryKey: [ADMIN_KEY] }),
  });
}

export type AccountAction = "suspend" | "reinstate" | "close";

export function useAdjustCredits(accountId: number) {
  return useAdminAction((v: { amount: number; reason: string }) =>
    post<{ balance: Balance; entry: LedgerEntry }>(`${accountUrl(accountId)}/credits`, v),
  );
}

export function useRefund(accountId: number) {
  return useAdminAction((v: { paymentId: number; reason: string }) =>
    post<{ payment: AdminPayment; balance: Balance }>(`${accountUrl(accountId)}/payments/${v.paymentId}/refund`, {
      reason: v.reason,
    }),
  );
}

export function useAccountAction(accountId: number) {
  return useAdminAction((v: { action: AccountAction; reason: string }) =>
    post<unknown>(`${accountUrl(accountId)}/${v.action}`, { reason: v.reason }),
  );
}

export function useReply(conversationId: number) {
  return useAdminAction((v: { body: string }) => post<ChatMessage>(`${conversationUrl(conversationId)}/reply`, v));
}

export function useAssign(conversationId: number) {
  return useAdminAction(() => post<unknown>(`${conversationUrl(conversationId)}/assign`));
}

export function useCloseItem(item: { type: "conversation" | "contact"; id: number }) {
  return useAdminAction(() =>
    post<unknown>(`${item.type === "conversation" ? conversationUrl(item.id) : contactUrl(item.id)}/close`),
  );
}
