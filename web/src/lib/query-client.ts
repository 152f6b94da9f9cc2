import { QueryClient } from "@tanstack/react-query";
import { getQueryFn } from "./api";

// Spec section 9: no automatic retry, data never stale, no refetch on window focus, no polling unless a screen
// asks for it explicitly (the batch queue does).
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: getQueryFn({ on401: "throw" }),
        refetchInterval: false,
        refetchOnWindowFocus: false,
        staleTime: Infinity,
        retry: false,
      },
      mutations: {
        retry: false,
      },
    },
  });
}

export const queryClient = createQueryClient();
