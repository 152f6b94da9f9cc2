import { useMutation } from "@tanstack/react-query";
import { ApiError, apiJson } from "@/lib/api";
import type { UnsubscribeResult } from "@/lib/types";

// POST /api/unsubscribe (api/openapi.yaml, operation unsubscribe): no sign-in; the token of an email's unsubscribe
// link turns off the one switch it names. 400 (naming `token`) when the token is missing, malformed or altered.

export const UNSUBSCRIBE_PATH = "/api/unsubscribe";

export function unsubscribe(token: string): Promise<UnsubscribeResult> {
  return apiJson<UnsubscribeResult>("POST", UNSUBSCRIBE_PATH, { token });
}

export function useUnsubscribe() {
  return useMutation({ mutationFn: unsubscribe });
}

/** A token the server refused as not one of its own (400). */
export function isBadToken(err: unknown): boolean {
  return err instanceof ApiError && err.status === 400;
}

export type Topic = UnsubscribeResult["switch"];

/** What each switch sends, as Settings names it. */
export const TOPICS: Record<Topic, { label: string; emails: string }> = {
  emailNotifications: {
    label: "Email notifications",
    emails:
      "batch job results and billing notices (a refund, a declined renewal, a scheduled downgrade or " +
      "cancellation, each month's credits; receipts for payments and sign-in alerts are always sent)",
  },
  usageAlerts: {
    label: "Low balance alerts",
    emails: "low balance alerts (under 50 credits, overage started, 80% of your overage limit used)",
  },
  weeklyReports: {
    label: "Weekly usage report",
    emails: "the weekly usage report sent on Mondays",
  },
};

/**
 * The switch a token names, read from its readable part ("u1.<account>.<switch>.<signature>"), or null when the
 * link is not an unsubscribe link at all. Only the server can tell whether the signature holds.
 */
export function tokenTopic(token: string): Topic | null {
  const [version, account, topic, signature, ...rest] = token.split(".");
  if (version !== "u1" || !account || !/^[1-9]\d*$/.test(account) || !topic || !signature || rest.length > 0) return null;
  return Object.hasOwn(TOPICS, topic) ? (topic as Topic) : null;
}
