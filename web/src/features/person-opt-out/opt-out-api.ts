import { useMutation } from "@tanstack/react-query";
import { ApiError, apiJson } from "@/lib/api";
import type { OptOutConfirmed, OptOutRequest, OptOutRequested } from "@/lib/types";

// The opt-out, in two steps and without signing in (api/openapi.yaml, tag People):
// POST /api/person/opt-out (personOptOut) asks: if exactly one listing matches the name and address, a confirmation
//   link valid for 24 hours is emailed; the answer's message is the same whatever is listed (a development server
//   also answers the link, `confirmUrl`, when one was made); 400 names the bad fields, 429 limits the asking.
// POST /api/person/opt-out/confirm (personOptOutConfirm) with the link's token removes that one listing and answers
//   which it was; 410 when the link expired or was used, 400 when the token is not one.

export const OPT_OUT_PATH = "/api/person/opt-out";
export const OPT_OUT_CONFIRM_PATH = "/api/person/opt-out/confirm";

export type { OptOutRequest };

export function sendOptOut(payload: OptOutRequest): Promise<OptOutRequested> {
  return apiJson<OptOutRequested>("POST", OPT_OUT_PATH, payload);
}

export function useSendOptOut() {
  return useMutation({ mutationFn: sendOptOut });
}

export function confirmOptOut(token: string): Promise<OptOutConfirmed> {
  return apiJson<OptOutConfirmed>("POST", OPT_OUT_CONFIRM_PATH, { token });
}

export function useConfirmOptOut() {
  return useMutation({ mutationFn: confirmOptOut });
}

/** A confirmation link that can no longer be used: expired or used already (410). */
export function isGone(err: unknown): boolean {
  return err instanceof ApiError && err.status === 410;
}

/** A token that is not one of ours (400). */
export function isBadToken(err: unknown): boolean {
  return err instanceof ApiError && err.status === 400;
}
