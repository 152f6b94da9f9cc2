// Stub, replaced by the screen's real implementation.
export function TermsPage() {
  return <h1>TermsPage</h1>;
}
