import type { MouseEvent } from "react";
import { focusElement, MAIN_CONTENT_ID, mainContent } from "./ui/focus";

/**
 * "Skip to main content": the first tab stop of every page (rendered once, before the routes), hidden until it has
 * focus, then shown over the page's top-left corner. It moves focus to <main id="main-content" tabIndex={-1}>,
 * so the next Tab is the first control of the page's content instead of the header and the whole navigation.
 */
export function SkipLink() {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    const main = mainContent();
    if (!main) return;
    // Focus is moved here rather than by the browser's fragment navigation, which would also change the URL.
    e.preventDefault();
    focusElement(main);
    main.scrollIntoView?.({ block: "start" });
  };
  return (
    <a
      href={`#${MAIN_CONTENT_ID}`}
      onClick={onClick}
      data-testid="skip-link"
      // not-sr-only resets the padding, so the focused link's own comes after it.
      className="sr-only rounded-md bg-primary text-sm font-medium text-primary-foreground shadow-lg focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-[100] focus:px-4 focus:py-2 focus:outline-none focus:ring-2 focus:ring-ring focus:ring-offset-2"
    >
      Skip to main content
    </a>
  );
}
