import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function PropertyLookupPage() {
  return <PageHeader title="Property Lookup" subtitle="Value any US property by address" />;
}
