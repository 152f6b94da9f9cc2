import { cn } from "@/lib/utils";

/** The product mark (the same house as the favicon) and, unless iconOnly, the name beside it. */
export function Logo({ className, iconOnly = false }: { className?: string; iconOnly?: boolean }) {
  return (
    <span className={cn("inline-flex items-center gap-2 font-semibold tracking-tight", className)}>
      <svg viewBox="0 0 32 32" className="h-8 w-8 shrink-0" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" fill="#2563eb" />
        <path d="M8 17l8-7 8 7v8h-5v-5h-6v5H8z" fill="#fff" />
      </svg>
      {iconOnly ? <span className="sr-only">Valuator</span> : <span className="text-lg">Valuator</span>}
    </span>
  );
}
