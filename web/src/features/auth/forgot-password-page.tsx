// Stub, replaced by the screen's real implementation.
export function ForgotPasswordPage() {
  return <h1>ForgotPasswordPage</h1>;
}
