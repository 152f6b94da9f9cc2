// The browser tab's title of every route (issue 25): "<Page> · Valuator", set in one place from the route table's
// paths, so a page never keeps the previous page's title and a new route cannot be added without one (the unit test
// reads routes.tsx and fails on a path missing here). On a navigation, focus also moves to the new page's main
// heading (issue 26), so a screen reader says which page it is on and the keyboard starts from its content.
import { useEffect, useRef } from "react";
import { focusElement, focusIsLost, mainContent, whenPresent } from "@/components/ui/focus";

export const SITE_NAME = "Valuator";

/** The landing page's title: the product and what it does (the same as index.html's, so it does not flicker). */
export const HOME_TITLE = `${SITE_NAME} · Property Valuation API`;

/** The page name of each route path, as its heading or navigation names it. */
export const PAGE_NAMES: Readonly<Record<string, string>> = {
  "/login": "Sign In",
  "/sign-in": "Sign In",
  "/register": "Create Account",
  "/forgot-password": "Forgot Password",
  "/reset-password": "Reset Password",
  "/docs": "API Documentation",
  "/pricing": "Pricing",
  "/about": "About",
  "/privacy": "Privacy Policy",
  "/terms": "Terms of Service",
  "/contact-us": "Contact Us",
  "/opt-out": "Opt Out of Person Lookup",
  "/opt-out/confirm": "Confirm Your Opt-Out",
  "/unsubscribe": "Unsubscribe",
  "/help-center": "Help Center",
  "/dashboard": "Property Lookup",
  "/property-lookup": "Property Lookup",
  "/person-lookup": "Person Lookup",
  "/batch-upload": "Batch Upload",
  "/markets": "Markets",
  "/portfolios": "Portfolios",
  "/portfolios/:id": "Portfolio",
  "/api-keys": "API Keys",
  "/reporting": "Reporting",
  "/history": "Request History",
  "/billing": "Billing & Credits",
  "/settings": "Settings",
  "/admin": "Admin",
  "/admin/accounts": "Admin · Accounts",
  "/admin/accounts/:id": "Admin · Account",
  "/admin/support": "Admin · Support Inbox",
  "/admin/compliance": "Admin · Compliance",
  "/admin/overview": "Admin · Overview",
  "/admin/audit": "Admin · Audit Log",
};

/** The page name of a path: its own, or that of the route pattern with a ":param" segment it matches. */
function pageName(path: string): string | undefined {
  if (PAGE_NAMES[path]) return PAGE_NAMES[path];
  const got = path.split("/");
  for (const [pattern, name] of Object.entries(PAGE_NAMES)) {
    if (!pattern.includes(":")) continue;
    const want = pattern.split("/");
    if (want.length === got.length && want.every((seg, i) => seg.startsWith(":") ? got[i] !== "" : seg === got[i])) return name;
  }
  return undefined;
}

/** What a path the route table does not know shows (the catch-all's page). */
export const NOT_FOUND_NAME = "Page Not Found";

/** The document title of a path: the landing page's own, "<Page> · Valuator", or the not-found page's. */
export function pageTitle(pathname: string): string {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  if (path === "/") return HOME_TITLE;
  return `${pageName(path) ?? NOT_FOUND_NAME} · ${SITE_NAME}`;
}

/**
 * Keeps document.title in step with the route on show and, on a navigation (not on the first load), moves focus to
 * the new page's main heading.
 */
export function usePageTitle(pathname: string): void {
  useEffect(() => {
    document.title = pageTitle(pathname);
  }, [pathname]);
  useFocusHeadingOnNavigation(pathname);
}

/**
 * When the path changes, focus goes to the new page's h1 (inside <main>) once it is on screen: a page whose code or
 * data is still loading shows its heading a moment later. Focus is left alone on the first load (the browser starts
 * at the top, before the skip link), when the new page has already put it in its content itself (a field focused on
 * arrival), and when the user moves it before the heading appears.
 */
export function useFocusHeadingOnNavigation(pathname: string): void {
  const shown = useRef(pathname);
  useEffect(() => {
    // Compared with the last path, not with a "first run" flag: StrictMode runs effects twice on mount.
    if (shown.current === pathname) return;
    shown.current = pathname;
    return whenPresent(
      () => mainContent()?.querySelector<HTMLElement>("h1") ?? null,
      (heading) => {
        const main = heading.closest("main");
        const active = document.activeElement;
        const pageChoseFocus = !focusIsLost() && active !== main && !!main?.contains(active);
        if (!pageChoseFocus) focusElement(heading);
      },
    );
  }, [pathname]);
}
