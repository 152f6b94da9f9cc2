import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { apiRequest, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import type { ResetPasswordRequest } from "@/lib/types";
import { AuthLayout } from "./auth-layout";

export const MIN_PASSWORD_LENGTH = 8;

interface ResetValues {
  password: string;
  confirmPassword: string;
}

/**
 * The problem with a new password, checked in the spec's order (product-and-account section 5): a mismatch is
 * reported before a short password. Null when the pair is acceptable.
 */
export function resetPasswordProblem({ password, confirmPassword }: ResetValues): {
  title: string;
  description: string;
} | null {
  if (password !== confirmPassword) {
    return { title: "Passwords Do Not Match", description: "Please ensure both password fields match." };
  }
  if (password.length < MIN_PASSWORD_LENGTH) {
    return { title: "Password Too Short", description: "Password must be at least 8 characters long." };
  }
  return null;
}

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const { clearSession } = useAuth();
  // The checks are reported as toasts, in a fixed order, rather than as field messages (spec section 5), so the
  // form takes no schema resolver; onSubmit does the checking.
  const {
    register,
    handleSubmit,
    formState: { isSubmitting },
  } = useForm<ResetValues>({ mode: "onSubmit", defaultValues: { password: "", confirmPassword: "" } });

  if (!token) {
    return (
      <AuthLayout title="Invalid Reset Link" description="The password reset link is invalid or missing.">
        <Button asChild className="w-full">
          <Link to="/forgot-password">Request New Reset Link</Link>
        </Button>
      </AuthLayout>
    );
  }

  const onSubmit = async (values: ResetValues) => {
    const problem = resetPasswordProblem(values);
    if (problem) {
      toast({ variant: "destructive", ...problem });
      return;
    }
    try {
      const body: ResetPasswordRequest = { token, password: values.password };
      await apiRequest("POST", "/api/auth/reset-password", body);
      // The server has signed out every session of the account, this browser's included (it may be signed in
      // when the link is opened here): forget it, so the sign-in screen shows instead of the old session.
      clearSession();
      toast({
        title: "Password Reset Successfully",
        description: "Your password has been updated. You can now sign in with your new password.",
      });
      navigate("/login");
    } catch (err) {
      toast({
        variant: "destructive",
        title: "Password Reset Failed",
        description: errorMessage(err, "An error occurred while resetting your password."),
      });
    }
  };

  return (
    <AuthLayout
      title="Set a new password"
      description="Choose a password of at least 8 characters."
      footer={
        <Link to="/login" className="font-medium text-primary hover:underline">
          Back to sign in
        </Link>
      }
    >
      <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
        <Field id="reset-password" label="New Password">
          <Input id="reset-password" type="password" autoComplete="new-password" {...register("password")} />
        </Field>
        <Field id="reset-confirmPassword" label="Confirm New Password">
          <Input
            id="reset-confirmPassword"
            type="password"
            autoComplete="new-password"
            {...register("confirmPassword")}
          />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? "Resetting Password..." : "Reset Password"}
        </Button>
      </form>
    </AuthLayout>
  );
}
