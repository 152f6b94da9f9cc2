import { useState } from "react";
import { Home } from "lucide-react";
import { cn } from "@/lib/utils";

interface PropertyPhotoProps {
  src: string | null | undefined;
  alt: string;
  className?: string;
}

/**
 * The property's photo, or a placeholder gradient when there is none or it fails to load (spec, "Property
 * Lookup"). The failure is remembered per URL, so a later result with another photo is tried afresh.
 */
export function PropertyPhoto({ src, alt, className }: PropertyPhotoProps) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const showImage = Boolean(src) && failedSrc !== src;
  return (
    <div className={cn("relative overflow-hidden bg-muted", className)}>
      {showImage ? (
        <img
          src={src ?? undefined}
          alt={alt}
          loading="lazy"
          decoding="async"
          className="h-full w-full object-cover"
          onError={() => setFailedSrc(src ?? null)}
        />
      ) : (
        <div
          data-testid="photo-placeholder"
          role="img"
          aria-label="No photo available"
          className="flex h-full w-full items-center justify-center bg-gradient-to-br from-sky-200 via-indigo-100 to-emerald-100"
        >
          <Home className="h-14 w-14 text-white/90 drop-shadow" aria-hidden="true" />
        </div>
      )}
    </div>
  );
}
