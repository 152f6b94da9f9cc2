// The dashboard's live chat with the team (issue 27; api/openapi.yaml, tag Support): the office hours and
// the customer's conversation (GET /api/support), a new message (POST /api/support/messages), and the messages that
// arrived since the last one shown (GET /api/support/messages?after=<id>), which the panel polls while it is open.
import { apiJson } from "@/lib/api";

export const SUPPORT_PATH = "/api/support";
export const SUPPORT_MESSAGES_PATH = "/api/support/messages";
/** How often the open panel asks for new messages. */
export const SUPPORT_POLL_MS = 3000;
export const SUPPORT_MESSAGE_MAX = 4000;

export interface SupportMessage {
  id: number;
  from: "customer" | "team";
  authorName: string;
  body: string;
  createdAt: string;
}

export interface SupportHours {
  /** "Mon–Fri 9 AM–6 PM PT". */
  text: string;
  open: boolean;
  /** When the team is next in, while it is out; null while it is in. */
  nextOpen: string | null;
}

export interface SupportState {
  hours: SupportHours;
  conversation: { id: number; status: "open" | "closed"; messages: SupportMessage[] } | null;
}

/** The payload of an answer with or without the contract's {"success", "data"} envelope. */
function unwrap<T>(body: unknown): T {
  if (body && typeof body === "object" && !Array.isArray(body) && "data" in body) return (body as { data: T }).data;
  return body as T;
}

export async function fetchSupport(): Promise<SupportState> {
  return unwrap<SupportState>(await apiJson<unknown>("GET", SUPPORT_PATH));
}

export function newerUrl(after: number): string {
  return `${SUPPORT_MESSAGES_PATH}?after=${after}`;
}

/** The messages newer than `after` (a list, bare or under data/messages). */
export async function fetchNewer(after: number): Promise<SupportMessage[]> {
  const body = unwrap<unknown>(await apiJson<unknown>("GET", newerUrl(after)));
  if (Array.isArray(body)) return body as SupportMessage[];
  const messages = (body as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) ? (messages as SupportMessage[]) : [];
}

export async function sendMessage(body: string): Promise<SupportMessage> {
  return unwrap<SupportMessage>(await apiJson<unknown>("POST", SUPPORT_MESSAGES_PATH, { body }));
}

/** The two lists merged by id (a message polled twice, or both sent and polled, shows once), oldest first. */
export function mergeMessages(a: readonly SupportMessage[], b: readonly SupportMessage[]): SupportMessage[] {
  const byId = new Map<number, SupportMessage>();
  for (const m of [...a, ...b]) byId.set(m.id, m);
  return [...byId.values()].sort((x, y) => x.id - y.id);
}

const nextOpenFormat = new Intl.DateTimeFormat("en-US", {
  weekday: "short",
  hour: "numeric",
  minute: "2-digit",
  timeZone: "America/Los_Angeles",
});

/**
 * When the team is next in, as the office hours are written: "Mon 9 AM PT" (minutes only when not on the hour).
 * The hours are Pacific (VALUATOR_SUPPORT_HOURS' default zone, America/Los_Angeles).
 */
export function formatNextOpen(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${nextOpenFormat.format(d).replace(":00", "").replace(/\u202f/g, " ")} PT`;
}

/** The line saying, truthfully, whether someone is there now and when they reply if not. */
export function availability(hours: SupportHours): string {
  if (hours.open) return "We're online now";
  if (hours.nextOpen) return `We're offline; we reply from ${formatNextOpen(hours.nextOpen)} and by email`;
  return "We're offline; we reply in office hours and by email";
}
