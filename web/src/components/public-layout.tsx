import type * as React from "react";
import { Link } from "react-router";
import { ArrowLeft } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Logo } from "@/components/ui/logo";
import { MAIN_CONTENT_ID } from "@/components/ui/focus";
import { useOptionalUser } from "@/lib/auth";
import { cn } from "@/lib/utils";

// The frame of every public page (spec, product-and-account section 2): a top bar with the product name, Sign In
// and Get Started (Dashboard instead, for a visitor who is signed in), and a footer that links the documentation, pricing, contact, about, legal and opt-out pages.

/** The product mark: an icon and the name, linking home. */
export function BrandLink({ className }: { className?: string }) {
  return (
    <Link to="/" className={cn("text-foreground", className)}>
      <Logo />
    </Link>
  );
}

export function PublicHeader() {
  const user = useOptionalUser();
  return (
    <header className="sticky top-0 z-40 border-b bg-background/95 backdrop-blur supports-[backdrop-filter]:bg-background/80">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between px-4 sm:px-6">
        <BrandLink />
        <nav aria-label="Account" className="flex items-center gap-2">
          {user ? (
            <Button asChild>
              <Link to="/dashboard">Dashboard</Link>
            </Button>
          ) : (
            <>
              <Button asChild variant="ghost">
                <Link to="/login">Sign In</Link>
              </Button>
              <Button asChild>
                <Link to="/register">Get Started</Link>
              </Button>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}

const FOOTER_LINKS = [
  { to: "/docs", label: "API Documentation" },
  { to: "/pricing", label: "Pricing" },
  { to: "/contact-us", label: "Contact" },
  { to: "/about", label: "About" },
  { to: "/privacy", label: "Privacy Policy" },
  { to: "/opt-out", label: "Opt out" },
  { to: "/terms", label: "Terms of Service" },
] as const;

export function PublicFooter() {
  return (
    <footer className="border-t bg-muted/40">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 sm:px-6 md:grid-cols-[2fr_3fr]">
        <div className="space-y-3">
          <BrandLink />
          <p className="max-w-sm text-sm text-muted-foreground">
            US property valuations with calibrated confidence, by API or dashboard. Built for real estate
            professionals, investors, developers and businesses.
          </p>
        </div>
        <nav aria-label="Footer">
          <ul className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-3">
            {FOOTER_LINKS.map((l) => (
              <li key={l.to}>
                <Link to={l.to} className="text-muted-foreground transition-colors hover:text-foreground">
                  {l.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <div className="border-t">
        <p className="mx-auto max-w-6xl px-4 py-4 text-xs text-muted-foreground sm:px-6">
          © {new Date().getFullYear()} Valuator. Valuations are estimates, not appraisals.
        </p>
      </div>
    </footer>
  );
}

/**
 * Header, page content, footer. Landmarks, once each: the header (banner), <main id="main-content"> (the skip
 * link's target) and the footer (contentinfo); the navigations are named (Account in the header, Footer).
 */
export function PublicLayout({ children }: { children: React.ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col bg-background">
      <PublicHeader />
      <main id={MAIN_CONTENT_ID} tabIndex={-1} className="flex-1 focus:outline-none">
        {children}
      </main>
      <PublicFooter />
    </div>
  );
}

/** The 'Back to Home' link every static page carries (spec section 2). */
export function BackToHomeLink({ className }: { className?: string }) {
  return (
    <Link
      to="/"
      className={cn(
        "inline-flex items-center gap-1.5 text-sm font-medium text-muted-foreground transition-colors hover:text-foreground",
        className,
      )}
    >
      <ArrowLeft className="h-4 w-4" aria-hidden="true" />
      Back to Home
    </Link>
  );
}

interface PageIntroProps {
  title: string;
  subtitle?: React.ReactNode;
  /** Extra content under the subtitle (a last-updated line, say). */
  children?: React.ReactNode;
  className?: string;
}

/** The top of a static page: Back to Home, the page's h1 and an optional subtitle. */
export function PageIntro({ title, subtitle, children, className }: PageIntroProps) {
  return (
    <div className={cn("space-y-4", className)}>
      <BackToHomeLink />
      <div className="space-y-2">
        <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">{title}</h1>
        {subtitle ? <p className="text-lg text-muted-foreground">{subtitle}</p> : null}
        {children}
      </div>
    </div>
  );
}
