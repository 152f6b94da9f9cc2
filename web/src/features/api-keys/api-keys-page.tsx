// Stub, replaced by the screen's real implementation.
export function ApiKeysPage() {
  return <h1>ApiKeysPage</h1>;
}
