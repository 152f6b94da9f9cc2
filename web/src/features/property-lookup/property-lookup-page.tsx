// Stub, replaced by the screen's real implementation.
export function PropertyLookupPage() {
  return <h1>PropertyLookupPage</h1>;
}
