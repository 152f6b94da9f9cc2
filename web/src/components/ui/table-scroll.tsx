import { useEffect, useRef, useState, type HTMLAttributes, type RefObject } from "react";
import { cn } from "@/lib/utils";

/** Which edges of a scroll box hide content: a table wider than its box is cut off on one side or both. */
export interface ScrollEdges {
  start: boolean;
  end: boolean;
}

/** The clipped edges of a box from its sizes (a pixel of rounding is not an overflow). */
export function clippedEdges(el: Pick<HTMLElement, "scrollWidth" | "clientWidth" | "scrollLeft">): ScrollEdges {
  const max = el.scrollWidth - el.clientWidth;
  if (max <= 1) return { start: false, end: false };
  const left = Math.abs(el.scrollLeft); // negative in right-to-left layouts
  return { start: left > 1, end: left < max - 1 };
}

/** Follows a box's clipped edges as it is scrolled or resized, or its content changes size. */
function useClippedEdges(ref: RefObject<HTMLElement | null>): ScrollEdges {
  const [edges, setEdges] = useState<ScrollEdges>({ start: false, end: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () =>
      setEdges((prev) => {
        const next = clippedEdges(el);
        return prev.start === next.start && prev.end === next.end ? prev : next;
      });
    update();
    el.addEventListener("scroll", update, { passive: true });
    const resize = typeof ResizeObserver === "function" ? new ResizeObserver(update) : null;
    resize?.observe(el);
    if (el.firstElementChild) resize?.observe(el.firstElementChild);
    window.addEventListener("resize", update);
    return () => {
      el.removeEventListener("scroll", update);
      resize?.disconnect();
      window.removeEventListener("resize", update);
    };
  }, [ref]);
  return edges;
}

interface TableScrollProps extends HTMLAttributes<HTMLDivElement> {
  /** What the table holds ("Error codes"): the name of the scroll region when the table does not fit. */
  label?: string;
}

/**
 * The box a wide table scrolls in, so that the table scrolls inside its card and never widens the page. It is
 * `relative` on purpose: a table's visually hidden parts (an sr-only caption or header text) are absolutely
 * positioned, and without a positioned ancestor they are laid out against the page instead of this box, escape its
 * clipping and made phones scroll sideways (pricing 587 px, API Keys 761 px wide at 390 px).
 *
 * When the table does not fit, the box says so (issue 25): a fade on each clipped edge and a small "Scroll →" on the
 * right until the end is reached, both hidden from screen readers, which hear instead a region named after the table
 * that says it scrolls sideways. The region is then focusable, so a keyboard can scroll it with the arrow keys.
 * Nothing of this shows when everything fits.
 */
export function TableScroll({ className, label = "Table", children, ...props }: TableScrollProps) {
  const ref = useRef<HTMLDivElement>(null);
  const edges = useClippedEdges(ref);
  const scrolls = edges.start || edges.end;
  return (
    <div className="relative min-w-0 max-w-full" data-scroll-start={edges.start} data-scroll-end={edges.end}>
      <div
        ref={ref}
        role={scrolls ? "region" : undefined}
        aria-label={scrolls ? `${label}, scrolls sideways` : undefined}
        tabIndex={scrolls ? 0 : undefined}
        className={cn(
          "relative max-w-full overflow-x-auto focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring",
          className,
        )}
        {...props}
      >
        {children}
      </div>
      {edges.start ? (
        <div
          aria-hidden="true"
          data-testid="scroll-fade-start"
          className="pointer-events-none absolute inset-y-px left-px w-8 bg-gradient-to-r from-background to-transparent"
        />
      ) : null}
      {edges.end ? (
        <>
          <div
            aria-hidden="true"
            data-testid="scroll-fade-end"
            className="pointer-events-none absolute inset-y-px right-px w-10 bg-gradient-to-l from-background to-transparent"
          />
          <span
            aria-hidden="true"
            data-testid="scroll-hint"
            className="pointer-events-none absolute right-2 top-2 rounded-full border bg-background/95 px-2 py-0.5 text-xs font-medium text-muted-foreground shadow-sm"
          >
            Scroll →
          </span>
        </>
      ) : null}
    </div>
  );
}

/**
 * A table that turns into cards on a phone (below Tailwind's `sm`), with the same markup: the header row is only
 * read to screen readers, each row becomes a grid of its cells, and a cell given a `data-label` shows that label
 * above its value (drawn by CSS, so a cell's text is the same at every width). Wide tables whose last columns would
 * sit out of sight in their scroll box on a phone use it; put `cardTable.fullWidth` on the cell that heads the card
 * (a name, an address: it leaves room for the corner), `cardTable.corner` on a small actions cell, and
 * `cardTable.span` on any other cell that takes a line of its own (a row of buttons).
 */
export const cardTable = {
  head: "max-sm:sr-only",
  body: "max-sm:block",
  row: {
    2: "max-sm:relative max-sm:grid max-sm:grid-cols-2 max-sm:gap-x-3 max-sm:gap-y-2 max-sm:p-4",
    3: "max-sm:relative max-sm:grid max-sm:grid-cols-3 max-sm:gap-x-3 max-sm:gap-y-2 max-sm:p-4",
  },
  cell:
    "max-sm:whitespace-normal max-sm:p-0 max-sm:text-left max-sm:text-xs max-sm:before:block " +
    "max-sm:before:text-muted-foreground max-sm:before:content-[attr(data-label)]",
  fullWidth: "max-sm:col-span-full max-sm:p-0 max-sm:pr-20",
  span: "max-sm:col-span-full max-sm:p-0",
  corner: "max-sm:absolute max-sm:right-2 max-sm:top-2 max-sm:p-0",
} as const;
