// Stub, replaced by the screen's real implementation.
export function LoginPage() {
  return <h1>LoginPage</h1>;
}
