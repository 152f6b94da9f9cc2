// The operator console (issue 27): one chunk, loaded only when an /admin page is shown (app/route-chunks.ts), so
// neither the public pages nor a customer's dashboard download it. The route table (app/routes.tsx) declares each
// console path and renders AdminConsole at all of them, which picks the page here: one lazily loaded component
// keeps the app's own chunk (on the landing page's budget) as small as it was.
import { useLocation } from "react-router";
import { AdminAccountPage } from "./account-page";
import { AdminAccountsPage } from "./accounts-page";
import { AdminAuditPage } from "./audit-page";
import { AdminCompliancePage } from "./compliance-page";
import { AdminOverviewPage } from "./overview-page";
import { AdminSupportPage } from "./support-inbox-page";

export { AdminAccountsPage, AdminAccountPage, AdminSupportPage, AdminCompliancePage, AdminOverviewPage, AdminAuditPage };

const PAGES: Record<string, () => React.JSX.Element> = {
  "/admin/support": () => <AdminSupportPage />,
  "/admin/compliance": () => <AdminCompliancePage />,
  "/admin/overview": () => <AdminOverviewPage />,
  "/admin/audit": () => <AdminAuditPage />,
};

/** The console page of the current path: /admin and /admin/accounts are the accounts search. */
export function AdminConsole() {
  const path = useLocation().pathname.replace(/\/+$/, "");
  if (path.startsWith("/admin/accounts/")) return <AdminAccountPage />;
  return PAGES[path]?.() ?? <AdminAccountsPage />;
}
