// Stub, replaced by the screen's real implementation.
export function ContactPage() {
  return <h1>ContactPage</h1>;
}
