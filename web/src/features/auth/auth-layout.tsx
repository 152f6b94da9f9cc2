import type { ReactNode } from "react";
import { Link } from "react-router";
import { Card, CardContent, CardDescription, CardFooter, CardHeader } from "@/components/ui/card";
import { Logo } from "@/components/ui/logo";

interface AuthLayoutProps {
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  /** Links under the card body ("Already have an account? Sign in"). */
  footer?: ReactNode;
}

/** The frame of the sign-in screens: the logo (a link home) above one centred card. */
export function AuthLayout({ title, description, children, footer }: AuthLayoutProps) {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center bg-muted px-4 py-12">
      <Link
        to="/"
        aria-label="Valuator home"
        className="mb-8 rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <Logo />
      </Link>
      <main className="w-full max-w-md">
        <Card>
          <CardHeader className="text-center">
            <h1 className="text-2xl font-semibold leading-none tracking-tight">{title}</h1>
            {description ? <CardDescription>{description}</CardDescription> : null}
          </CardHeader>
          <CardContent>{children}</CardContent>
          {footer ? (
            <CardFooter className="justify-center text-center text-sm text-muted-foreground">{footer}</CardFooter>
          ) : null}
        </Card>
      </main>
    </div>
  );
}
