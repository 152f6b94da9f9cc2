import type { ReactNode } from "react";
// Stub, replaced by the sign-in guard.
export function ProtectedRoute({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
