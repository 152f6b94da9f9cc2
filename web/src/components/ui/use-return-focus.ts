import { useCallback, useMemo, useRef, type RefObject } from "react";

/**
 * Puts focus back on what opened a dialog when it closes (Escape, Cancel, the X, Done). Radix does this only for a
 * Dialog.Trigger; a dialog opened from state (a plan card's button, a deep link) would leave focus on the page's
 * body, and a keyboard user would start again from the top. Call `opened(button)` when opening, and pass
 * `onCloseAutoFocus` to the dialog's content. `fallback` takes focus when the opener is gone or disabled (the
 * action removed it, or there was none), so focus still lands somewhere near.
 */
export function useReturnFocus(fallback?: RefObject<HTMLElement | null>) {
  const opener = useRef<HTMLElement | null>(null);

  const opened = useCallback((el: HTMLElement | null) => {
    opener.current = el;
  }, []);

  const onCloseAutoFocus = useCallback(
    (event: Event) => {
      const el = opener.current;
      opener.current = null;
      const target = el?.isConnected && !el.matches(":disabled") ? el : (fallback?.current ?? null);
      if (!target) return;
      event.preventDefault();
      target.focus();
    },
    [fallback],
  );

  // Stable, so effects may depend on it.
  return useMemo(() => ({ opened, onCloseAutoFocus }), [opened, onCloseAutoFocus]);
}
