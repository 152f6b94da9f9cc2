// The code of each route, split by page (issues 13 and 26; docs/architecture.md, "Web app"), and the loaders that
// fetch it. This module is part of the entry script (main.tsx), so it imports nothing at run time: the entry starts
// the current page's code at once, alongside the app's (React and the route table: boot.tsx), instead of after it.
// routes.tsx turns these loaders into the lazily loaded pages. e2e/tests/bundle-budget.spec.ts holds the entry and
// the public pages to a budget.

import type { components } from "@/lib/api-types";

type DemoAccount = components["schemas"]["DemoAccount"];

/** A chunk's loader: fetches and runs the module once, and keeps it (`module`) so a page can render it at once. */
export interface Chunk<M> {
  (): Promise<M>;
  /** The module, once it has loaded. */
  module?: M;
}

/** Memoizes a dynamic import; a failed load is forgotten, so the next attempt fetches again. */
function chunk<M>(load: () => Promise<M>): Chunk<M> {
  let pending: Promise<M> | undefined;
  const get = (() =>
    (pending ??= load().then(
      (m) => {
        get.module = m;
        return m;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    ))) as Chunk<M>;
  return get;
}

/** The toaster's code (notifications.tsx loads it with the first toast); pages with toasts fetch it after theirs. */
const loadToaster = chunk(() => import("@/components/ui/toaster"));

/**
 * Loads a page's code; the toaster's follows at the visitor's first touch, click, key or focus, so that it is in by
 * the time a toast comes (they answer what the visitor did). Not with the page's code: on a first visit of /login
 * its four files took bandwidth from the ones the page needs to show, and loaded once the browser was idle, running
 * it still blocked the main thread after the first paint (issue 33, Lighthouse's simulated phone). A toast that
 * comes first (one a page shows as it opens) loads it itself (notifications.tsx).
 */
function withToaster<M>(load: () => Promise<M>): () => Promise<M> {
  return () => {
    onFirstInteraction(() => loadToaster().catch(() => undefined));
    return load();
  };
}

const INTERACTIONS = ["pointerdown", "keydown", "focusin"] as const;

/** Runs `run` once, at the first pointer down, key press or focus in the page. */
function onFirstInteraction(run: () => void): void {
  const once = () => {
    for (const type of INTERACTIONS) document.removeEventListener(type, once, true);
    run();
  };
  for (const type of INTERACTIONS) document.addEventListener(type, once, { capture: true, passive: true });
}

export const loadLandingPage = chunk(() => import("@/features/marketing/landing-page"));
export const loadPricingPage = chunk(() => import("@/features/marketing/pricing-page"));
export const loadPublicPages = chunk(() => import("./public-pages"));
export const loadPublicFormPages = chunk(withToaster(() => import("./public-form-pages")));
export const loadAuthPages = chunk(withToaster(() => import("./auth-pages")));
export const loadSignedInApp = chunk(withToaster(() => import("./signed-in-app")));
// The API viewer is large (swagger-ui), so it loads only when /docs is visited.
export const loadDocs = chunk(() => import("@/features/docs/docs-page"));
// The charts library is most of the Reporting screen's weight; the other screens do not need it.
export const loadReporting = chunk(() => import("@/features/reporting/reporting-page"));
// The Markets screen (issue 28) draws charts too: its own chunk, so neither the public pages nor the other signed-in
// screens download it.
export const loadMarkets = chunk(() => import("@/features/markets/markets-page"));
// Portfolios (issue 40) draw a chart too: their own chunk.
export const loadPortfolios = chunk(() => import("@/features/portfolios/portfolios-page"));

// The operator console (issue 27): only operators use it, so no one else downloads it.
export const loadAdmin = chunk(() => import("@/features/admin/admin-pages"));

const loadReportingScreen = () => Promise.all([loadSignedInApp(), loadReporting()]);
const loadAdminScreen = () => Promise.all([loadSignedInApp(), loadAdmin()]);
const loadMarketsScreen = () => Promise.all([loadSignedInApp(), loadMarkets()]);
const loadPortfoliosScreen = () => Promise.all([loadSignedInApp(), loadPortfolios()]);

/**
 * The development server's demo sign-in (GET /api/auth/demo: 200 with it, 204 elsewhere), fetched alongside the
 * sign-in page's code on a first visit so the page shows the demo button in its first paint. Fetched after the page
 * rendered, it arrived one round trip later and pushed the card down (a layout shift, and the page's largest paint
 * 0.4 s later on Lighthouse's mobile run). The page reads `module` and fetches it itself when it is not there.
 */
export const prefetchedDemoAccount = chunk(
  (): Promise<DemoAccount | null> =>
    fetch("/api/auth/demo", { credentials: "same-origin" }).then(
      (res) => (res.status === 200 ? (res.json() as Promise<DemoAccount>) : null),
      () => null,
    ),
);

const loadSignInPage = () => Promise.all([loadAuthPages(), prefetchedDemoAccount()]);

/** The chunk each route needs, by path, so it can be fetched before the page is shown. */
const CHUNK_OF_PATH: Record<string, () => Promise<unknown>> = {
  "/": loadLandingPage,
  "/pricing": loadPricingPage,
  "/about": loadPublicPages,
  "/privacy": loadPublicPages,
  "/terms": loadPublicPages,
  "/help-center": loadPublicPages,
  "/contact-us": loadPublicFormPages,
  "/opt-out": loadPublicFormPages,
  "/opt-out/confirm": loadPublicFormPages,
  "/unsubscribe": loadPublicFormPages,
  "/login": loadSignInPage,
  "/sign-in": loadSignInPage,
  "/register": loadAuthPages,
  "/forgot-password": loadAuthPages,
  "/reset-password": loadAuthPages,
  "/docs": loadDocs,
  "/dashboard": loadSignedInApp,
  "/property-lookup": loadSignedInApp,
  "/person-lookup": loadSignedInApp,
  "/batch-upload": loadSignedInApp,
  "/markets": loadMarketsScreen,
  "/portfolios": loadPortfoliosScreen,
  "/api-keys": loadSignedInApp,
  "/reporting": loadReportingScreen,
  "/history": loadSignedInApp,
  "/billing": loadSignedInApp,
  "/settings": loadSignedInApp,
};

/** The chunk of a path: its own, for /admin and every path under it the console's, for /portfolios/:id the list's. */
function chunkOf(path: string): (() => Promise<unknown>) | undefined {
  if (CHUNK_OF_PATH[path]) return CHUNK_OF_PATH[path];
  if (/^\/admin(\/|$)/.test(path)) return loadAdminScreen;
  return /^\/portfolios\/[^/]+$/.test(path) ? loadPortfoliosScreen : undefined;
}

/** The loaders of the screens only a signed-in visitor sees; anyone else is sent to the sign-in page. */
const SIGNED_IN_CHUNKS = new Set<unknown>([loadSignedInApp, loadReportingScreen, loadMarketsScreen, loadPortfoliosScreen, loadAdminScreen]);

/** Starts loading the code of the route at `pathname` (a no-op for an unknown path or a chunk already loaded). */
export function prefetchRoute(pathname: string): void {
  // A failed prefetch is retried by the route itself when it is visited, which then reports the failure.
  chunkOf(pathname)?.().catch(() => undefined);
}

/**
 * Loads the code of the page a first visit to `pathname` shows: its own, or the sign-in page's when the visitor has
 * no session and the path is a signed-in screen (which sends them there). Resolves when it has loaded, or failed.
 */
export function loadFirstPage(pathname: string, signedIn: boolean): Promise<void> {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  let load = chunkOf(path);
  if (load && !signedIn && SIGNED_IN_CHUNKS.has(load)) load = loadSignInPage;
  // A failure shows when the page renders (ChunkErrorBoundary), not here.
  return load ? load().then(() => undefined, () => undefined) : Promise.resolve();
}

/** The forms whose success leads into the signed-in app. */
const SIGN_IN_PATHS = new Set(["/login", "/sign-in", "/register"]);

/**
 * Fetches a route's code as soon as the visitor shows the intent to go there: pointing at, touching or focusing a
 * link to it, and submitting the sign-in or sign-up form (the signed-in app loads while the server checks the
 * password). Navigations then rarely wait. Returns the function that stops it.
 */
export function prefetchOnIntent(doc: Document = document): () => void {
  const onLinkIntent = (e: Event) => {
    const link = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (link instanceof HTMLAnchorElement && link.origin === window.location.origin) prefetchRoute(link.pathname);
  };
  const onSubmit = () => {
    if (SIGN_IN_PATHS.has(window.location.pathname)) prefetchRoute("/dashboard");
  };
  const intents = ["pointerover", "touchstart", "focusin"] as const;
  for (const type of intents) doc.addEventListener(type, onLinkIntent, { passive: true });
  doc.addEventListener("submit", onSubmit, true);
  return () => {
    for (const type of intents) doc.removeEventListener(type, onLinkIntent);
    doc.removeEventListener("submit", onSubmit, true);
  };
}

const RELOADED_AT = "valuator:reloaded-for-chunk";
/** A failed load within this long of the last reload is not reloaded again: the problem is not a new release. */
const RELOAD_GAP_MS = 60_000;

/**
 * After a release the old hashed files are gone, so a page open since before it fails to load the code of a page it
 * has not shown yet; reloading fetches the new version. Reloads once (returns true) unless it already did within the
 * last minute (offline, or a broken release: returns false, and the caller says so instead).
 */
export function reloadOnce(reload: () => void = () => window.location.reload(), now = Date.now()): boolean {
  try {
    const last = Number(sessionStorage.getItem(RELOADED_AT) ?? 0);
    if (now - last < RELOAD_GAP_MS) return false;
    sessionStorage.setItem(RELOADED_AT, String(now));
  } catch {
    // No session storage (a locked-down browser): never reload, so it cannot loop.
    return false;
  }
  reload();
  return true;
}
