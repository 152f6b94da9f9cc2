import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter } from "react-router";
import { AuthProvider } from "@/lib/auth";
import { createQueryClient } from "@/lib/query-client";
import { makeUser, mockFetch } from "@/test/utils";
import { LIVE_EXAMPLE } from "@/test/example-fixture";
import routesSource from "./routes.tsx?raw";
import { HOME_TITLE, PAGE_NAMES, pageTitle } from "./page-titles";
import { AppRoutes } from "./routes";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The paths the route table declares (`path="/x"`), the catch-all excluded, as e2e/tests/screens.spec.ts reads them. */
const declared = [...new Set([...routesSource.matchAll(/path(?:=|:\s*)"([^"]+)"/g)].map((m) => m[1]!))].filter(
  (p) => p !== "*",
);

describe("page titles", () => {
  it("reads the route table", () => {
    expect(declared).toContain("/");
    expect(declared).toContain("/billing");
    expect(declared.length).toBeGreaterThan(20);
  });

  it.each(declared)("gives %s a title of its own", (path) => {
    const title = pageTitle(path);
    if (path === "/") {
      expect(title).toBe(HOME_TITLE);
      return;
    }
    expect(PAGE_NAMES[path], `no page name for ${path} in page-titles.ts`).toBeTruthy();
    expect(title).toBe(`${PAGE_NAMES[path]} · Valuator`);
  });

  it("names no route the table does not have", () => {
    expect(Object.keys(PAGE_NAMES).sort()).toEqual(declared.filter((p) => p !== "/").sort());
  });

  it("titles an unknown path as the not-found page, and ignores a trailing slash", () => {
    expect(pageTitle("/no-such-page")).toBe("Page Not Found · Valuator");
    expect(pageTitle("/billing/")).toBe("Billing & Credits · Valuator");
    expect(HOME_TITLE).toBe("Valuator · Property Valuation API");
  });

  it("titles a path with a parameter by its route pattern (the console's account page)", () => {
    expect(pageTitle("/admin")).toBe("Admin · Valuator");
    expect(pageTitle("/admin/accounts/42")).toBe("Admin · Account · Valuator");
    expect(pageTitle("/admin/accounts/42/")).toBe("Admin · Account · Valuator");
    expect(pageTitle("/admin/accounts/42/x")).toBe("Page Not Found · Valuator");
    expect(pageTitle("/admin/nope")).toBe("Page Not Found · Valuator");
  });

  function renderAt(route: string) {
    return render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter initialEntries={[route]}>
          <AuthProvider>
            <AppRoutes />
          </AuthProvider>
        </MemoryRouter>
      </QueryClientProvider>,
    );
  }

  it.each([
    ["/", "Valuator · Property Valuation API"],
    ["/pricing", "Pricing · Valuator"],
    ["/login", "Sign In · Valuator"],
    ["/no-such-page", "Page Not Found · Valuator"],
  ])("sets document.title on %s (signed out)", async (route, title) => {
    mockFetch({ "GET /api/example": { body: LIVE_EXAMPLE } });
    document.title = "stale";
    renderAt(route);
    await waitFor(() => expect(document.title).toBe(title));
  });

  it("sets the signed-in screens' titles in the shell", async () => {
    localStorage.setItem("token", "vs_test");
    mockFetch({ "GET /api/user/profile": { body: makeUser() } });
    document.title = "stale";
    renderAt("/history");
    await waitFor(() => expect(document.title).toBe("Request History · Valuator"));
  });

  it("moves focus to the new page's main heading on a navigation, not on the first load", async () => {
    mockFetch({ "GET /api/example": { body: LIVE_EXAMPLE } });
    const user = userEvent.setup();
    renderAt("/");
    const home = await screen.findByRole("heading", { level: 1, name: "Property Valuation Made Simple" });
    expect(home).not.toHaveFocus();
    expect(document.body).toHaveFocus();

    await user.click(within(screen.getByRole("navigation", { name: "Footer" })).getByRole("link", { name: "Pricing" }));
    const pricing = await screen.findByRole("heading", { level: 1, name: /pricing/i }, { timeout: 5000 });
    await waitFor(() => expect(pricing).toHaveFocus());
    await waitFor(() => expect(document.title).toBe("Pricing · Valuator"));
    // Focusable from script only, inside the page's main region.
    expect(pricing).toHaveAttribute("tabindex", "-1");
    expect(pricing.closest("main")).toHaveAttribute("id", "main-content");
  });

  it("moves focus to a signed-in screen's heading after a link of the sidebar", async () => {
    localStorage.setItem("token", "vs_test");
    mockFetch({ "GET /api/user/profile": { body: makeUser() }, "GET /api/example": { body: LIVE_EXAMPLE } });
    const user = userEvent.setup();
    renderAt("/settings");
    await screen.findByRole("heading", { level: 1, name: "Settings" }, { timeout: 5000 });
    const link = within(screen.getByRole("navigation", { name: "Main" })).getByRole("link", { name: "History" });
    await user.click(link);
    const history = await screen.findByRole("heading", { level: 1, name: "Request History" }, { timeout: 5000 });
    await waitFor(() => expect(history).toHaveFocus());
  });
});
