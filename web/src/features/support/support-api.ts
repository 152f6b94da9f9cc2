// The dashboard's live chat with the team (issue 27; api/openapi.yaml, tag Support): the office hours and
// the customer's conversation (GET /api/support), a new message (POST /api/support/messages), and the messages that
// arrived since the last one shown (GET /api/support/messages?after=<id>), which the panel polls while it is open.
import { apiJson } from "@/lib/api";
import type { components } from "@/lib/api-types";

export const SUPPORT_PATH = "/api/support";
export const SUPPORT_MESSAGES_PATH = "/api/support/messages";
/** How often the open panel asks for new messages. */
export const SUPPORT_POLL_MS = 3000;
export const SUPPORT_MESSAGE_MAX = 4000;

// The shapes are the contract's (api/openapi.yaml, generated into lib/api-types.ts); every answer is
// {"success": true, "data": ...}.
type Schemas = components["schemas"];
export type SupportMessage = Schemas["SupportMessage"];
export type SupportState = Schemas["SupportPanel"];
export type SupportHours = SupportState["hours"];

export async function fetchSupport(): Promise<SupportState> {
  return (await apiJson<{ data: SupportState }>("GET", SUPPORT_PATH)).data;
}

export function newerUrl(after: number): string {
  return `${SUPPORT_MESSAGES_PATH}?after=${after}`;
}

/** The messages newer than `after`, oldest first. */
export async function fetchNewer(after: number): Promise<SupportMessage[]> {
  return (await apiJson<{ data: SupportMessage[] }>("GET", newerUrl(after))).data;
}

export async function sendMessage(body: string): Promise<SupportMessage> {
  return (await apiJson<{ data: SupportMessage }>("POST", SUPPORT_MESSAGES_PATH, { body })).data;
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
