import { lazy, Suspense, useState } from "react";
import { useToast } from "@/components/ui/use-toast";

/** The toaster's code (Radix toast, about 10 KB gzip); the pages that show toasts fetch it after theirs (route-chunks.ts). */
export const loadToaster = () => import("@/components/ui/toaster");

const Toaster = lazy(() => loadToaster().then((m) => ({ default: m.Toaster })));

/**
 * The app's toasts. The toaster is mounted when the first toast is shown and stays mounted, so pages that never
 * show one (the landing page) do not load its code.
 */
export function Notifications() {
  const { toasts } = useToast();
  const [mounted, setMounted] = useState(false);
  // A dismissed toast stays in the list until it is removed, long after; only an open one is a reason to mount.
  if (!mounted && toasts.some((t) => t.open !== false)) setMounted(true);
  if (!mounted) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}
