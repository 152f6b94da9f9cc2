import type { PaymentRecord } from "@/lib/types";

/**
 * A payment's status in the customer's words (Billing's payment history) and the operator's (the console's account
 * page): the API says "succeeded" and "failed", people say "Paid" and "Declined".
 */
export const PAYMENT_STATUS_LABEL: Record<PaymentRecord["status"], string> = {
  succeeded: "Paid",
  pending: "Pending",
  failed: "Declined",
  expired: "Expired",
  cancelled: "Cancelled",
  refunded: "Refunded",
  invoiced: "Invoiced",
};

/** The label of a status, or the status itself when it is one this build does not know. */
export function paymentStatusLabel(status: string): string {
  return (PAYMENT_STATUS_LABEL as Record<string, string>)[status] ?? status;
}
