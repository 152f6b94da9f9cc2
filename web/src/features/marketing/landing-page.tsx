// Stub, replaced by the screen's real implementation.
export function LandingPage() {
  return <h1>LandingPage</h1>;
}
