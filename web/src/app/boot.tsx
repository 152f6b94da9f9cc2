import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app";

/**
 * Renders the app into `container`. The first render is a transition, so React renders it in slices and yields to
 * the browser between them instead of holding the main thread for one long task (issue 26: mobile Lighthouse
 * counted two long tasks in the entry script).
 */
export function start(container: HTMLElement): void {
  const root = createRoot(container);
  startTransition(() => {
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  });
}
