// Stub, replaced by the screen's real implementation.
export function PersonLookupPage() {
  return <h1>PersonLookupPage</h1>;
}
