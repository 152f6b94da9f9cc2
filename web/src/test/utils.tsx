// Helpers for the web unit tests: a fake server behind fetch, a signed-in user, and the app's providers around a
// screen. The Go side tests the real server; these tests pin what the screens send and how they react.
import type { ReactElement, ReactNode } from "react";
import { act, render, renderHook } from "@testing-library/react";
import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { MemoryRouter, useLocation } from "react-router";
import { vi } from "vitest";
import { Toaster } from "@/components/ui/toaster";
import { useToast } from "@/components/ui/use-toast";
import { AuthProvider } from "@/lib/auth";
import type { Balance } from "@/lib/balance";
import { createQueryClient } from "@/lib/query-client";
import type { User } from "@/lib/types";

/**
 * A balance as the server splits it (schema Balance): Free by default; the state follows the credits as the server
 * sets it (under 50 is low, none on Free is empty, overage used on a paid plan is overage) unless given.
 */
export function makeBalance(overrides: Partial<Balance> = {}): Balance {
  const planType = overrides.planType ?? "free";
  const credits = overrides.credits ?? 100;
  const overageCredits = overrides.overageCredits ?? 0;
  const paid = planType !== "free";
  const state: Balance["state"] = overageCredits > 0 ? "overage" : credits === 0 && !paid ? "empty" : credits < 50 ? "low" : "ok";
  return {
    planType,
    credits,
    overageCredits,
    overageCents: overageCredits * (paid ? 3 : 0),
    overageRateCents: paid ? 3 : 0,
    overageLimitCents: null,
    overageLeftCents: null,
    spendableCredits: paid ? null : credits,
    state,
    ...overrides,
  };
}

/** A signed-in user; its creditBalance follows `plan` and `credits` unless given. */
export function makeUser(overrides: Partial<User> = {}): User {
  const plan = overrides.plan ?? "free";
  const credits = overrides.credits ?? 100;
  return {
    id: 42,
    email: "jane@example.com",
    fullName: "Jane Doe",
    company: "Acme Realty",
    plan,
    credits,
    creditBalance: makeBalance({ planType: plan, credits: Math.max(credits, 0), overageCredits: Math.max(-credits, 0) }),
    totalCreditsEarned: 100,
    notifications: { emailNotifications: true, usageAlerts: true, weeklyReports: false, marketingEmails: false },
    createdAt: "2026-01-21T10:00:00Z",
    ...overrides,
  };
}

export interface FakeReply {
  status?: number;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as it is (a CSV file, say), in place of `body`. */
  raw?: string;
  /** Response headers besides the content type (Content-Disposition, Retry-After). */
  headers?: Record<string, string>;
}

export interface FakeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A reply, a function of the request, or a promise of either (to hold a request open). */
export type FakeRoute = FakeReply | ((req: FakeRequest) => FakeReply | Promise<FakeReply>) | "network-error";

/** An error body in the server's one shape. */
export function errorBody(error: string, extra: Record<string, unknown> = {}) {
  return { error, code: "invalid_input", requestId: "req-test", ...extra };
}

/**
 * Replaces fetch with a fake server answering "METHOD /path" routes; anything else answers 404. Returns the mock
 * and the list of requests it received.
 */
export function mockFetch(routes: Record<string, FakeRoute>) {
  const requests: FakeRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? "GET").toUpperCase();
    const headers = { ...((init.headers as Record<string, string> | undefined) ?? {}) };
    const body = typeof init.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
    const req: FakeRequest = { method, url, headers, body };
    requests.push(req);
    const route = routes[`${method} ${url}`];
    if (route === "network-error") throw new TypeError("Failed to fetch");
    const reply: FakeReply = route === undefined ? { status: 404, body: errorBody("Not found") } : typeof route === "function" ? await route(req) : route;
    const status = reply.status ?? 200;
    const text = reply.raw ?? (reply.body === undefined ? null : JSON.stringify(reply.body));
    const contentType: Record<string, string> =
      reply.raw !== undefined ? { "Content-Type": "text/plain" } : text ? { "Content-Type": "application/json" } : {};
    return new Response(status === 204 ? null : text, {
      status,
      headers: { ...contentType, ...reply.headers },
    });
  });
  vi.stubGlobal("fetch", fetchMock);
  return { fetchMock, requests };
}

/** Shows the router's current path, so tests can see where a screen navigated. */
export function LocationProbe() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

interface RenderOptions {
  /** The path, or a location with router state (as a navigate(path, { state }) leaves it). */
  route?: string | { pathname: string; search?: string; state?: unknown };
  queryClient?: QueryClient;
}

/** Renders the UI inside the app's providers (query client, router, session, toasts) at the given route. */
export function renderWithProviders(ui: ReactElement, { route = "/", queryClient }: RenderOptions = {}) {
  const client = queryClient ?? createQueryClient();
  function Wrapper({ children }: { children: ReactNode }) {
    return (
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[route]}>
          <AuthProvider>
            {children}
            <LocationProbe />
            <Toaster />
          </AuthProvider>
        </MemoryRouter>
      </QueryClientProvider>
    );
  }
  return { queryClient: client, ...render(ui, { wrapper: Wrapper }) };
}

/** Closes whatever toast an earlier test left in the shared toast store. */
export function dismissToasts() {
  const { result, unmount } = renderHook(() => useToast());
  act(() => result.current.dismiss());
  unmount();
}
