// The operator console's calls: the /api/admin/* routes of api/openapi.yaml (tag Admin), whose shapes
// `npm run gen:api` generates into lib/api-types.ts. Every route answers 401 without a session and 403
// {"code":"forbidden"} for a signed-in customer; the console shows the latter as its "operators only" state
// (admin-frame.tsx). A success is {"success": true, "data": ...}; a list adds "pagination" (AdminPagination:
// page, limit, total, pages).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { mergeMessages } from "@/features/support/support-api";
import { apiJson } from "@/lib/api";
import type { components, operations } from "@/lib/api-types";

type Schemas = components["schemas"];

export type AccountRow = Schemas["AdminAccountRow"];
export type AccountDetail = Schemas["AdminAccountDetail"];
export type AccountStatus = Schemas["AdminAccount"]["status"];
export type LedgerEntry = Schemas["AdminLedgerRow"];
export type AdminPayment = Schemas["AdminPayment"];
export type AuditRow = Schemas["AdminAuditEntry"];
export type InboxItem = Schemas["SupportInboxItem"];
export type ChatMessage = Schemas["SupportMessage"];
export type AdminConversation = Schemas["SupportConversation"];
export type ContactMessage = Schemas["ContactMessageView"];
export type PersonAuditRow = Schemas["AdminPersonAudit"];
export type OptOutRow = Schemas["AdminOptOut"];
export type Overview = Schemas["AdminOverview"];
export type Pagination = Schemas["AdminPagination"];

/** The 200 answer of an operation of the contract, envelope included. */
type Answer<Op extends keyof operations> = operations[Op]["responses"] extends {
  200: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The payload (`data`) of an operation's 200 answer. */
type Data<Op extends keyof operations> = Answer<Op> extends { data: infer D } ? D : never;

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

/** A list read: the answer as the server sends it, rows in `data` and where they sit in `pagination`. */
function getList<Op extends keyof operations>(url: string): Promise<Answer<Op>> {
  return apiJson<Answer<Op>>("GET", url);
}

/** A read of one thing: the answer's `data`. */
async function getOne<Op extends keyof operations>(url: string): Promise<Data<Op>> {
  return (await apiJson<{ data: Data<Op> }>("GET", url)).data;
}

/** An action: the answer's `data`. */
async function post<Op extends keyof operations>(url: string, body?: unknown): Promise<Data<Op>> {
  return (await apiJson<{ data: Data<Op> }>("POST", url, body ?? {})).data;
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
/** A conversation; with `after` (a message id), only the messages after that one (0: all). */
export const conversationUrl = (id: number, after = 0) => `${ADMIN}/support/conversations/${id}${query({ after: after || null })}`;
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
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getList<"adminAccounts">(url), placeholderData: keepPreviousData });
}

export function useAccount(id: string) {
  const url = accountUrl(id);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getOne<"adminAccount">(url), staleTime: 0 });
}

export function useAudit(accountId: string, page: number) {
  const url = auditUrl(accountId, page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getList<"adminAudit">(url), placeholderData: keepPreviousData });
}

/** How often the inbox is read again while the tab is visible (TanStack pauses the interval in a hidden tab). */
export const INBOX_POLL_MS = 5000;

export function useInbox(status: string, page: number) {
  const url = inboxUrl(status, page);
  return useQuery({
    queryKey: [ADMIN_KEY, url],
    queryFn: () => getList<"adminSupportInbox">(url),
    placeholderData: keepPreviousData,
    refetchInterval: INBOX_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

/**
 * The conversation with the messages read so far. The first read brings them all (the newest 500); every later one
 * (the 5 s poll, the refresh after a reply) asks only for the messages after the last one held (`?after=<id>`) and
 * appends them to the thread, so a poll carries the conversation's status and what is new, not the whole thread
 * again (issue 36, M-3).
 */
export function useConversation(id: number | null) {
  const client = useQueryClient();
  const url = id === null ? "" : conversationUrl(id);
  const queryKey = [ADMIN_KEY, url];
  return useQuery({
    queryKey,
    queryFn: async () => {
      const held = client.getQueryData<AdminConversation>(queryKey);
      const last = held?.messages.at(-1)?.id ?? 0;
      const c = await getOne<"adminSupportConversation">(conversationUrl(id ?? 0, last));
      return held ? { ...c, messages: mergeMessages(held.messages, c.messages) } : c;
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
    queryFn: () => getOne<"adminContactMessage">(url),
    enabled: id !== null,
    staleTime: 0,
  });
}

export function usePersonAudits(filters: AuditFilters, page: number) {
  const url = personAuditsUrl(filters, page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getList<"adminPersonAudits">(url), placeholderData: keepPreviousData });
}

export function useOptOuts(page: number) {
  const url = optOutsUrl(page);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getList<"adminOptOuts">(url), placeholderData: keepPreviousData });
}

export function useOverview(days: number) {
  const url = overviewUrl(days);
  return useQuery({ queryKey: [ADMIN_KEY, url], queryFn: () => getOne<"adminOverview">(url), placeholderData: keepPreviousData });
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
  return useAdminAction((v: Schemas["AdminCreditRequest"]) => post<"adminAdjustCredits">(`${accountUrl(accountId)}/credits`, v));
}

export function useRefund(accountId: number) {
  return useAdminAction((v: { paymentId: number } & Schemas["AdminReasonRequest"]) =>
    post<"adminRefundPayment">(`${accountUrl(accountId)}/payments/${v.paymentId}/refund`, { reason: v.reason }),
  );
}

/** Suspend, reinstate or close: each answers the account after the change. */
export function useAccountAction(accountId: number) {
  return useAdminAction((v: { action: AccountAction } & Schemas["AdminReasonRequest"]) =>
    post<"adminSuspendAccount">(`${accountUrl(accountId)}/${v.action}`, { reason: v.reason }),
  );
}

export function useReply(conversationId: number) {
  return useAdminAction((v: Schemas["SupportBodyRequest"]) => post<"adminSupportReply">(`${conversationUrl(conversationId)}/reply`, v));
}

export function useAssign(conversationId: number) {
  return useAdminAction(() => post<"adminSupportAssign">(`${conversationUrl(conversationId)}/assign`));
}

/** Closes a conversation (answering it) or a contact-form message (answering the message). */
export function useCloseItem(item: { type: InboxItem["type"]; id: number }) {
  return useAdminAction<void, AdminConversation | ContactMessage>(() =>
    item.type === "conversation"
      ? post<"adminSupportClose">(`${conversationUrl(item.id)}/close`)
      : post<"adminContactClose">(`${contactUrl(item.id)}/close`),
  );
}
