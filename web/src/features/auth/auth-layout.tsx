import type { ReactNode } from "react";
import { Link } from "react-router";
import { Card, CardContent, CardDescription, CardFooter, CardHeader } from "@/components/ui/card";
import { MAIN_CONTENT_ID } from "@/components/ui/focus";
import { Logo } from "@/components/ui/logo";

interface AuthLayoutProps {
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  /** Links under the card body ("Already have an account? Sign in"). */
  footer?: ReactNode;
}

/**
 * The frame of the sign-in screens: the logo (a link home, in the page's header) above one centred card, in
 * <main id="main-content">, the skip link's target.
 */
export function AuthLayout({ title, description, children, footer }: AuthLayoutProps) {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center bg-muted px-4 py-12">
      <header className="mb-8">
        <Link
          to="/"
          aria-label="Valuator home"
          className="block rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <Logo />
        </Link>
      </header>
      <main id={MAIN_CONTENT_ID} tabIndex={-1} className="w-full max-w-md focus:outline-none">
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
