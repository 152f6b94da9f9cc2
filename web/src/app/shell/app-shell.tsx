import { useCallback, useEffect, useRef, useState } from "react";
import { Outlet, useLocation } from "react-router";
import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { focusElement, focusIsLost, MAIN_CONTENT_ID, mainContent } from "@/components/ui/focus";
import { useDialogFocus } from "@/components/ui/use-return-focus";
import { SupportPanel } from "@/features/support/support-panel";
import { useAuth } from "@/lib/auth";
import { Header } from "./header";
import { Sidebar } from "./sidebar";

/**
 * The signed-in frame: a fixed sidebar on wide screens, a slide-in menu on small ones, the header, and the current
 * screen. Landmarks, once each: the header (banner), the navigation (the sidebar's "Main", or the menu's "Main menu"
 * on a phone, where the sidebar is not shown) and <main id="main-content">, the skip link's target.
 */
export function AppShell() {
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  const { refreshUser } = useAuth();
  // The menu is a dialog like every other (focus trapped, given back to "Open menu" on close), except after a link
  // to another page: then the new page's heading takes focus (page-titles.ts), not the menu button.
  const leaving = useRef(false);
  // The Support panel (issue 27) opens from the header, or on a phone from the menu: the menu closes first, focus
  // goes back to "Open menu", and then the panel opens, so that closing it returns focus there.
  const [supportOpen, setSupportOpen] = useState(false);
  const supportNext = useRef(false);
  const onMenuClose = useCallback((event: Event) => {
    if (supportNext.current) {
      supportNext.current = false;
      setTimeout(() => setSupportOpen(true), 0);
      return;
    }
    if (!leaving.current) return;
    leaving.current = false;
    event.preventDefault();
    // The new page's heading, if it is already there (else page-titles.ts focuses it when it appears).
    const heading = mainContent()?.querySelector<HTMLElement>("h1");
    if (focusIsLost() && heading) focusElement(heading);
  }, []);
  const menuFocus = useDialogFocus({ onCloseAutoFocus: onMenuClose });
  const onNavigate = (to: string) => {
    leaving.current = to !== pathname;
    setMenuOpen(false);
  };

  // Credits are also spent outside this tab (API keys, batch jobs): each screen change reads the balance again, so
  // the header never shows a stale one for long.
  useEffect(() => {
    void refreshUser();
  }, [pathname, refreshUser]);

  // The menu is for small screens only: if the window grows past the breakpoint while it is open, close it, or it
  // would keep the page inert behind an invisible dialog.
  useEffect(() => {
    if (!menuOpen || typeof window.matchMedia !== "function") return;
    const wide = window.matchMedia("(min-width: 768px)");
    const onChange = () => {
      if (wide.matches) setMenuOpen(false);
    };
    onChange();
    wide.addEventListener("change", onChange);
    return () => wide.removeEventListener("change", onChange);
  }, [menuOpen]);
  return (
    <div className="flex min-h-screen bg-muted/30">
      <div className="sticky top-0 hidden h-screen w-64 shrink-0 border-r md:block">
        <Sidebar navLabel="Main" />
      </div>

      <DialogPrimitive.Root open={menuOpen} onOpenChange={setMenuOpen}>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-black/60 md:hidden" />
          <DialogPrimitive.Content
            aria-describedby={undefined}
            onOpenAutoFocus={menuFocus.onOpenAutoFocus}
            onCloseAutoFocus={menuFocus.onCloseAutoFocus}
            className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] border-r bg-sidebar shadow-lg focus:outline-none md:hidden"
          >
            <DialogPrimitive.Title className="sr-only">Menu</DialogPrimitive.Title>
            <Sidebar
              navLabel="Main menu"
              onNavigate={onNavigate}
              onOpenSupport={() => {
                supportNext.current = true;
                setMenuOpen(false);
              }}
            />
            <DialogPrimitive.Close
              className="absolute right-3 top-4 rounded-sm p-1 opacity-70 hover:opacity-100 focus:outline-none focus:ring-2 focus:ring-ring"
              aria-label="Close menu"
            >
              <X className="h-4 w-4" aria-hidden="true" />
            </DialogPrimitive.Close>
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
      </DialogPrimitive.Root>

      <div className="flex min-w-0 flex-1 flex-col">
        <Header
          onOpenMenu={() => setMenuOpen(true)}
          menuOpen={menuOpen}
          onOpenSupport={() => setSupportOpen(true)}
          supportOpen={supportOpen}
        />
        <main id={MAIN_CONTENT_ID} tabIndex={-1} className="flex-1 px-4 py-6 focus:outline-none sm:px-6 lg:px-8">
          <Outlet />
        </main>
      </div>
      <SupportPanel open={supportOpen} onOpenChange={setSupportOpen} />
    </div>
  );
}
