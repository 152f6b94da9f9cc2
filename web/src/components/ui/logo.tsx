import { cn } from "@/lib/utils";

/**
 * The product mark (the same house as the favicon) and, unless iconOnly, the name beside it; compact draws both a
 * size smaller, for a phone's header, and nameClassName styles the name (to hide it on the narrowest screens).
 */
export function Logo({
  className,
  iconOnly = false,
  compact = false,
  nameClassName,
}: {
  className?: string;
  iconOnly?: boolean;
  compact?: boolean;
  nameClassName?: string;
}) {
  return (
    <span className={cn("inline-flex items-center font-semibold tracking-tight", compact ? "gap-1.5" : "gap-2", className)}>
      <svg
        viewBox="0 0 32 32"
        className={cn("shrink-0", compact ? "h-7 w-7" : "h-8 w-8")}
        aria-hidden="true"
        focusable="false"
      >
        <rect width="32" height="32" rx="7" fill="#2563eb" />
        <path d="M8 17l8-7 8 7v8h-5v-5h-6v5H8z" fill="#fff" />
      </svg>
      {iconOnly ? (
        <span className="sr-only">Valuator</span>
      ) : (
        <span className={cn(compact ? "text-base" : "text-lg", nameClassName)}>Valuator</span>
      )}
    </span>
  );
}
