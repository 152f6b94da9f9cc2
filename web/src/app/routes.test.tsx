import { afterEach, describe, expect, it, vi } from "vitest";
import { Component, lazy, Suspense, type ReactNode } from "react";
import { act, render, screen, within } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter } from "react-router";
import { toast } from "@/components/ui/use-toast";
import { AuthProvider } from "@/lib/auth";
import { createQueryClient } from "@/lib/query-client";
import { dismissToasts, makeUser, mockFetch } from "@/test/utils";
import { ChunkErrorBoundary } from "./chunk-error-boundary";
import { Notifications } from "./notifications";
import {
  loadAuthPages,
  loadFirstPage,
  loadLandingPage,
  loadMarkets,
  loadSignedInApp,
  prefetchedDemoAccount,
  reloadOnce,
} from "./route-chunks";
import { AppRoutes, prefetchOnIntent } from "./routes";

function renderRoutes(route: string) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[route]}>
        <AuthProvider>
          <AppRoutes />
          <Notifications />
        </AuthProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("the route table", () => {
  it("shows a page whose code has loaded at once, with no spinner (as main.tsx renders a first visit)", async () => {
    await loadLandingPage();
    renderRoutes("/");
    expect(screen.getByRole("heading", { level: 1, name: "Property Valuation Made Simple" })).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Loading" })).not.toBeInTheDocument();
  });

  it("shows the not-found screen at once for an unknown path: it is in the app's chunk", () => {
    renderRoutes("/no-such-page");
    expect(screen.getByRole("heading", { level: 1, name: "We can't find that page" })).toBeInTheDocument();
  });

  it.each([
    ["/pricing", "heading", { level: 1, name: /pricing/i }],
    ["/login", "button", { name: "Sign In" }],
    ["/contact-us", "heading", { level: 1, name: "Contact Us" }],
    ["/opt-out", "heading", { level: 1 }],
    ["/opt-out/confirm?token=t1", "button", { name: "Remove my listing" }],
    ["/unsubscribe?token=u1.42.weeklyReports.sig", "button", { name: "Unsubscribe" }],
  ] as const)("loads %s on demand", async (route, role, options) => {
    renderRoutes(route);
    // A chunk's first load is transformed on demand here: over a second on a loaded 2-core machine (the whole suite).
    expect(await screen.findByRole(role, options, { timeout: 5000 })).toBeInTheDocument();
  });

  it("loads the signed-in app for a signed-in visitor", async () => {
    localStorage.setItem("token", "vs_test");
    mockFetch({ "GET /api/user/profile": { body: makeUser() } });
    renderRoutes("/history");
    expect(await screen.findByRole("heading", { level: 1, name: "Request History" }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole("navigation", { name: /main/i })).toBeInTheDocument();
  });
});

describe("the Markets route (issue 28)", () => {
  it("loads the Markets screen in its own chunk for a signed-in visitor, titled", async () => {
    localStorage.setItem("token", "vs_test");
    mockFetch({ "GET /api/user/profile": { body: makeUser() } });
    renderRoutes("/markets");
    expect(await screen.findByRole("heading", { level: 1, name: "Markets" }, { timeout: 5000 })).toBeInTheDocument();
    expect(within(screen.getByRole("navigation", { name: "Main" })).getByRole("link", { name: "Markets" })).toHaveAttribute("aria-current", "page");
    expect(document.title).toBe("Markets · Valuator");
  });

  it("loads the shell and the Markets chunk together on a first visit", async () => {
    await loadFirstPage("/markets", true);
    expect(loadSignedInApp.module?.AppShell).toBeTypeOf("function");
    expect(loadMarkets.module?.MarketsPage).toBeTypeOf("function");
  });
});

describe("the operator console's routes (issue 27)", () => {
  it("loads the console's chunk and shows a customer the operators-only page, not a crash", async () => {
    localStorage.setItem("token", "vs_test");
    mockFetch({ "GET /api/user/profile": { body: makeUser() } });
    renderRoutes("/admin/accounts/42");
    expect(await screen.findByText("Only Valuator operators can open this page.", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 1, name: "Admin console" })).toBeInTheDocument();
  });

  it("shows an operator the console", async () => {
    localStorage.setItem("token", "vs_test");
    mockFetch({
      "GET /api/user/profile": { body: { ...makeUser(), role: "admin" } },
      "GET /api/admin/accounts?page=1&limit=25": { body: { success: true, data: [], pagination: { page: 1, limit: 25, total: 0, pages: 1 } } },
    });
    renderRoutes("/admin");
    expect(await screen.findByRole("heading", { level: 1, name: "Accounts" }, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText("No accounts yet.")).toBeInTheDocument();
    expect(screen.getByRole("navigation", { name: "Main" })).toHaveTextContent("Admin");
  });
});

describe("Notifications", () => {
  it("mounts the toaster with the first toast", async () => {
    dismissToasts();
    renderRoutes("/");
    expect(screen.queryByRole("region", { name: /Notifications/ })).not.toBeInTheDocument();
    act(() => {
      toast({ title: "Saved" });
    });
    expect(await screen.findByRole("region", { name: /Notifications/ })).toBeInTheDocument();
    expect(await screen.findByText("Saved", { selector: "div" })).toBeInTheDocument();
    dismissToasts();
  });
});

describe("prefetchOnIntent", () => {
  it("listens for intent on links and stops when asked", () => {
    const add = vi.spyOn(document, "addEventListener");
    const remove = vi.spyOn(document, "removeEventListener");
    const stop = prefetchOnIntent();
    const types = add.mock.calls.map((c) => c[0]);
    expect(types).toEqual(expect.arrayContaining(["pointerover", "touchstart", "focusin", "submit"]));
    stop();
    expect(remove.mock.calls.map((c) => c[0])).toEqual(expect.arrayContaining(types));
    add.mockRestore();
    remove.mockRestore();
  });
});

describe("ChunkErrorBoundary", () => {
  function renderFailing(error: Error) {
    const Page = lazy(() => Promise.reject(error));
    return render(
      <ChunkErrorBoundary resetKey="/pricing">
        <Suspense fallback={null}>
          <Page />
        </Suspense>
      </ChunkErrorBoundary>,
    );
  }

  const chunkError = () => new TypeError("Failed to fetch dynamically imported module: /assets/public-pages-abc.js");

  it("reloads once when a page's code cannot be fetched (a release replaced it)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    sessionStorage.clear();
    renderFailing(chunkError());
    expect(await screen.findByRole("status", { name: "Loading the new version of Valuator" })).toBeInTheDocument();
    expect(sessionStorage.getItem("valuator:reloaded-for-chunk")).not.toBeNull();
    vi.restoreAllMocks();
  });

  it("offers a reload when a page's code cannot be fetched again right after a reload", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    sessionStorage.setItem("valuator:reloaded-for-chunk", String(Date.now()));
    renderFailing(chunkError());
    expect(await screen.findByRole("heading", { name: "This page could not be loaded" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reload" })).toBeInTheDocument();
    sessionStorage.clear();
    vi.restoreAllMocks();
  });

  it("passes any other error on", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const caught: unknown[] = [];
    class Outer extends Component<{ children: ReactNode }, { failed: boolean }> {
      state = { failed: false };
      static getDerivedStateFromError() {
        return { failed: true };
      }
      componentDidCatch(error: unknown) {
        caught.push(error);
      }
      render() {
        return this.state.failed ? <p>outer caught it</p> : this.props.children;
      }
    }
    const Page = lazy(() => Promise.reject(new Error("a bug")));
    render(
      <Outer>
        <ChunkErrorBoundary resetKey="/pricing">
          <Suspense fallback={null}>
            <Page />
          </Suspense>
        </ChunkErrorBoundary>
      </Outer>,
    );
    expect(await screen.findByText("outer caught it")).toBeInTheDocument();
    expect(caught).toEqual([new Error("a bug")]);
    vi.restoreAllMocks();
  });
});

describe("route-chunks", () => {
  it("reloads at most once a minute", () => {
    sessionStorage.clear();
    const reload = vi.fn();
    expect(reloadOnce(reload, 1_000_000)).toBe(true);
    expect(reloadOnce(reload, 1_030_000)).toBe(false);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(reloadOnce(reload, 1_061_000)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(2);
    sessionStorage.clear();
  });

  it("loads the first page's code: its own, or the sign-in page's for a signed-out visitor of a signed-in screen", async () => {
    const demo = { email: "demo@valuator.dev", password: "valuator-demo" };
    const { requests } = mockFetch({ "GET /api/auth/demo": { body: demo } });
    await loadFirstPage("/login/", false);
    expect(loadAuthPages.module?.LoginPage).toBeTypeOf("function");
    // The sign-in page's demo account comes with its code, so its first paint shows it (no shift, no later paint).
    expect(prefetchedDemoAccount.module).toEqual(demo);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/auth/demo"]);
    await loadFirstPage("/no-such-page", false);
    await loadFirstPage("/history", true);
    expect(loadSignedInApp.module?.HistoryPage).toBeTypeOf("function");
  });
});
