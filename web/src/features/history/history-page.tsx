// Stub, replaced by the screen's real implementation.
export function HistoryPage() {
  return <h1>HistoryPage</h1>;
}
