import { useMutation } from "@tanstack/react-query";
import { apiJson } from "@/lib/api";
import type { ContactReceipt, ContactRequest } from "@/lib/types";

// POST /api/contact (api/openapi.yaml, operation sendContactMessage): no sign-in needed; answers 201 with a
// receipt, or 400 with `fields` naming every bad field.

export function sendContactMessage(payload: ContactRequest): Promise<ContactReceipt> {
  return apiJson<ContactReceipt>("POST", "/api/contact", payload);
}

export function useSendContactMessage() {
  return useMutation({ mutationFn: sendContactMessage });
}
