// Stub, replaced by the screen's real implementation.
export function SettingsPage() {
  return <h1>SettingsPage</h1>;
}
