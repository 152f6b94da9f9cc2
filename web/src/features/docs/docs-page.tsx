// Stub, replaced by the API viewer.
export default function DocsPage() {
  return <h1>API documentation</h1>;
}
