import { Outlet } from "react-router";
// Stub, replaced by the signed-in shell.
export function AppShell() {
  return <Outlet />;
}
