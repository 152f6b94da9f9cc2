import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function BatchUploadPage() {
  return <PageHeader title="Batch Upload" subtitle="Value many properties at once from a CSV or Excel file" />;
}
