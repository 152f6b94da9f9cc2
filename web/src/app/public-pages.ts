// The static public pages other than the landing page and Pricing: one small chunk, loaded when one of them is shown or
// a link to one is pointed at (routes.tsx). Pricing has a chunk of its own (route-chunks.ts): it is a page people
// arrive on, and the help center's examples would make its first load larger.
export { AboutPage } from "@/features/marketing/about-page";
export { PrivacyPage } from "@/features/marketing/privacy-page";
export { TermsPage } from "@/features/marketing/terms-page";
export { HelpCenterPage } from "@/features/marketing/help-center-page";
