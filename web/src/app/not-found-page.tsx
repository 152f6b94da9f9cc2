import { Link, useLocation } from "react-router";
import { Compass, Home, LayoutDashboard, LifeBuoy } from "lucide-react";
import { PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { useAuth } from "@/lib/auth";

/**
 * Any path the route table does not know (product-and-account spec, section 2): the public frame (logo, header,
 * footer), a plain-words message and the places a visitor would go next: Home, the Dashboard when signed in, and
 * the Help Center.
 */
export function NotFoundPage() {
  const { user } = useAuth();
  const { pathname } = useLocation();
  return (
    <PublicLayout>
      <section
        aria-labelledby="not-found-title"
        className="mx-auto flex max-w-2xl flex-col items-center px-4 py-20 text-center sm:px-6 sm:py-28"
      >
        <span className="flex h-14 w-14 items-center justify-center rounded-full bg-primary/10 text-primary">
          <Compass className="h-7 w-7" aria-hidden="true" />
        </span>
        <p className="mt-6 text-sm font-semibold uppercase tracking-wide text-primary">Error 404</p>
        <h1 id="not-found-title" className="mt-2 text-3xl font-bold tracking-tight sm:text-4xl">
          We can&apos;t find that page
        </h1>
        <p className="mt-4 max-w-md text-lg text-muted-foreground">
          The link may be out of date, or the address may have a typo. Nothing is wrong with your account.
        </p>
        <p className="mt-2 max-w-full break-words font-mono text-sm text-muted-foreground [overflow-wrap:anywhere]">
          {pathname}
        </p>
        <nav aria-label="Where to go next" className="mt-8 flex flex-wrap justify-center gap-3">
          <Button asChild>
            <Link to="/">
              <Home aria-hidden="true" />
              Home
            </Link>
          </Button>
          {user ? (
            <Button asChild variant="outline">
              <Link to="/dashboard">
                <LayoutDashboard aria-hidden="true" />
                Dashboard
              </Link>
            </Button>
          ) : null}
          <Button asChild variant="outline">
            <Link to="/help-center">
              <LifeBuoy aria-hidden="true" />
              Help Center
            </Link>
          </Button>
        </nav>
        <p className="mt-8 text-sm text-muted-foreground">
          Still stuck?{" "}
          <Link to="/contact-us" className="font-medium text-primary underline-offset-4 hover:underline">
            Contact us
          </Link>{" "}
          and tell us the link you followed.
        </p>
      </section>
    </PublicLayout>
  );
}
