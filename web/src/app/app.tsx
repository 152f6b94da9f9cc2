import { useEffect } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import { BrowserRouter } from "react-router";
import { getToken } from "@/lib/api";
import { AuthProvider } from "@/lib/auth";
import { queryClient } from "@/lib/query-client";
import { SkipLink } from "@/components/skip-link";
import { Notifications } from "./notifications";
import { AppRoutes, prefetchOnIntent, prefetchRoute } from "./routes";

export function App() {
  useEffect(() => {
    // A signed-in visitor opening a signed-in screen: its code loads while the session is checked, not after.
    if (getToken() !== null) prefetchRoute(window.location.pathname);
    return prefetchOnIntent();
  }, []);

  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AuthProvider>
          {/* The first tab stop of every page, public and signed-in (skip-link.tsx). */}
          <SkipLink />
          <AppRoutes />
          <Notifications />
        </AuthProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
