// Stub, replaced by the screen's real implementation.
export function AboutPage() {
  return <h1>AboutPage</h1>;
}
