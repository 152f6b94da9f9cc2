// Stub, replaced by the screen's real implementation.
export function ResetPasswordPage() {
  return <h1>ResetPasswordPage</h1>;
}
