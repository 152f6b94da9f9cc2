// Sign in, create account, forgot and reset password: one chunk (react-hook-form and zod), loaded when one of them is
// shown (routes.tsx). Forms build their zod schemas when their modules load: the zod settings must come first.
import "@/lib/zod-config";

export { LoginPage } from "@/features/auth/login-page";
export { RegisterPage } from "@/features/auth/register-page";
export { ForgotPasswordPage } from "@/features/auth/forgot-password-page";
export { ResetPasswordPage } from "@/features/auth/reset-password-page";
