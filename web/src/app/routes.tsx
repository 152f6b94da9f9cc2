import { lazy, Suspense } from "react";
import { Route, Routes } from "react-router";
import { FullPageSpinner } from "@/components/ui/spinner";
import { AppShell } from "./shell/app-shell";
import { ProtectedRoute } from "./shell/protected-route";
import { NotFoundPage } from "./not-found-page";
import { LandingPage } from "@/features/marketing/landing-page";
import { PricingPage } from "@/features/marketing/pricing-page";
import { AboutPage } from "@/features/marketing/about-page";
import { PrivacyPage } from "@/features/marketing/privacy-page";
import { TermsPage } from "@/features/marketing/terms-page";
import { HelpCenterPage } from "@/features/marketing/help-center-page";
import { ContactPage } from "@/features/contact/contact-page";
import { OptOutPage } from "@/features/person-opt-out/opt-out-page";
import { LoginPage } from "@/features/auth/login-page";
import { RegisterPage } from "@/features/auth/register-page";
import { ForgotPasswordPage } from "@/features/auth/forgot-password-page";
import { ResetPasswordPage } from "@/features/auth/reset-password-page";
import { PropertyLookupPage } from "@/features/property-lookup/property-lookup-page";
import { PersonLookupPage } from "@/features/person-lookup/person-lookup-page";
import { BatchUploadPage } from "@/features/batch-upload/batch-upload-page";
import { ApiKeysPage } from "@/features/api-keys/api-keys-page";
import { HistoryPage } from "@/features/history/history-page";
import { BillingPage } from "@/features/billing/billing-page";
import { SettingsPage } from "@/features/settings/settings-page";

// The API viewer is large (swagger-ui), so it loads only when /docs is visited.
const DocsPage = lazy(() => import("@/features/docs/docs-page"));
// The charts library is most of the Reporting screen's weight; the other screens do not need it.
const ReportingPage = lazy(() => import("@/features/reporting/reporting-page").then((m) => ({ default: m.ReportingPage })));

/** The route table of the spec (product-and-account section 2). */
export function AppRoutes() {
  return (
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
  );
}
