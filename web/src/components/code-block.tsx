import { useEffect, useRef, useState, type RefObject } from "react";
import { Check, Copy } from "lucide-react";
import { cn } from "@/lib/utils";

interface CodeBlockProps {
  /** What the block holds ("Request", "Response", "bash"...), shown in its title bar. */
  title: string;
  code: string;
  className?: string;
}

/** Whether a box's content overflows it (a pixel of rounding is not an overflow), either way. */
export function overflows(el: Pick<HTMLElement, "scrollWidth" | "clientWidth" | "scrollHeight" | "clientHeight">): boolean {
  return el.scrollWidth - el.clientWidth > 1 || el.scrollHeight - el.clientHeight > 1;
}

/** Follows whether a box scrolls as it is resized or its content changes size. */
function useScrolls(ref: RefObject<HTMLElement | null>): boolean {
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => setScrolls(overflows(el));
    update();
    const resize = typeof ResizeObserver === "function" ? new ResizeObserver(update) : null;
    resize?.observe(el);
    if (el.firstElementChild) resize?.observe(el.firstElementChild);
    window.addEventListener("resize", update);
    return () => {
      resize?.disconnect();
      window.removeEventListener("resize", update);
    };
  }, [ref]);
  return scrolls;
}

/**
 * A dark code sample with a copy button. Long lines wrap inside the box (a URL breaks anywhere), so nothing is
 * hidden behind a scrollbar that phones and overlay-scrollbar desktops do not show, and the block never widens its
 * page: it is min-w-0 and max-w-full, so it fits a flex or grid cell. Copy takes the code as written, unwrapped.
 *
 * A page may cap the block's height (`[&_pre]:max-h-96`); the code then scrolls inside it, and the box becomes a
 * region named after the block that takes a Tab stop, so a keyboard can scroll it with the arrow keys (Safari and
 * Firefox do not reach a scroll box that holds nothing focusable; issue 26). Nothing of this when it all shows.
 */
export function CodeBlock({ title, code, className }: CodeBlockProps) {
  const [copied, setCopied] = useState(false);
  const pre = useRef<HTMLPreElement>(null);
  const scrolls = useScrolls(pre);

  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(code);
      setCopied(true);
    } catch {
      // The clipboard is unavailable (an insecure origin, a denied permission): the text stays selectable.
    }
  }

  return (
    <figure className={cn("min-w-0 max-w-full overflow-hidden rounded-lg border border-slate-800 bg-slate-950 text-slate-100", className)}>
      <figcaption className="flex items-center justify-between border-b border-slate-800 px-4 py-2 text-xs font-medium text-slate-400">
        <span>{title}</span>
        <button
          type="button"
          onClick={copy}
          className="inline-flex cursor-pointer items-center gap-1 rounded px-2 py-1 text-slate-400 transition-colors hover:bg-slate-800 hover:text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
          aria-label={`Copy ${title.toLowerCase()}`}
        >
          {copied ? <Check className="h-3.5 w-3.5" aria-hidden="true" /> : <Copy className="h-3.5 w-3.5" aria-hidden="true" />}
          {copied ? "Copied" : "Copy"}
        </button>
      </figcaption>
      <pre
        ref={pre}
        role={scrolls ? "region" : undefined}
        aria-label={scrolls ? `${title}, scrolls` : undefined}
        tabIndex={scrolls ? 0 : undefined}
        className="overflow-auto whitespace-pre-wrap p-4 text-sm leading-relaxed [overflow-wrap:anywhere] focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring"
      >
        <code className="font-mono">{code}</code>
      </pre>
    </figure>
  );
}
