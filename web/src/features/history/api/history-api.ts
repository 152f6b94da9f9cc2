import { keepPreviousData, useMutation, useQuery, useQueryClient, type Query } from "@tanstack/react-query";
import { apiJson } from "@/lib/api";
import type { ApiKey, PropertyLookupRequest, PropertyValuation, UsageHistory } from "@/lib/types";
import { HISTORY_PATH, historyUrl, type HistoryFilters } from "../history-helpers";

// GET /api/usage/history (usageHistory), GET /api/api-keys (listApiKeys) and POST /api/property/lookup
// (lookupProperty) in api/openapi.yaml. Reads go through the default query function, which fetches the query key.

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

/** Re-runs a failed property valuation. Whatever the outcome, the history (which records the new call) is refetched. */
export function useRetryLookup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: PropertyLookupRequest) => {
      const res = await apiJson<{ data: PropertyValuation }>("POST", LOOKUP_PATH, body);
      return res.data;
    },
    onSettled: () => {
      // Not awaited: the outcome is told at once, the tables catch up when their refetch lands.
      void queryClient.invalidateQueries({ predicate: isUsageQuery });
    },
  });
}
