// The static public pages other than the landing page: one small chunk, loaded when one of them is shown or a link
// to one is pointed at (routes.tsx).
export { PricingPage } from "@/features/marketing/pricing-page";
export { AboutPage } from "@/features/marketing/about-page";
export { PrivacyPage } from "@/features/marketing/privacy-page";
export { TermsPage } from "@/features/marketing/terms-page";
export { HelpCenterPage } from "@/features/marketing/help-center-page";
