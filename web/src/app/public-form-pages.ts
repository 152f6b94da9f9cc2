// The public pages with a form (contact, opt-out and its confirmation, unsubscribe): one chunk, loaded when one of them is shown
// (routes.tsx), so the landing page does not carry react-hook-form and zod. Forms build their zod schemas when their
// modules load: the zod settings must come first.
import "@/lib/zod-config";

export { ContactPage } from "@/features/contact/contact-page";
export { OptOutPage } from "@/features/person-opt-out/opt-out-page";
export { OptOutConfirmPage } from "@/features/person-opt-out/opt-out-confirm-page";
export { UnsubscribePage } from "@/features/unsubscribe/unsubscribe-page";
