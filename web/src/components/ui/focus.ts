// Where keyboard and screen-reader focus goes when the screen changes under it (issue 26): a dialog closing, a
// result arriving, a new page. One set of helpers, so every screen moves focus the same way.

/** The id of every page's <main>, the target of the skip link. */
export const MAIN_CONTENT_ID = "main-content";

/** An element, a ref to one, or a function that finds one when it is needed. */
export type FocusTarget =
  | HTMLElement
  | null
  | undefined
  | { readonly current: HTMLElement | null }
  | (() => HTMLElement | null | undefined);

export function resolveTarget(target: FocusTarget): HTMLElement | null {
  if (!target) return null;
  if (typeof target === "function") return target() ?? null;
  if (target instanceof HTMLElement) return target;
  return target.current;
}

/** Whether focus can be put on the element now: it is in the page, not disabled and not inside an inert part. */
export function canFocus(el: HTMLElement | null): el is HTMLElement {
  if (!el || !el.isConnected) return false;
  if (el.matches(":disabled")) return false;
  if (el.closest("[inert]")) return false;
  return true;
}

/**
 * Focuses the element; one that does not take focus by itself (a heading, <main>) is made focusable from script
 * only (tabindex -1) first, so it is never a tab stop.
 */
export function focusElement(el: HTMLElement, options?: FocusOptions): void {
  if (!el.hasAttribute("tabindex") && el.tabIndex < 0) el.setAttribute("tabindex", "-1");
  el.focus(options);
}

/** The page's main region: <main id="main-content">, else the first <main>. */
export function mainContent(doc: Document = document): HTMLElement | null {
  return doc.getElementById(MAIN_CONTENT_ID) ?? doc.querySelector<HTMLElement>("main");
}

/** The page's main heading (the h1 in <main>), else <main> itself. */
export function mainHeading(doc: Document = document): HTMLElement | null {
  const main = mainContent(doc);
  return main?.querySelector<HTMLElement>("h1") ?? doc.querySelector<HTMLElement>("h1") ?? main;
}

/** The first heading inside the element, else the element itself. */
export function firstHeading(container: HTMLElement): HTMLElement {
  return container.querySelector<HTMLElement>("h1, h2, h3, h4") ?? container;
}

/** Whether nothing in particular has focus (the page's body, or an element that has just been removed). */
export function focusIsLost(doc: Document = document): boolean {
  const active = doc.activeElement;
  return !active || active === doc.body || active === doc.documentElement || !active.isConnected;
}

/**
 * Waits (up to `timeoutMs`) for `find` to return an element, then calls `use` with it. Stops early when the
 * caller's cleanup runs or, if `stopOnFocus`, when the user moves focus somewhere meanwhile. Returns the cleanup.
 */
export function whenPresent(
  find: () => HTMLElement | null,
  use: (el: HTMLElement) => void,
  { timeoutMs = 5000, stopOnFocus = true }: { timeoutMs?: number; stopOnFocus?: boolean } = {},
): () => void {
  const now = find();
  if (now) {
    use(now);
    return () => undefined;
  }
  let stopped = false;
  const observer = new MutationObserver(() => {
    const el = find();
    if (!el) return;
    stop();
    use(el);
  });
  const onFocus = (e: FocusEvent) => {
    if (e.target instanceof Element && e.target !== document.body) stop();
  };
  const timer = setTimeout(() => stop(), timeoutMs);
  function stop() {
    if (stopped) return;
    stopped = true;
    observer.disconnect();
    clearTimeout(timer);
    if (stopOnFocus) document.removeEventListener("focusin", onFocus, true);
  }
  observer.observe(document.body, { childList: true, subtree: true });
  if (stopOnFocus) document.addEventListener("focusin", onFocus, true);
  return stop;
}
