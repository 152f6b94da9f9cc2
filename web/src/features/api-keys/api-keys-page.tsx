import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function ApiKeysPage() {
  return <PageHeader title="API Keys" subtitle="Create and manage the keys your applications use to call the API" />;
}
