// Stub, replaced by the screen's real implementation.
export function ReportingPage() {
  return <h1>ReportingPage</h1>;
}
