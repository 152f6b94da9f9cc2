import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { errorMessage } from "@/lib/api";
import { cn } from "@/lib/utils";
import { formatDate, formatNumber, formatSignedCredits } from "../billing-helpers";
import { useCreditHistory } from "../api/billing-api";
import { LoadError } from "./load-error";

/**
 * Credit history (spec: the first 10 entries): every change of the balance, newest first, with 'Show more' for the
 * next 10. On a narrow screen the table scrolls inside its own box.
 */
export function CreditHistoryCard() {
  const history = useCreditHistory();
  const entries = history.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <Card data-testid="credit-history" className="min-w-0">
      <CardHeader>
        <CardTitle className="text-lg">Credit History</CardTitle>
        <CardDescription>Every credit granted and spent, newest first.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {history.isPending ? (
          <div className="flex justify-center py-6">
            <Spinner label="Loading credit history" />
          </div>
        ) : history.isError && entries.length === 0 ? (
          <LoadError message={errorMessage(history.error, "Failed to load the credit history.")} onRetry={() => void history.refetch()} busy={history.isFetching} />
        ) : entries.length === 0 ? (
          <p className="py-6 text-center text-sm text-muted-foreground">No credit activity yet.</p>
        ) : (
          // A table on wider screens; below the sm breakpoint each row stacks into two lines (description and
          // amount, then date and balance), so nothing needs a sideways scroll at phone width.
          <div className="rounded-md border">
            <table className="w-full text-sm" data-testid="credit-history-table">
              <caption className="sr-only">Credit history</caption>
              <thead className="hidden sm:table-header-group">
                <tr className="border-b bg-muted/40 text-left">
                  <th scope="col" className="h-10 px-3 font-medium text-muted-foreground">
                    Date
                  </th>
                  <th scope="col" className="h-10 px-3 font-medium text-muted-foreground">
                    Description
                  </th>
                  <th scope="col" className="h-10 px-3 text-right font-medium text-muted-foreground">
                    Amount
                  </th>
                  <th scope="col" className="h-10 px-3 text-right font-medium text-muted-foreground">
                    Balance
                  </th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr
                    key={e.id}
                    className="grid grid-cols-[minmax(0,1fr)_auto] gap-x-3 gap-y-0.5 border-b px-3 py-2 last:border-0 sm:table-row sm:p-0"
                    data-testid="credit-row"
                  >
                    <td className="order-3 whitespace-nowrap text-xs text-muted-foreground sm:px-3 sm:py-2 sm:text-sm">
                      <time dateTime={e.createdAt}>{formatDate(e.createdAt)}</time>
                    </td>
                    <td className="order-1 break-words sm:px-3 sm:py-2">{e.description}</td>
                    <td
                      className={cn(
                        "order-2 whitespace-nowrap text-right font-medium tabular-nums sm:px-3 sm:py-2",
                        e.amount > 0 ? "text-green-700" : e.amount < 0 ? "text-red-600" : undefined,
                      )}
                      data-testid="credit-amount"
                    >
                      {formatSignedCredits(e.amount)}
                    </td>
                    <td className="order-4 whitespace-nowrap text-right text-xs tabular-nums text-muted-foreground sm:px-3 sm:py-2 sm:text-sm sm:text-foreground">
                      <span className="sm:hidden">Balance </span>
                      {formatNumber(e.balance)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {history.hasNextPage ? (
          <div className="flex justify-center">
            <Button type="button" variant="outline" disabled={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
              {history.isFetchingNextPage ? "Loading..." : "Show more"}
            </Button>
          </div>
        ) : null}
        {history.isFetchNextPageError ? (
          <p role="alert" className="text-center text-sm text-destructive">
            {errorMessage(history.error, "Failed to load more entries.")}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
