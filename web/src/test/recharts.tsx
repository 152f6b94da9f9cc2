import { cloneElement, type ReactElement } from "react";

/**
 * recharts with a ResponsiveContainer of a fixed 800 x 300: jsdom lays nothing out, so the real one measures 0 x 0
 * and draws nothing. A test file of a screen with charts mocks recharts with it:
 * `vi.mock("recharts", async (original) => (await import("@/test/recharts")).sized(await original()))`.
 */
export function sized<T extends object>(actual: T): T {
  return {
    ...actual,
    ResponsiveContainer: ({ children }: { children: ReactElement<{ width?: number; height?: number }> }) => (
      <div style={{ width: 800, height: 300 }}>{cloneElement(children, { width: 800, height: 300 })}</div>
    ),
  };
}
