// Stub, replaced by the screen's real implementation.
export function BatchUploadPage() {
  return <h1>BatchUploadPage</h1>;
}
