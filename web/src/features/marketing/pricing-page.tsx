// Stub, replaced by the screen's real implementation.
export function PricingPage() {
  return <h1>PricingPage</h1>;
}
