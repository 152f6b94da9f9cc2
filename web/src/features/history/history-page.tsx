import { useEffect, useMemo, useState, type ReactNode } from "react";
import { Link } from "react-router";
import { AlertCircle, History, SearchX } from "lucide-react";
import { PageHeader } from "@/app/shell/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { saveTextFile } from "@/lib/csv";
import type { UsageEntry } from "@/lib/types";
import { useApiKeys, useRetryCall, useUsageHistory } from "./api/history-api";
import { DetailsDialog } from "./components/details-dialog";
import { HistoryFilters } from "./components/history-filters";
import { HistoryPagination } from "./components/history-pagination";
import { HistoryTable } from "./components/history-table";
import {
  formatValuation,
  hasFilters,
  historyCsv,
  historyFileName,
  historyUrl,
  matchesFilters,
  NO_FILTERS,
  retryPlan,
  type HistoryFilters as Filters,
} from "./history-helpers";

// The Request History screen (working-screens spec, section 2): filters applied on the server (across every page)
// and again on the loaded page, the table with details and retry, pagination, and the CSV export of what is shown.

export const FETCH_FAILED = "Failed to fetch usage history";
const LOOKUP_FALLBACK = "Failed to get property valuation";
const PERSON_FALLBACK = "Failed to find the person";
const JOB_FALLBACK = "Failed to retry job";

export function HistoryPage() {
  const { refreshUser } = useAuth();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  // Bumped when the filters are reset from outside the form, so the form starts again from them.
  const [formKey, setFormKey] = useState(0);
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<UsageEntry | null>(null);
  const [retryingId, setRetryingId] = useState<number | null>(null);

  const history = useUsageHistory(page, filters);
  const keys = useApiKeys();
  const retry = useRetryCall();

  const keyNames = useMemo(() => [...new Set((keys.data ?? []).map((k) => k.name))], [keys.data]);
  const rows = useMemo(() => (history.data?.data ?? []).filter((e) => matchesFilters(e, filters)), [history.data, filters]);

  useEffect(() => {
    if (history.isError) toast({ variant: "destructive", title: "Error", description: FETCH_FAILED });
  }, [history.isError, history.errorUpdatedAt]);

  const applyFilters = (next: Filters) => {
    if (historyUrl(1, next) === historyUrl(page, filters)) {
      // Same search again: the person expects fresh results.
      void history.refetch();
      return;
    }
    setFilters(next);
    setPage(1);
  };

  const clearFilters = () => {
    setFilters(NO_FILTERS);
    setFormKey((k) => k + 1);
    setPage(1);
  };

  const onExport = () => {
    if (rows.length === 0) {
      toast({ variant: "destructive", title: "No Data", description: "No usage history available to export" });
      return;
    }
    const fileName = historyFileName(Date.now());
    try {
      saveTextFile(historyCsv(rows), fileName);
    } catch {
      toast({ variant: "destructive", title: "Export Failed", description: "The file could not be saved. Please try again." });
      return;
    }
    toast({
      title: "Export Started",
      description: `${rows.length} ${rows.length === 1 ? "request" : "requests"} saved as ${fileName}`,
    });
  };

  const onRetry = (entry: UsageEntry) => {
    const plan = retryPlan(entry);
    if (!plan || plan.kind === "unavailable" || retryingId !== null) return;
    setRetryingId(entry.id);
    retry.mutate(plan, {
      onSuccess: (outcome) => {
        switch (outcome.kind) {
          case "property":
            toast({
              title: "Lookup Succeeded",
              description: `${outcome.valuation.property.formattedAddress}: ${formatValuation(outcome.valuation.valuation.estimatedValue)}`,
            });
            break;
          case "person":
            toast({ title: "Person Found", description: outcome.name });
            break;
          case "batch":
            toast({ title: "Job Restarted", description: `${outcome.fileName} is queued again.` });
            break;
        }
      },
      onError: (err) => {
        const [title, fallback] =
          plan.kind === "batch"
            ? ["Retry Failed", JOB_FALLBACK]
            : plan.kind === "person"
              ? ["Lookup Failed", PERSON_FALLBACK]
              : ["Lookup Failed", LOOKUP_FALLBACK];
        toast({ variant: "destructive", title, description: errorMessage(err, fallback) });
      },
      onSettled: () => {
        setRetryingId(null);
        // A successful retry used credits: the header's balance must show it.
        void refreshUser();
      },
    });
  };

  const data = history.data;
  let body: ReactNode;
  if (history.isPending) {
    body = (
      <div className="flex justify-center py-16">
        <Spinner label="Loading request history" className="h-8 w-8" />
      </div>
    );
  } else if (history.isError) {
    const detail = errorMessage(history.error, "");
    body = (
      <div role="alert" className="flex flex-col items-center gap-3 py-14 text-center">
        <AlertCircle className="h-8 w-8 text-destructive" aria-hidden="true" />
        <p className="font-medium">{FETCH_FAILED}</p>
        {detail ? <p className="text-sm text-muted-foreground">{detail}</p> : null}
        <Button type="button" variant="outline" onClick={() => void history.refetch()}>
          Retry
        </Button>
      </div>
    );
  } else if (data && data.pagination.total === 0 && !hasFilters(filters)) {
    body = (
      <div className="flex flex-col items-center gap-3 py-14 text-center">
        <History className="h-10 w-10 text-muted-foreground" aria-hidden="true" />
        <p className="text-lg font-medium">No requests yet</p>
        <p className="max-w-md text-sm text-muted-foreground">
          Every lookup you make here or with an API key is listed on this page.
        </p>
        <div className="flex flex-wrap justify-center gap-2">
          <Button asChild>
            <Link to="/property-lookup">Look up a property</Link>
          </Button>
          <Button asChild variant="outline">
            <Link to="/api-keys">Create an API key</Link>
          </Button>
        </div>
      </div>
    );
  } else if (rows.length === 0) {
    const filtered = hasFilters(filters);
    body = (
      <div className="flex flex-col items-center gap-3 py-14 text-center">
        <SearchX className="h-8 w-8 text-muted-foreground" aria-hidden="true" />
        <p className="font-medium">{filtered ? "No matching requests" : "No requests on this page"}</p>
        {filtered ? (
          <Button type="button" variant="outline" onClick={clearFilters}>
            Clear filters
          </Button>
        ) : (
          <Button type="button" variant="outline" onClick={() => setPage(1)}>
            Go to the first page
          </Button>
        )}
      </div>
    );
  } else {
    body = (
      <HistoryTable
        entries={rows}
        onView={setSelected}
        onRetry={onRetry}
        retryingId={retryingId}
        busy={history.isPlaceholderData}
      />
    );
  }

  return (
    <div className="mx-auto max-w-7xl">
      <PageHeader title="Request History" subtitle="Every lookup made from the dashboard or with your API keys" />
      <div className="space-y-6">
        <HistoryFilters
          key={formKey}
          applied={filters}
          keyNames={keyNames}
          keysFailed={keys.isError}
          onApply={applyFilters}
          onExport={onExport}
        />
        <Card>
          <CardContent className="space-y-4 p-0 pb-4">
            {body}
            {data && !history.isError && data.pagination.total > 0 ? (
              <div className="px-4">
                <HistoryPagination
                  pagination={data.pagination}
                  onPageChange={setPage}
                  disabled={history.isPlaceholderData}
                />
              </div>
            ) : null}
          </CardContent>
        </Card>
      </div>
      <DetailsDialog entry={selected} onClose={() => setSelected(null)} />
    </div>
  );
}
