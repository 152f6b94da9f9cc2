import { useForm } from "react-hook-form";
import { Link, Navigate } from "react-router";
import { Button } from "@/components/ui/button";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { applyServerFieldErrors } from "@/lib/form-errors";
import { AuthLayout } from "./auth-layout";
import { useAuth } from "@/lib/auth";
import { lazyResolver } from "@/lib/lazy-resolver";
import type { RegisterValues } from "./auth-schemas";

// The sign-up rules (auth-schemas.ts), loaded as the visitor moves into the form.
const resolver = lazyResolver(() => import("./auth-schemas").then((m) => m.registerResolver));

export function RegisterPage() {
  const { user, register: createAccount } = useAuth();
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<RegisterValues>({
    resolver,
    mode: "onSubmit",
    defaultValues: { fullName: "", email: "", password: "", confirmPassword: "" },
  });

  if (user) return <Navigate to="/dashboard" replace />;

  const onSubmit = async (values: RegisterValues) => {
    try {
      await createAccount(values.fullName, values.email, values.password);
    } catch (err) {
      // A password the server refuses (too easy to guess, and why) or a taken email is shown on its field too; the
      // spec's 'Error' toast says it either way.
      applyServerFieldErrors(err, setError, ["fullName", "email", "password"]);
      toast({ variant: "destructive", title: "Error", description: errorMessage(err, "Registration failed") });
    }
  };

  return (
    <AuthLayout
      title="Create your account"
      description="Start with 100 free credits. No card needed."
      footer={
        <p>
          Already have an account?{" "}
          <Link to="/login" className="font-medium text-primary hover:underline">
            Sign in
          </Link>
        </p>
      }
    >
      <form onSubmit={handleSubmit(onSubmit)} onFocus={resolver.preload} noValidate className="space-y-4">
        <Field id="register-fullName" label="Full Name" error={errors.fullName?.message}>
          <Input
            autoComplete="name"
            placeholder="Jane Doe"
            {...fieldA11y("register-fullName", errors.fullName?.message)}
            {...register("fullName")}
          />
        </Field>
        <Field id="register-email" label="Email" error={errors.email?.message}>
          <Input
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            {...fieldA11y("register-email", errors.email?.message)}
            {...register("email")}
          />
        </Field>
        <Field
          id="register-password"
          label="Password"
          error={errors.password?.message}
          hint="At least 8 characters."
        >
          <Input
            type="password"
            autoComplete="new-password"
            {...fieldA11y("register-password", errors.password?.message)}
            {...register("password")}
          />
        </Field>
        <Field id="register-confirmPassword" label="Confirm Password" error={errors.confirmPassword?.message}>
          <Input
            type="password"
            autoComplete="new-password"
            {...fieldA11y("register-confirmPassword", errors.confirmPassword?.message)}
            {...register("confirmPassword")}
          />
        </Field>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? "Creating account..." : "Create Account"}
        </Button>
      </form>
    </AuthLayout>
  );
}
