import * as React from "react";
import { ChevronDown } from "lucide-react";
import { cn } from "@/lib/utils";

// The WAI-ARIA accordion pattern (a button in a heading that shows or hides a region), for the pricing FAQ. It was
// Radix's Accordion, which measured every answer when it mounted, closed ones included (a forced layout per item,
// for a height animation the FAQ does not use): on Lighthouse's mobile run of /pricing that was most of the page's
// blocking time, and its code took four more files to download before the page could show (issue 33). Each item
// opens on its own, as Radix's `type="multiple"` did; a closed answer is not rendered, as with Radix.

interface ItemState {
  open: boolean;
  toggle: () => void;
  triggerId: string;
  contentId: string;
}

const ItemContext = React.createContext<ItemState | null>(null);

function useItem(part: string): ItemState {
  const item = React.useContext(ItemContext);
  if (!item) throw new Error(`${part} must be inside an AccordionItem`);
  return item;
}

const TRIGGER = "[data-accordion-trigger]";

/**
 * The list of items. The arrow keys, Home and End move between the questions, as the pattern suggests (and Radix
 * did); Tab still goes through them and into an open answer's links.
 */
export function Accordion({
  className,
  children,
}: {
  /** Only "multiple" (items open independently) is supported; kept so callers read as they did with Radix. */
  type?: "multiple";
  className?: string;
  children: React.ReactNode;
}) {
  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    if (!(e.target instanceof HTMLElement) || !e.target.matches(TRIGGER)) return;
    const triggers = Array.from(e.currentTarget.querySelectorAll<HTMLElement>(TRIGGER));
    const at = triggers.indexOf(e.target);
    const next = {
      ArrowDown: triggers[(at + 1) % triggers.length],
      ArrowUp: triggers[(at - 1 + triggers.length) % triggers.length],
      Home: triggers[0],
      End: triggers[triggers.length - 1],
    }[e.key];
    if (!next) return;
    e.preventDefault();
    next.focus();
  };
  return (
    <div className={className} onKeyDown={onKeyDown}>
      {children}
    </div>
  );
}

export function AccordionItem({
  className,
  children,
}: {
  /** Unused: each item keeps its own state. Kept so callers read as they did with Radix. */
  value?: string;
  className?: string;
  children: React.ReactNode;
}) {
  const [open, setOpen] = React.useState(false);
  const id = React.useId();
  const item: ItemState = {
    open,
    toggle: () => setOpen((o) => !o),
    triggerId: `${id}-trigger`,
    contentId: `${id}-content`,
  };
  return (
    <ItemContext value={item}>
      <div className={cn("border-b", className)} data-state={open ? "open" : "closed"}>
        {children}
      </div>
    </ItemContext>
  );
}

/** The question row: a button inside a heading, as the WAI-ARIA accordion pattern asks. */
export function AccordionTrigger({ className, children }: { className?: string; children: React.ReactNode }) {
  const { open, toggle, triggerId, contentId } = useItem("AccordionTrigger");
  return (
    <h3 className="flex">
      <button
        type="button"
        id={triggerId}
        aria-expanded={open}
        aria-controls={open ? contentId : undefined}
        data-state={open ? "open" : "closed"}
        data-accordion-trigger=""
        onClick={toggle}
        className={cn(
          "flex flex-1 cursor-pointer items-center justify-between gap-4 py-4 text-left font-medium transition-all hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring [&[data-state=open]>svg]:rotate-180",
          className,
        )}
      >
        {children}
        <ChevronDown className="h-4 w-4 shrink-0 text-muted-foreground transition-transform duration-200" aria-hidden="true" />
      </button>
    </h3>
  );
}

export function AccordionContent({ className, children }: { className?: string; children: React.ReactNode }) {
  const { open, triggerId, contentId } = useItem("AccordionContent");
  if (!open) return null;
  return (
    <div role="region" id={contentId} aria-labelledby={triggerId} className="overflow-hidden text-sm">
      <div className={cn("pb-4 pt-0 text-muted-foreground", className)}>{children}</div>
    </div>
  );
}
