import { keepPreviousData, useMutation, useQuery, useQueryClient, type Query } from "@tanstack/react-query";
import { apiJson } from "@/lib/api";
import type { ApiKey, PropertyValuation, UsageHistory } from "@/lib/types";
import { JOBS_PATH, retryUrl } from "@/features/batch-upload/batch-helpers";
import { FIND_PERSON_PATH } from "@/features/person-lookup/api/person-lookup-api";
import { HISTORY_PATH, historyUrl, type HistoryFilters, type RetryPlan } from "../history-helpers";

// GET /api/usage/history (usageHistory), GET /api/api-keys (listApiKeys), and the retries: POST
// /api/property/lookup (lookupProperty), POST /api/find-person (findPerson) and POST /api/jobs/{id}/retry (retryJob)
// in api/openapi.yaml. Reads go through the default query function, which fetches the query key.

/** The key list's query key, shared with the other screens that read or change the keys. */
export const API_KEYS_KEY = ["/api/api-keys"] as const;
export const LOOKUP_PATH = "/api/property/lookup";


/**
 * One page of history. History is live data, so it is fetched again whenever the screen opens (a lookup made
 * elsewhere must show up); while another page or filter loads, the previous rows stay on screen.
 */
export function useUsageHistory(page: number, filters: HistoryFilters) {
  return useQuery<UsageHistory>({
    queryKey: [historyUrl(page, filters)],
    placeholderData: keepPreviousData,
    refetchOnMount: "always",
  });
}

export function useApiKeys() {
  return useQuery<ApiKey[]>({ queryKey: API_KEYS_KEY });
}

/** Whether a query reads usage data (history pages, the activity list, statistics): all change after a lookup. */
function isUsageQuery(query: Query): boolean {
  const first = query.queryKey[0];
  return typeof first === "string" && (first.startsWith(HISTORY_PATH) || first.startsWith("/api/usage/stats"));
}

/** What a retry answered: the valuation, the person found, or the job queued again. */
export type RetryOutcome =
  | { kind: "property"; valuation: PropertyValuation }
  | { kind: "person"; name: string }
  | { kind: "batch"; fileName: string };

/**
 * Makes a failed call again the way it was first made (see RetryPlan). Whatever the outcome, the history (which
 * records the new call) and the statistics are refetched; a batch retry also refreshes the job list.
 */
export function useRetryCall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (plan: Exclude<RetryPlan, { kind: "unavailable" }>): Promise<RetryOutcome> => {
      switch (plan.kind) {
        case "property": {
          const res = await apiJson<{ data: PropertyValuation }>("POST", LOOKUP_PATH, plan.body);
          return { kind: "property", valuation: res.data };
        }
        case "person": {
          const res = await apiJson<{ data: { name: string } }>("POST", FIND_PERSON_PATH, plan.body);
          return { kind: "person", name: res.data.name };
        }
        case "batch": {
          await apiJson<unknown>("POST", retryUrl(plan.jobId));
          return { kind: "batch", fileName: plan.fileName };
        }
      }
    },
    onSettled: (_data, _error, plan) => {
      // Not awaited: the outcome is told at once, the tables catch up when their refetch lands.
      void queryClient.invalidateQueries({ predicate: isUsageQuery });
      // The Batch Upload screen's job list (its query key is the path) shows the job queued again.
      if (plan.kind === "batch") void queryClient.invalidateQueries({ queryKey: [JOBS_PATH] });
    },
  });
}
