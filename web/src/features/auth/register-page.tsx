// Stub, replaced by the screen's real implementation.
export function RegisterPage() {
  return <h1>RegisterPage</h1>;
}
