import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function PersonLookupPage() {
  return <PageHeader title="Person Lookup" subtitle="Find a person's contact details and addresses by name and location" />;
}
