import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function HistoryPage() {
  return <PageHeader title="Request History" subtitle="Every lookup made from the dashboard or with your API keys" />;
}
