import { useState, type MouseEvent } from "react";
import { Download } from "lucide-react";
import { Badge, type BadgeProps } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { saveBlobFile } from "@/lib/csv";
import { formatMoney } from "@/lib/money";
import { paymentStatusLabel } from "@/lib/payment-status";
import type { PaymentRecord, PlanInfo } from "@/lib/types";
import { formatDate, formatDateTime, planName } from "../billing-helpers";
import { fetchReceipt, usePayments } from "../api/billing-api";
import { LoadError } from "./load-error";

const VARIANT: Record<PaymentRecord["status"], BadgeProps["variant"]> = {
  succeeded: "success",
  pending: "warning",
  failed: "destructive",
  expired: "outline",
  cancelled: "secondary",
  refunded: "outline",
  invoiced: "secondary",
};

/** The statuses whose failureMessage (the provider's decline, or why the payment was closed) is worth reading. */
const EXPLAINED: readonly PaymentRecord["status"][] = ["failed", "cancelled", "expired"];

const COLUMNS = ["Date", "Description", "Plan", "Amount", "Status", "Receipt"] as const;

/**
 * Payment history and invoices: every payment, newest first, with its status; a receipt only where money moved
 * (the server gives a receiptUrl for paid and refunded payments only). A receipt is read with the session (the
 * same-origin GET needs the bearer header), then saved as a file, as batch results are.
 */
export function PaymentHistoryCard({ plans }: { plans: readonly PlanInfo[] }) {
  const payments = usePayments();
  const [downloading, setDownloading] = useState<number | null>(null);
  const rows = payments.data?.pages.flatMap((p) => p.data) ?? [];

  const onReceipt = async (e: MouseEvent<HTMLAnchorElement>, payment: PaymentRecord & { receiptUrl: string }) => {
    e.preventDefault();
    if (downloading !== null) return;
    setDownloading(payment.id);
    try {
      const file = await fetchReceipt(payment);
      saveBlobFile(file.blob, file.fileName);
      toast({ title: "Download Started", description: `Saved as ${file.fileName}` });
    } catch (err) {
      toast({
        variant: "destructive",
        title: "Download Failed",
        description: errorMessage(err, "Failed to download the receipt. Please try again."),
      });
    } finally {
      setDownloading(null);
    }
  };

  return (
    <Card data-testid="payment-history" className="min-w-0">
      <CardHeader>
        <CardTitle className="text-lg">Payment History &amp; Invoices</CardTitle>
        <CardDescription>Every payment for your plan and overage, with a receipt for each one paid.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {payments.isPending ? (
          <div className="flex justify-center py-6">
            <Spinner label="Loading payments" />
          </div>
        ) : payments.isError && rows.length === 0 ? (
          <LoadError
            message={errorMessage(payments.error, "Failed to load the payment history.")}
            onRetry={() => void payments.refetch()}
            busy={payments.isFetching}
          />
        ) : rows.length === 0 ? (
          <p className="py-6 text-center text-sm text-muted-foreground">No payments yet.</p>
        ) : (
          // A table on wider screens; below the sm breakpoint each payment stacks into three short lines, so nothing
          // needs a sideways scroll at phone width.
          <div className="rounded-md border">
            <table className="w-full text-sm" data-testid="payments-table">
              <caption className="sr-only">Payment history</caption>
              <thead className="hidden sm:table-header-group">
                <tr className="border-b bg-muted/40 text-left">
                  {COLUMNS.map((c) => (
                    <th
                      key={c}
                      scope="col"
                      className={`h-10 px-3 font-medium text-muted-foreground ${c === "Amount" || c === "Receipt" ? "text-right" : ""}`}
                    >
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => {
                  const status = { label: paymentStatusLabel(p.status), variant: VARIANT[p.status] ?? "secondary" };
                  const receiptUrl = p.receiptUrl;
                  return (
                    <tr
                      key={p.id}
                      className="grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-3 gap-y-1 border-b px-3 py-2 last:border-0 sm:table-row sm:p-0 sm:align-top"
                      data-testid="payment-row"
                    >
                      <td className="order-3 whitespace-nowrap text-xs text-muted-foreground sm:px-3 sm:py-2 sm:text-sm">
                        <time dateTime={p.createdAt}>{formatDate(p.createdAt)}</time>
                      </td>
                      <td className="order-1 break-words sm:px-3 sm:py-2">
                        {p.description}
                        {EXPLAINED.includes(p.status) && p.failureMessage ? (
                          <p className={p.status === "failed" ? "text-xs text-destructive" : "text-xs text-muted-foreground"}>{p.failureMessage}</p>
                        ) : null}
                        {p.status === "pending" && p.expiresAt ? (
                          <p className="text-xs text-muted-foreground">
                            {"Awaiting payment; expires "}
                            <time dateTime={p.expiresAt}>{formatDateTime(p.expiresAt)}</time>
                          </p>
                        ) : null}
                      </td>
                      <td className="order-5 whitespace-nowrap text-xs text-muted-foreground sm:px-3 sm:py-2 sm:text-sm sm:text-foreground">
                        <span className="sm:hidden">Plan: </span>
                        {planName(p.planType, plans)}
                      </td>
                      <td className="order-2 whitespace-nowrap text-right font-medium tabular-nums sm:px-3 sm:py-2 sm:font-normal">
                        {formatMoney(p.amountCents)}
                      </td>
                      <td className="order-4 text-right sm:px-3 sm:py-2 sm:text-left">
                        <Badge variant={status.variant}>{status.label}</Badge>
                      </td>
                      <td className="order-6 whitespace-nowrap text-right sm:px-3 sm:py-2">
                        {receiptUrl ? (
                          <a
                            href={receiptUrl}
                            onClick={(e) => void onReceipt(e, { ...p, receiptUrl })}
                            aria-disabled={downloading !== null || undefined}
                            className="inline-flex items-center gap-1 font-medium text-primary underline-offset-4 hover:underline"
                            title={`Download the receipt of ${p.description}`}
                          >
                            {downloading === p.id ? <Spinner className="h-3.5 w-3.5" label="Downloading" /> : <Download className="h-3.5 w-3.5" aria-hidden="true" />}
                            Receipt
                          </a>
                        ) : (
                          <>
                            <span className="text-muted-foreground" aria-hidden="true">
                              —
                            </span>
                            <span className="sr-only">No receipt</span>
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        {payments.hasNextPage ? (
          <div className="flex justify-center">
            <Button type="button" variant="outline" disabled={payments.isFetchingNextPage} onClick={() => void payments.fetchNextPage()}>
              {payments.isFetchingNextPage ? "Loading..." : "Show more payments"}
            </Button>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}
