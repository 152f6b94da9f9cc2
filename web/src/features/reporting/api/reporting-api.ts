import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ApiKey, UsageHistory, UsageStats } from "@/lib/types";
import { RECENT_ACTIVITY_PATH, statsPath, type Period } from "../reporting-helpers";

// GET /api/usage/stats?days= (usageStats), GET /api/api-keys (listApiKeys) and the first page of
// GET /api/usage/history (usageHistory) in api/openapi.yaml, read through the default query function, which
// fetches the query key itself. Usage is live data: it is fetched again each time the screen opens.

/** The key list's query key, shared with the other screens that read or change the keys. */
export const API_KEYS_KEY = ["/api/api-keys"] as const;

export function useUsageStats(days: Period) {
  return useQuery<UsageStats>({
    queryKey: [statsPath(days)],
    // While another period loads, the current figures stay on screen instead of a spinner.
    placeholderData: keepPreviousData,
    refetchOnMount: "always",
  });
}

export function useApiKeys() {
  return useQuery<ApiKey[]>({ queryKey: API_KEYS_KEY });
}

export function useRecentActivity() {
  return useQuery<UsageHistory>({ queryKey: [RECENT_ACTIVITY_PATH], refetchOnMount: "always" });
}
