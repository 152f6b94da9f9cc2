import type { ComponentType, ReactNode } from "react";
import { Link, useLocation } from "react-router";
import { RefreshCw, ShieldAlert } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/spinner";
import { errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { cn } from "@/lib/utils";
import type { Pagination } from "../admin-api";
import { OPERATORS_ONLY, isForbidden, isOperator } from "../admin-helpers";

/** The console's sections, in the order of its navigation. */
export const ADMIN_SECTIONS = [
  { to: "/admin/accounts", label: "Accounts", also: ["/admin"], prefix: "/admin/accounts/" },
  { to: "/admin/support", label: "Support inbox" },
  { to: "/admin/compliance", label: "Compliance" },
  { to: "/admin/overview", label: "Overview" },
  { to: "/admin/audit", label: "Audit log" },
] as const;

function isCurrent(section: (typeof ADMIN_SECTIONS)[number], pathname: string): boolean {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (section.to === path) return true;
  if ("also" in section && (section.also as readonly string[]).includes(path)) return true;
  return "prefix" in section && path.startsWith(section.prefix);
}

interface AdminFrameProps {
  /** The page's heading (its h1). */
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
}

/** Every console page: the "Admin console" eyebrow, the page's h1, the sections' navigation, then the page. */
export function AdminFrame({ title, subtitle, children }: AdminFrameProps) {
  const { pathname } = useLocation();
  return (
    <div className="mx-auto max-w-6xl">
      <div className="mb-4 space-y-1">
        <p className="text-sm font-medium text-primary">Admin console</p>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{title}</h1>
        {subtitle ? <p className="text-muted-foreground">{subtitle}</p> : null}
      </div>
      <nav aria-label="Admin sections" className="mb-6 border-b">
        <ul className="-mb-px flex flex-wrap gap-x-1">
          {ADMIN_SECTIONS.map((s) => {
            const current = isCurrent(s, pathname);
            return (
              <li key={s.to}>
                <Link
                  to={s.to}
                  aria-current={current ? "page" : undefined}
                  className={cn(
                    "inline-flex h-10 items-center border-b-2 px-3 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring",
                    current
                      ? "border-primary text-foreground"
                      : "border-transparent text-muted-foreground hover:border-muted-foreground/40 hover:text-foreground",
                  )}
                >
                  {s.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      {children}
    </div>
  );
}

/**
 * A console page for operators only: its content (and so its calls to /api/admin/*) is mounted only for a profile
 * whose role is "admin"; a customer sees the operators-only state (the server refuses them anyway: 403 on every
 * /api/admin/* call, which AdminLoadError also shows as that state).
 */
export function operatorsOnly(Page: ComponentType, name: string): ComponentType {
  function Gated() {
    const { user, isLoading } = useAuth();
    if (isLoading) return <Loading label="Loading your account" />;
    if (!isOperator(user)) return <NotOperator />;
    return <Page />;
  }
  Gated.displayName = name;
  return Gated;
}

/** What a signed-in customer sees at /admin: a plain statement and the way back, never a crash or an empty page. */
export function NotOperator() {
  return (
    <div className="mx-auto max-w-xl py-10 text-center" data-testid="admin-forbidden">
      <ShieldAlert className="mx-auto mb-4 h-10 w-10 text-muted-foreground" aria-hidden="true" />
      <h1 className="text-2xl font-bold tracking-tight">Admin console</h1>
      <p className="mt-3 text-muted-foreground">{OPERATORS_ONLY}</p>
      <p className="mt-1 text-sm text-muted-foreground">If you think you should have access, ask a Valuator operator.</p>
      <Button asChild className="mt-6">
        <Link to="/dashboard">Back to the dashboard</Link>
      </Button>
    </div>
  );
}

/** A section that could not be read: the operators-only statement for a 403, else the reason and Retry. */
export function AdminLoadError({
  error,
  fallback,
  onRetry,
  busy = false,
}: {
  error: unknown;
  fallback: string;
  onRetry: () => void;
  busy?: boolean;
}) {
  const message = isForbidden(error) ? OPERATORS_ONLY : errorMessage(error, fallback);
  return (
    <div role="alert" className="flex flex-col items-center gap-3 py-6 text-center">
      <p className="text-sm">{message}</p>
      {isForbidden(error) ? null : (
        <Button type="button" variant="outline" size="sm" onClick={onRetry} disabled={busy}>
          <RefreshCw aria-hidden="true" className={busy ? "animate-spin" : undefined} />
          Retry
        </Button>
      )}
    </div>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <div className="flex justify-center py-8">
      <Spinner label={label} />
    </div>
  );
}

/** Previous / next for a paged list, with where it is (the answer's pagination); nothing when everything fits on one page. */
export function Pager({
  pagination: { page, pages, total },
  onPage,
  label,
}: {
  pagination: Pagination;
  onPage: (page: number) => void;
  label: string;
}) {
  if (pages <= 1) return null;
  return (
    <nav aria-label={`${label} pages`} className="flex flex-wrap items-center justify-between gap-2 pt-4 text-sm">
      <p className="text-muted-foreground">
        Page {page} of {pages} ({total} in all)
      </p>
      <div className="flex gap-2">
        <Button type="button" variant="outline" size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button type="button" variant="outline" size="sm" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </nav>
  );
}

/** A native select styled like the app's inputs: the console's filters, labelled by their <Label>. */
export const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2";

export const thClass = "h-10 whitespace-nowrap px-3 text-left font-medium text-muted-foreground";
export const tdClass = "px-3 py-2 align-top";
