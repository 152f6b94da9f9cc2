import { useCallback, useEffect, useMemo, useRef } from "react";
import { canFocus, focusElement, focusIsLost, mainHeading, resolveTarget, type FocusTarget } from "./focus";

// Every dialog (DialogContent, AlertDialogContent, the app shell's mobile menu) puts focus back where it was when
// it closes, whichever way it closes: Escape, Cancel, Done, the X, a click outside, or the end of a successful
// action. Radix does that only for a Dialog.Trigger; our dialogs are mostly opened from state (a table row's
// button, a plan card, a deep link), and focus used to fall to the page's body, so a keyboard user started again
// from the top and a screen reader said nothing.

export interface DialogFocusOptions {
  /** The dialog's own handlers, called first; one that calls preventDefault() takes over. */
  onOpenAutoFocus?: (event: Event) => void;
  onCloseAutoFocus?: (event: Event) => void;
  /**
   * Where focus goes on close when what opened the dialog is gone or disabled (the row of a deleted key, a button
   * the action removed) or when nothing had focus (a dialog opened by a link). Default: the page's main heading.
   */
  returnFocusTo?: FocusTarget;
}

/**
 * The control last clicked, and when. Safari does not focus a button when it is clicked, so a dialog opened by a
 * click finds the page's body focused: the clicked button is its opener then.
 */
let lastClicked: { el: HTMLElement; at: number } | null = null;
let trackingClicks = false;
const CLICK_OPENS_WITHIN_MS = 1000;

function trackClicks(): void {
  if (trackingClicks || typeof document === "undefined") return;
  trackingClicks = true;
  document.addEventListener(
    "click",
    (e) => {
      const el = e.target instanceof Element ? e.target.closest<HTMLElement>("button, a[href], [role='button']") : null;
      lastClicked = el ? { el, at: Date.now() } : null;
    },
    true,
  );
}

/** What opened a dialog that is opening now: the focused element, else the control just clicked. */
function currentOpener(content: Node | null): HTMLElement | null {
  const active = document.activeElement;
  const outside = (el: Element | null | undefined): el is HTMLElement =>
    el instanceof HTMLElement && el !== document.body && !content?.contains(el);
  if (outside(active)) return active;
  const clicked = lastClicked && Date.now() - lastClicked.at < CLICK_OPENS_WITHIN_MS ? lastClicked.el : null;
  return outside(clicked) && clicked.isConnected ? clicked : null;
}

/** How long after focus is put back on the opener a removal of the opener is still caught (a list read again). */
const REMOVAL_WATCH_MS = 3000;

/** The first of the fallbacks that can take focus: the dialog's own, then the page's main heading. */
function fallbackTarget(returnFocusTo: FocusTarget): HTMLElement | null {
  const own = resolveTarget(returnFocusTo);
  if (canFocus(own)) return own;
  const heading = mainHeading();
  return canFocus(heading) ? heading : null;
}

/** Focuses the first of the candidates that really takes focus (one hidden by CSS silently does not). */
function focusFirst(candidates: (HTMLElement | null)[]): HTMLElement | null {
  for (const el of candidates) {
    if (!canFocus(el)) continue;
    focusElement(el);
    if (document.activeElement === el) return el;
  }
  return null;
}

/**
 * The opener took focus back, but the action may remove it a moment later (a deleted item's row goes when the list
 * is read again): if it goes while it still has focus, focus moves on to the fallback instead of the body.
 */
function watchRemoval(el: HTMLElement, returnFocusTo: FocusTarget): void {
  let stopped = false;
  const observer = new MutationObserver(() => {
    if (el.isConnected) return;
    stop();
    if (focusIsLost()) focusFirst([fallbackTarget(returnFocusTo)]);
  });
  const onFocusIn = (e: FocusEvent) => {
    if (e.target !== el) stop();
  };
  const timer = setTimeout(stop, REMOVAL_WATCH_MS);
  function stop() {
    if (stopped) return;
    stopped = true;
    observer.disconnect();
    clearTimeout(timer);
    document.removeEventListener("focusin", onFocusIn, true);
  }
  observer.observe(document.body, { childList: true, subtree: true });
  document.addEventListener("focusin", onFocusIn, true);
}

/**
 * The focus handlers of a dialog's content: on open it records what had focus (the opener), on close it puts focus
 * back there, or on `returnFocusTo`, or on the page's main heading. Pass the result's onOpenAutoFocus and
 * onCloseAutoFocus to Radix's Content.
 */
export function useDialogFocus({ onOpenAutoFocus, onCloseAutoFocus, returnFocusTo }: DialogFocusOptions = {}) {
  trackClicks();
  const opener = useRef<HTMLElement | null>(null);
  const fallback = useRef<FocusTarget>(returnFocusTo);
  fallback.current = returnFocusTo;
  // A dialog closed because its screen went away (a navigation) has nothing to give focus back to: the new page's
  // heading takes it (page-titles.ts).
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const handleOpen = useCallback(
    (event: Event) => {
      // Radix asks before it moves focus into the dialog, so what has focus now is what opened it.
      opener.current = currentOpener(event.currentTarget instanceof Node ? event.currentTarget : null);
      onOpenAutoFocus?.(event);
    },
    [onOpenAutoFocus],
  );

  const handleClose = useCallback(
    (event: Event) => {
      onCloseAutoFocus?.(event);
      if (event.defaultPrevented) return;
      // React's StrictMode rehearses an unmount while the dialog stays open: nothing to give back then.
      if (event.target instanceof Node && event.target.isConnected) return;
      // Radix's own handler would focus a Dialog.Trigger, or nothing at all: this one decides.
      event.preventDefault();
      const el = opener.current;
      opener.current = null;
      if (!mounted.current) return;
      const focused = focusFirst([el, fallbackTarget(fallback.current)]);
      if (focused && focused === el) watchRemoval(el, fallback.current);
    },
    [onCloseAutoFocus],
  );

  return useMemo(() => ({ onOpenAutoFocus: handleOpen, onCloseAutoFocus: handleClose }), [handleOpen, handleClose]);
}
