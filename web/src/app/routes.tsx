import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from "react";
import { Route, Routes, useLocation } from "react-router";
import { FullPageSpinner } from "@/components/ui/spinner";
import { ProtectedRoute } from "./shell/protected-route";
import { ChunkErrorBoundary } from "./chunk-error-boundary";
import { loadToaster } from "./notifications";
import { NotFoundPage } from "./not-found-page";
import { LandingPage } from "@/features/marketing/landing-page";
import { usePageTitle } from "./page-titles";

// The bundle is split by route (issue 13; docs/architecture.md, "Web app"): the landing page and the not-found
// screen are in the entry chunk, everything else loads when first shown. The landing page's JS is held to a budget
// by e2e/tests/bundle-budget.spec.ts.
// Pages that show toasts fetch the toaster's code alongside theirs, so their first toast does not wait for it.
const withToaster = <M,>(load: () => Promise<M>) => () => {
  loadToaster().catch(() => undefined);
  return load();
};
const loadPublicPages = () => import("./public-pages");
const loadPublicFormPages = withToaster(() => import("./public-form-pages"));
const loadAuthPages = withToaster(() => import("./auth-pages"));
const loadSignedInApp = withToaster(() => import("./signed-in-app"));
// The API viewer is large (swagger-ui), so it loads only when /docs is visited.
const loadDocs = () => import("@/features/docs/docs-page");
// The charts library is most of the Reporting screen's weight; the other screens do not need it.
const loadReporting = () => import("@/features/reporting/reporting-page");

/** A component exported as `name` by a lazily loaded module. */
function lazyNamed<M extends Record<K, ComponentType>, K extends keyof M & string>(
  load: () => Promise<M>,
  name: K,
): LazyExoticComponent<M[K]> {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}

const PricingPage = lazyNamed(loadPublicPages, "PricingPage");
const AboutPage = lazyNamed(loadPublicPages, "AboutPage");
const PrivacyPage = lazyNamed(loadPublicPages, "PrivacyPage");
const TermsPage = lazyNamed(loadPublicPages, "TermsPage");
const HelpCenterPage = lazyNamed(loadPublicPages, "HelpCenterPage");
const ContactPage = lazyNamed(loadPublicFormPages, "ContactPage");
const OptOutPage = lazyNamed(loadPublicFormPages, "OptOutPage");
const OptOutConfirmPage = lazyNamed(loadPublicFormPages, "OptOutConfirmPage");
const UnsubscribePage = lazyNamed(loadPublicFormPages, "UnsubscribePage");
const LoginPage = lazyNamed(loadAuthPages, "LoginPage");
const RegisterPage = lazyNamed(loadAuthPages, "RegisterPage");
const ForgotPasswordPage = lazyNamed(loadAuthPages, "ForgotPasswordPage");
const ResetPasswordPage = lazyNamed(loadAuthPages, "ResetPasswordPage");
const AppShell = lazyNamed(loadSignedInApp, "AppShell");
const PropertyLookupPage = lazyNamed(loadSignedInApp, "PropertyLookupPage");
const PersonLookupPage = lazyNamed(loadSignedInApp, "PersonLookupPage");
const BatchUploadPage = lazyNamed(loadSignedInApp, "BatchUploadPage");
const ApiKeysPage = lazyNamed(loadSignedInApp, "ApiKeysPage");
const HistoryPage = lazyNamed(loadSignedInApp, "HistoryPage");
const BillingPage = lazyNamed(loadSignedInApp, "BillingPage");
const SettingsPage = lazyNamed(loadSignedInApp, "SettingsPage");
const DocsPage = lazy(loadDocs);
const ReportingPage = lazyNamed(loadReporting, "ReportingPage");

/** The chunk each route needs, by path, so it can be fetched before the visitor gets there. */
const CHUNK_OF_PATH: Record<string, () => Promise<unknown>> = {
  "/pricing": loadPublicPages,
  "/about": loadPublicPages,
  "/privacy": loadPublicPages,
  "/terms": loadPublicPages,
  "/help-center": loadPublicPages,
  "/contact-us": loadPublicFormPages,
  "/opt-out": loadPublicFormPages,
  "/opt-out/confirm": loadPublicFormPages,
  "/unsubscribe": loadPublicFormPages,
  "/login": loadAuthPages,
  "/sign-in": loadAuthPages,
  "/register": loadAuthPages,
  "/forgot-password": loadAuthPages,
  "/reset-password": loadAuthPages,
  "/docs": loadDocs,
  "/dashboard": loadSignedInApp,
  "/property-lookup": loadSignedInApp,
  "/person-lookup": loadSignedInApp,
  "/batch-upload": loadSignedInApp,
  "/api-keys": loadSignedInApp,
  "/history": loadSignedInApp,
  "/billing": loadSignedInApp,
  "/settings": loadSignedInApp,
};

/** Starts loading the code of the route at `pathname` (a no-op when it is in the entry chunk or already loaded). */
export function prefetchRoute(pathname: string): void {
  // A failed prefetch is retried by the route itself when it is visited, which then reports the failure.
  CHUNK_OF_PATH[pathname]?.().catch(() => undefined);
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

/** The route table of the spec (product-and-account section 2). */
export function AppRoutes() {
  const { pathname } = useLocation();
  // Every route's tab title, from its path (page-titles.ts).
  usePageTitle(pathname);
  // One boundary for every lazily loaded page. Navigations are transitions (react-router's BrowserRouter), so while a
  // page's code loads the current page stays on screen; the spinner shows only on a first load.
  return (
    <ChunkErrorBoundary resetKey={pathname}>
      <Suspense fallback={<FullPageSpinner label="Loading" />}>
        <Routes>
          <Route path="/" element={<LandingPage />} />
          <Route path="/login" element={<LoginPage />} />
          <Route path="/sign-in" element={<LoginPage />} />
          <Route path="/register" element={<RegisterPage />} />
          <Route path="/forgot-password" element={<ForgotPasswordPage />} />
          <Route path="/reset-password" element={<ResetPasswordPage />} />
          <Route
            path="/docs"
            element={
              <Suspense fallback={<FullPageSpinner label="Loading API documentation" />}>
                <DocsPage />
              </Suspense>
            }
          />
          <Route path="/pricing" element={<PricingPage />} />
          <Route path="/about" element={<AboutPage />} />
          <Route path="/privacy" element={<PrivacyPage />} />
          <Route path="/terms" element={<TermsPage />} />
          <Route path="/contact-us" element={<ContactPage />} />
          <Route path="/opt-out" element={<OptOutPage />} />
          <Route path="/opt-out/confirm" element={<OptOutConfirmPage />} />
          <Route path="/unsubscribe" element={<UnsubscribePage />} />
          <Route path="/help-center" element={<HelpCenterPage />} />

          <Route
            element={
              <ProtectedRoute>
                <AppShell />
              </ProtectedRoute>
            }
          >
            <Route path="/dashboard" element={<PropertyLookupPage />} />
            <Route path="/property-lookup" element={<PropertyLookupPage />} />
            <Route path="/person-lookup" element={<PersonLookupPage />} />
            <Route path="/batch-upload" element={<BatchUploadPage />} />
            <Route path="/api-keys" element={<ApiKeysPage />} />
            <Route
              path="/reporting"
              element={
                <Suspense fallback={<FullPageSpinner label="Loading reports" />}>
                  <ReportingPage />
                </Suspense>
              }
            />
            <Route path="/history" element={<HistoryPage />} />
            <Route path="/billing" element={<BillingPage />} />
            <Route path="/settings" element={<SettingsPage />} />
          </Route>

          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </ChunkErrorBoundary>
  );
}
