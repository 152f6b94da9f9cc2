import { useForm } from "react-hook-form";
import { useQuery } from "@tanstack/react-query";
import { Link, Navigate } from "react-router";
import { Button } from "@/components/ui/button";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/use-toast";
import { apiRequest, errorMessage } from "@/lib/api";
import type { components } from "@/lib/api-types";
import { AuthLayout } from "./auth-layout";
import { useAuth } from "@/lib/auth";
import { prefetchedDemoAccount } from "@/app/route-chunks";
import { lazyResolver } from "@/lib/lazy-resolver";
import type { LoginValues } from "./auth-schemas";

type DemoAccount = components["schemas"]["DemoAccount"];

/**
 * The demo account's sign-in: only a development server that seeded one gives it (GET /api/auth/demo); anywhere
 * else the answer is 204 (none), and any failure simply means there is no demo account to offer.
 */
async function fetchDemoAccount(): Promise<DemoAccount | null> {
  try {
    const res = await apiRequest("GET", "/api/auth/demo");
    return res.status === 200 ? ((await res.json()) as DemoAccount) : null;
  } catch {
    return null;
  }
}

// The sign-in rules (auth-schemas.ts), loaded as the visitor moves into the form.
const resolver = lazyResolver(() => import("./auth-schemas").then((m) => m.loginResolver));

export function LoginPage() {
  const { user, login } = useAuth();
  const {
    register,
    handleSubmit,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<LoginValues>({
    resolver,
    mode: "onSubmit",
    defaultValues: { email: "", password: "" },
  });
  // A first visit fetched it with the page's code (route-chunks.ts); the demo account does not change while the
  // server runs, so it is never fetched again.
  const { data: demo } = useQuery({
    queryKey: ["/api/auth/demo"],
    queryFn: fetchDemoAccount,
    enabled: !user,
    initialData: prefetchedDemoAccount.module,
    staleTime: Infinity,
  });

  if (user) return <Navigate to="/dashboard" replace />;

  const onSubmit = async (values: LoginValues) => {
    try {
      await login(values.email, values.password);
    } catch (err) {
      toast({ variant: "destructive", title: "Error", description: errorMessage(err, "Login failed") });
    }
  };

  // The demo account signs in through the form, filled in where the visitor can see it.
  const signInAsDemo = (account: DemoAccount) => {
    setValue("email", account.email);
    setValue("password", account.password);
    void handleSubmit(onSubmit)();
  };

  return (
    <AuthLayout
      title="Welcome back"
      description="Sign in to your Valuator account"
      footer={
        <p>
          Don&apos;t have an account?{" "}
          <Link to="/register" className="font-medium text-primary hover:underline">
            Sign up
          </Link>
        </p>
      }
    >
      <form onSubmit={handleSubmit(onSubmit)} onFocus={resolver.preload} noValidate className="space-y-4">
        <Field id="login-email" label="Email" error={errors.email?.message}>
          <Input
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            {...fieldA11y("login-email", errors.email?.message)}
            {...register("email")}
          />
        </Field>
        <Field id="login-password" label="Password" error={errors.password?.message}>
          <Input
            type="password"
            autoComplete="current-password"
            {...fieldA11y("login-password", errors.password?.message)}
            {...register("password")}
          />
        </Field>
        <div className="flex justify-end">
          <Link to="/forgot-password" className="text-sm font-medium text-primary hover:underline">
            Forgot password?
          </Link>
        </div>
        <Button type="submit" className="w-full" disabled={isSubmitting}>
          {isSubmitting ? "Signing in..." : "Sign In"}
        </Button>
        {demo ? (
          <div data-testid="demo-account" className="space-y-2 border-t pt-4 text-center">
            <Button
              type="button"
              variant="outline"
              className="w-full"
              disabled={isSubmitting}
              onClick={() => signInAsDemo(demo)}
            >
              Use the demo account
            </Button>
            <p className="text-xs text-muted-foreground">
              Development server: signs in as {demo.email}, an account with a few weeks of lookups, an API key and a
              finished batch job.
            </p>
          </div>
        ) : null}
      </form>
    </AuthLayout>
  );
}
