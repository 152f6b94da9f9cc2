// Stub, replaced by the screen's real implementation.
export function NotFoundPage() {
  return <h1>NotFoundPage</h1>;
}
