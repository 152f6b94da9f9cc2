// Stub, replaced by the screen's real implementation.
export function BillingPage() {
  return <h1>BillingPage</h1>;
}
