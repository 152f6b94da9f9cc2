// Stub, replaced by the screen's real implementation.
export function PrivacyPage() {
  return <h1>PrivacyPage</h1>;
}
