import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function ReportingPage() {
  return <PageHeader title="Reporting" subtitle="Analytics and insights for your API usage and performance" />;
}
