import type { ReactNode } from "react";
import { Navigate } from "react-router";
import { FullPageSpinner } from "@/components/ui/spinner";
import { useAuth } from "@/lib/auth";

/** The sign-in guard: a spinner while the session is checked, /login without a user, else the page. */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const { user, isLoading } = useAuth();
  if (isLoading) return <FullPageSpinner label="Loading your account" />;
  if (!user) return <Navigate to="/login" replace />;
  return <>{children}</>;
}
