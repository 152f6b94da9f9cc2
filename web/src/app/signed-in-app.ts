// The signed-in app: one chunk, loaded the first time a signed-in screen is shown (routes.tsx), so the public pages
// never download it. It holds the shell and every screen but Reporting (a chunk of its own, for the charts), so moving
// between screens never waits for the network. Forms build their zod schemas when their modules load: the zod
// settings must come first.
import "@/lib/zod-config";

export { AppShell } from "./shell/app-shell";
export { PropertyLookupPage } from "@/features/property-lookup/property-lookup-page";
export { PersonLookupPage } from "@/features/person-lookup/person-lookup-page";
export { BatchUploadPage } from "@/features/batch-upload/batch-upload-page";
export { ApiKeysPage } from "@/features/api-keys/api-keys-page";
export { HistoryPage } from "@/features/history/history-page";
export { BillingPage } from "@/features/billing/billing-page";
export { SettingsPage } from "@/features/settings/settings-page";
