import { useEffect, useRef, type RefObject } from "react";
import { firstHeading, focusElement } from "./focus";

/**
 * The one way a result is announced (issue 26): when an outcome arrives (a valuation, a person found or not, a file
 * read, a failure shown in place), focus moves to its heading, which a screen reader then reads out, and the
 * keyboard continues from there. Each new outcome bumps `arrival` (a counter; 0 is none yet); focus moves once the
 * region is `ready` (the spinner has made way for the outcome), to the first heading inside `region`.
 */
export function useFocusResult(region: RefObject<HTMLElement | null>, arrival: number, ready = true): void {
  const handled = useRef(arrival);
  useEffect(() => {
    if (!ready || arrival === handled.current) return;
    handled.current = arrival;
    const el = region.current;
    if (el) focusElement(firstHeading(el));
  }, [arrival, ready, region]);
}
