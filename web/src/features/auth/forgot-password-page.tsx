import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useNavigate } from "react-router";
import { MailCheck } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { apiJson, errorMessage } from "@/lib/api";
import type { PasswordResetRequested } from "@/lib/types";
import { lazyResolver } from "@/lib/lazy-resolver";
import { AuthLayout } from "./auth-layout";
import type { ForgotPasswordValues } from "./auth-schemas";

// The development-mode toast stays longer so the token can be copied (spec section 9: 10 seconds).
export const DEV_TOKEN_TOAST_MS = 10000;

// The email's check (auth-schemas.ts), loaded as the visitor moves into the form.
const resolver = lazyResolver(() => import("./auth-schemas").then((m) => m.forgotPasswordResolver));

export function ForgotPasswordPage() {
  const navigate = useNavigate();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<ForgotPasswordValues>({
    resolver,
    mode: "onSubmit",
    defaultValues: { email: "" },
  });

  const onSubmit = async ({ email }: ForgotPasswordValues) => {
    try {
      const res = await apiJson<PasswordResetRequested>("POST", "/api/auth/request-password-reset", { email });
      setSentTo(email);
      toast({
        title: "Reset Link Sent",
        description: "If an account with that email exists, a password reset link has been sent.",
      });
      if (res.resetToken) showDevelopmentToken(res.resetToken);
    } catch (err) {
      toast({
        variant: "destructive",
        title: "Error",
        description: errorMessage(err, "Failed to send reset email. Please try again."),
      });
    }
  };

  if (sentTo !== null) {
    return (
      <AuthLayout title="Check Your Email">
        <div className="space-y-6 text-center">
          <MailCheck className="mx-auto h-12 w-12 text-primary" aria-hidden="true" />
          <p className="text-sm text-muted-foreground">
            If an account exists for <span className="font-medium text-foreground">{sentTo}</span>, you will receive
            an email with a link to reset your password. The link is valid for one hour and can be used once.
          </p>
          <div className="flex flex-col gap-2">
            <Button type="button" variant="outline" onClick={() => setSentTo(null)}>
              Try Again
            </Button>
            <Button type="button" onClick={() => navigate("/login")}>
              Back to Login
            </Button>
          </div>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Forgot your password?"
      description="Enter your email and we'll send you a link to reset it."
      footer={
        <p>
          Remembered it?{" "}
          <Link to="/login" className="font-medium text-primary hover:underline">
            Back to sign in
          </Link>
        </p>
      }
    >
      <form onSubmit={handleSubmit(onSubmit)} onFocus={resolver.preload} noValidate className="space-y-4">
        <Field id="forgot-email" label="Email" error={errors.email?.message}>
          <Input
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            {...fieldA11y("forgot-email", errors.email?.message)}
            {...register("email")}
          />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? "Sending..." : "Send Reset Link"}
        </Button>
      </form>
    </AuthLayout>
  );
}

/**
 * In development mode the server returns the reset token instead of mailing it; this second toast (which replaces
 * the first, the limit being one) shows it with a direct link.
 */
function showDevelopmentToken(token: string) {
  const href = `/reset-password?token=${encodeURIComponent(token)}`;
  const shown = toast({
    title: "Development Mode",
    duration: DEV_TOKEN_TOAST_MS,
    description: (
      <span className="block space-y-1">
        <span className="block">
          Reset token: <code className="break-all font-mono text-xs">{token}</code>
        </span>
        <Link to={href} className="font-medium underline" onClick={() => shown.dismiss()}>
          Open reset link
        </Link>
      </span>
    ),
  });
}
