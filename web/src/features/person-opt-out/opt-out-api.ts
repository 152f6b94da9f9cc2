import { useMutation } from "@tanstack/react-query";
import { apiJson } from "@/lib/api";
import type { components } from "@/lib/api-types";
import type { Message } from "@/lib/types";

// POST /api/person/opt-out (api/openapi.yaml, operation personOptOut): no sign-in needed; answers 200 with a
// message (the same whether or not a record existed), 400 with `field`/`fields` naming the bad fields, or 429.

export type OptOutRequest = Omit<components["schemas"]["PersonQuery"], "purpose">;

export function sendOptOut(payload: OptOutRequest): Promise<Message> {
  return apiJson<Message>("POST", "/api/person/opt-out", payload);
}

export function useSendOptOut() {
  return useMutation({ mutationFn: sendOptOut });
}
