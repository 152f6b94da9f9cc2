// The operator console (issue 27): one chunk, loaded only when an /admin page is shown (app/route-chunks.ts), so
// neither the public pages nor a customer's dashboard download it.
export { AdminAccountsPage } from "./accounts-page";
export { AdminAccountPage } from "./account-page";
export { AdminSupportPage } from "./support-inbox-page";
export { AdminCompliancePage } from "./compliance-page";
export { AdminOverviewPage } from "./overview-page";
export { AdminAuditPage } from "./audit-page";
