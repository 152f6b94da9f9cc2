import type { ReactNode } from "react";
// Stub, replaced by the session provider.
export function AuthProvider({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
