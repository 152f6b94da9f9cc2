// Sign in, create account, forgot and reset password: one chunk (with react-hook-form), loaded when one of them is
// shown (routes.tsx). Their zod schemas are a chunk of their own (features/auth/auth-schemas.ts), loaded as the
// visitor moves into a form, so that these pages show without waiting for zod.

export { LoginPage } from "@/features/auth/login-page";
export { RegisterPage } from "@/features/auth/register-page";
export { ForgotPasswordPage } from "@/features/auth/forgot-password-page";
export { ResetPasswordPage } from "@/features/auth/reset-password-page";
