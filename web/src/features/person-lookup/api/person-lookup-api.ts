import { useMutation } from "@tanstack/react-query";
import { ApiError, apiJson } from "@/lib/api";
import type { FindPersonRequest, FindPersonResponse } from "../person-types";

// POST /api/find-person (session auth): answers {data: PersonResult, meta}; 400 names the bad fields (a name needs a
// full first name and a last name), 402 says the balance, 404 means no one matched (not charged, DESIGN section 5),
// 429 that the account's request budget is spent or it made too many misses (the message says when to retry).

export const FIND_PERSON_PATH = "/api/find-person";

/** What a person lookup costs (spec section 9; DESIGN section 5): only a hit is charged. */
export const PERSON_LOOKUP_CREDITS = 5;

export function findPerson(body: FindPersonRequest): Promise<FindPersonResponse> {
  return apiJson<FindPersonResponse>("POST", FIND_PERSON_PATH, body);
}

export function useFindPerson() {
  return useMutation({ mutationFn: findPerson });
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}

export function isRateLimited(err: unknown): boolean {
  return err instanceof ApiError && err.status === 429;
}
