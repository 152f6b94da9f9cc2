import { createElement, lazy, Suspense, useState, type ComponentType, type LazyExoticComponent } from "react";
import { Route, Routes, useLocation } from "react-router";
import { FullPageSpinner } from "@/components/ui/spinner";
import { ProtectedRoute } from "./shell/protected-route";
import { ChunkErrorBoundary } from "./chunk-error-boundary";
import { NotFoundPage } from "./not-found-page";
import { usePageTitle } from "./page-titles";
import {
  loadAuthPages,
  loadAdmin,
  loadDocs,
  loadLandingPage,
  loadMarkets,
  loadPortfolios,
  loadPublicFormPages,
  loadPricingPage,
  loadPublicPages,
  loadReporting,
  loadSignedInApp,
  type Chunk,
} from "./route-chunks";

export { prefetchOnIntent, prefetchRoute } from "./route-chunks";

// The bundle is split by route (issues 13 and 26; docs/architecture.md, "Web app"): every page loads its code when
// first shown (route-chunks.ts), the not-found screen excepted. The entry script (main.tsx) fetches the first page's
// code alongside the app's and renders once both are in, so a first visit shows the page with no spinner; a later
// navigation keeps the current page on screen while the next one's code loads. e2e/tests/bundle-budget.spec.ts
// holds the entry and the public pages to their budget.

/**
 * A component exported as `name` by a lazily loaded chunk. Once the chunk has loaded it renders at once, without
 * suspending; before, it suspends until the chunk is in. Each mounted page keeps the form it started with, so it is
 * never swapped (and its state lost) when the chunk arrives.
 */
function lazyNamed<M extends Record<K, ComponentType>, K extends keyof M & string>(
  load: Chunk<M>,
  name: K,
): ComponentType {
  const Lazy: LazyExoticComponent<ComponentType> = lazy(() => load().then((m) => ({ default: m[name] })));
  function Page() {
    const [Component] = useState<ComponentType>(() => load.module?.[name] ?? Lazy);
    return createElement(Component);
  }
  Page.displayName = `Lazy(${name})`;
  return Page;
}

const LandingPage = lazyNamed(loadLandingPage, "LandingPage");
const PricingPage = lazyNamed(loadPricingPage, "PricingPage");
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
const DocsPage = lazyNamed(loadDocs, "default");
const ReportingPage = lazyNamed(loadReporting, "ReportingPage");
// Markets (issue 28): its own chunk, for the charts, like Reporting.
const MarketsPage = lazyNamed(loadMarkets, "MarketsPage");
// Portfolios (issue 40): its own chunk, for its chart, like Markets.
const PortfoliosPage = lazyNamed(loadPortfolios, "PortfoliosPage");
const PortfolioPage = lazyNamed(loadPortfolios, "PortfolioPage");
// The operator console (issue 27): its own chunk, which picks the page of the path (features/admin/admin-pages.tsx).
const AdminConsole = lazyNamed(loadAdmin, "AdminConsole");

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
            <Route
              path="/markets"
              element={
                <Suspense fallback={<FullPageSpinner label="Loading market statistics" />}>
                  <MarketsPage />
                </Suspense>
              }
            />
            <Route
              path="/portfolios"
              element={
                <Suspense fallback={<FullPageSpinner label="Loading portfolios" />}>
                  <PortfoliosPage />
                </Suspense>
              }
            />
            <Route
              path="/portfolios/:id"
              element={
                <Suspense fallback={<FullPageSpinner label="Loading the portfolio" />}>
                  <PortfolioPage />
                </Suspense>
              }
            />
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
            {/* The operator console (issue 27): a customer sees its "operators only" page at each. */}
            <Route path="/admin" element={<AdminConsole />} />
            <Route path="/admin/accounts" element={<AdminConsole />} />
            <Route path="/admin/accounts/:id" element={<AdminConsole />} />
            <Route path="/admin/support" element={<AdminConsole />} />
            <Route path="/admin/compliance" element={<AdminConsole />} />
            <Route path="/admin/overview" element={<AdminConsole />} />
            <Route path="/admin/audit" element={<AdminConsole />} />
          </Route>

          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </ChunkErrorBoundary>
  );
}
