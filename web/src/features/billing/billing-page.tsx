import { PageHeader } from "@/app/shell/page-header";

// Only the header until the screen's own issue lands: no sample data and no inert forms in the meantime.
export function BillingPage() {
  return <PageHeader title="Billing & Credits" subtitle="Your plan, credit balance and payments" />;
}
