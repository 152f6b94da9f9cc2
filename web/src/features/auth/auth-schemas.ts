// The sign-in pages' validation (product-and-account spec, section 5), in a chunk of its own that the pages load when
// the visitor moves into a form or submits it (lib/lazy-resolver.ts), not before their first paint: it brings zod.
// The zod settings must come before any schema is built.
import "@/lib/zod-config";
import { zodResolver } from "@hookform/resolvers/zod";
import type { Resolver } from "react-hook-form";
import { z } from "zod";

// 6 characters here; 8 when a password is chosen.
export const loginSchema = z.object({
  email: z.email("Invalid email address"),
  password: z.string().min(6, "Password must be at least 6 characters"),
});
export type LoginValues = z.infer<typeof loginSchema>;
export const loginResolver: Resolver<LoginValues> = zodResolver(loginSchema);

// confirmPassword is checked here only; the server never sees it.
export const registerSchema = z
  .object({
    fullName: z.string().trim().min(2, "Full name must be at least 2 characters"),
    email: z.email("Invalid email address"),
    password: z.string().min(8, "Password must be at least 8 characters"),
    confirmPassword: z.string(),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: "Passwords don't match",
    path: ["confirmPassword"],
  });
export type RegisterValues = z.infer<typeof registerSchema>;
export const registerResolver: Resolver<RegisterValues> = zodResolver(registerSchema);

export const forgotPasswordSchema = z.object({
  email: z.string().trim().min(1, "Email is required").pipe(z.email("Invalid email address")),
});
export type ForgotPasswordValues = z.infer<typeof forgotPasswordSchema>;
export const forgotPasswordResolver: Resolver<ForgotPasswordValues> = zodResolver(forgotPasswordSchema);
