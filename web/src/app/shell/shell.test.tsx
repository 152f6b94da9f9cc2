import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders } from "@/test/utils";
import { AppShell } from "./app-shell";
import { ProtectedRoute } from "./protected-route";
import { SIDEBAR_GROUPS_KEY } from "./nav-items";

afterEach(() => {
  vi.unstubAllGlobals();
  dismissToasts();
});

const PAGES = ["/dashboard", "/property-lookup", "/batch-upload", "/markets", "/person-lookup", "/api-keys", "/reporting", "/history", "/billing", "/settings", "/admin/accounts/42"];

function renderShell(route: string) {
  return renderWithProviders(
    <Routes>
      <Route path="/login" element={<h1>Sign in screen</h1>} />
      <Route
        element={
          <ProtectedRoute>
            <AppShell />
          </ProtectedRoute>
        }
      >
        {PAGES.map((path) => (
          <Route key={path} path={path} element={<h1>Page {path}</h1>} />
        ))}
        {/* Inside the shell "/" counts as Single Lookup (spec, route table). */}
        <Route path="/" element={<h1>Page /</h1>} />
      </Route>
    </Routes>,
    { route },
  );
}

function signedIn(user = makeUser()) {
  localStorage.setItem("token", "tok-1");
  return mockFetch({
    "GET /api/user/profile": { body: user },
    "GET /healthz": { body: { status: "ok" } },
    "POST /api/auth/logout": { status: 204 },
  });
}

const nav = () => screen.getByRole("navigation", { name: "Main" });
const link = (name: string) => within(nav()).getByRole("link", { name });
const group = (name: string) => within(nav()).getByRole("button", { name });

describe("ProtectedRoute", () => {
  it("shows a spinner while the session is checked, then the page", async () => {
    localStorage.setItem("token", "tok-1");
    let answer!: (r: { body: unknown }) => void;
    mockFetch({
      "GET /api/user/profile": () => new Promise((resolve) => (answer = resolve)),
      "GET /healthz": { body: { status: "ok" } },
    });
    renderShell("/settings");
    expect(screen.getByRole("status", { name: "Loading your account" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Page /settings" })).not.toBeInTheDocument();

    answer({ body: makeUser() });
    expect(await screen.findByRole("heading", { name: "Page /settings" })).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Loading your account" })).not.toBeInTheDocument();
  });

  it("sends a visitor without a session to /login", async () => {
    mockFetch({});
    renderShell("/settings");
    expect(await screen.findByRole("heading", { name: "Sign in screen" })).toBeInTheDocument();
    expect(screen.getByTestId("location")).toHaveTextContent("/login");
  });

  it("sends a visitor whose token is refused to /login", async () => {
    localStorage.setItem("token", "expired");
    mockFetch({ "GET /api/user/profile": { status: 401, body: errorBody("Not signed in") } });
    renderShell("/billing");
    expect(await screen.findByRole("heading", { name: "Sign in screen" })).toBeInTheDocument();
    expect(localStorage.getItem("token")).toBeNull();
  });
});

describe("Sidebar", () => {
  it("marks the current item and its group", async () => {
    signedIn();
    renderShell("/history");
    await screen.findByRole("heading", { name: "Page /history" });

    expect(link("History")).toHaveAttribute("aria-current", "page");
    expect(link("Reporting")).not.toHaveAttribute("aria-current");
    expect(link("Single Lookup")).not.toHaveAttribute("aria-current");
    expect(group("Analytics")).toHaveAttribute("data-active", "true");
    expect(group("Properties")).not.toHaveAttribute("data-active");
    expect(within(nav()).getAllByRole("link").filter((a) => a.getAttribute("aria-current") === "page")).toHaveLength(1);
  });

  it.each(["/dashboard", "/property-lookup", "/"])("marks Single Lookup at %s", async (route) => {
    signedIn();
    renderShell(route);
    await screen.findByRole("heading", { name: `Page ${route}` });
    expect(link("Single Lookup")).toHaveAttribute("aria-current", "page");
    expect(group("Properties")).toHaveAttribute("data-active", "true");
  });

  it("marks a top-level item without marking any group", async () => {
    signedIn();
    renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    expect(link("Billing")).toHaveAttribute("aria-current", "page");
    expect(group("Properties")).not.toHaveAttribute("data-active");
    expect(group("Analytics")).not.toHaveAttribute("data-active");
  });

  it("lists every destination", async () => {
    signedIn();
    renderShell("/dashboard");
    await screen.findByRole("heading", { name: "Page /dashboard" });
    const targets = Object.fromEntries(
      within(nav())
        .getAllByRole("link")
        .map((a) => [a.textContent, a.getAttribute("href")]),
    );
    expect(targets).toEqual({
      "Single Lookup": "/dashboard",
      "Batch Upload": "/batch-upload",
      Markets: "/markets",
      Portfolios: "/portfolios",
      "Person Lookup": "/person-lookup",
      "API Keys": "/api-keys",
      Reporting: "/reporting",
      History: "/history",
      Billing: "/billing",
      Settings: "/settings",
    });
    // A customer has no way into the operator console.
    expect(within(nav()).queryByRole("link", { name: "Admin" })).not.toBeInTheDocument();
  });

  it("shows operators the Admin entry, current on every page of the console (issue 27)", async () => {
    signedIn({ ...makeUser(), role: "admin" } as ReturnType<typeof makeUser>);
    renderShell("/admin/accounts/42");
    await screen.findByRole("heading", { name: "Page /admin/accounts/42" });
    expect(link("Admin")).toHaveAttribute("href", "/admin");
    expect(link("Admin")).toHaveAttribute("aria-current", "page");
  });

  it("starts with both groups expanded and remembers a collapsed group on the next visit", async () => {
    signedIn();
    const first = renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    expect(group("Properties")).toHaveAttribute("aria-expanded", "true");
    expect(group("Analytics")).toHaveAttribute("aria-expanded", "true");

    await userEvent.click(group("Analytics"));
    expect(group("Analytics")).toHaveAttribute("aria-expanded", "false");
    expect(within(nav()).queryByRole("link", { name: "Reporting" })).not.toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem(SIDEBAR_GROUPS_KEY)!)).toEqual({ properties: true, analytics: false });
    first.unmount();

    renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    expect(group("Analytics")).toHaveAttribute("aria-expanded", "false");
    expect(group("Properties")).toHaveAttribute("aria-expanded", "true");

    await userEvent.click(group("Analytics"));
    expect(link("Reporting")).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem(SIDEBAR_GROUPS_KEY)!)).toEqual({ properties: true, analytics: true });
  });

  it("keeps a collapsed group highlighted when it holds the current page", async () => {
    localStorage.setItem(SIDEBAR_GROUPS_KEY, JSON.stringify({ properties: false, analytics: true }));
    signedIn();
    renderShell("/batch-upload");
    await screen.findByRole("heading", { name: "Page /batch-upload" });
    expect(group("Properties")).toHaveAttribute("aria-expanded", "false");
    expect(group("Properties")).toHaveAttribute("data-active", "true");
  });

  it("ignores unreadable saved state", async () => {
    localStorage.setItem(SIDEBAR_GROUPS_KEY, "{not json");
    signedIn();
    renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    expect(group("Properties")).toHaveAttribute("aria-expanded", "true");
    expect(group("Analytics")).toHaveAttribute("aria-expanded", "true");
  });

  it("shows the user (name falling back to email) and logs out", async () => {
    const { requests } = signedIn(makeUser({ fullName: "" }));
    renderShell("/settings");
    await screen.findByRole("heading", { name: "Page /settings" });
    expect(screen.getByTestId("user-name")).toHaveTextContent("jane@example.com");
    expect(screen.getByTestId("user-email")).toHaveTextContent("jane@example.com");

    await userEvent.click(screen.getByRole("button", { name: "Log out" }));
    expect(await screen.findByRole("heading", { name: "Sign in screen" })).toBeInTheDocument();
    expect(requests.some((r) => r.method === "POST" && r.url === "/api/auth/logout")).toBe(true);
    expect(localStorage.getItem("token")).toBeNull();
  });

  it("opens as a menu on small screens and closes after a link is followed", async () => {
    signedIn();
    renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    await userEvent.click(screen.getByRole("button", { name: "Open menu" }));
    const menu = await screen.findByRole("dialog", { name: "Menu" });
    await userEvent.click(within(menu).getByRole("link", { name: "Settings" }));
    expect(await screen.findByRole("heading", { name: "Page /settings" })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Menu" })).not.toBeInTheDocument());
    // Focus goes to the new page's heading, not back to the menu button.
    await waitFor(() => expect(screen.getByRole("heading", { name: "Page /settings" })).toHaveFocus());
  });

  it.each(["Escape", "the X"])("gives focus back to 'Open menu' when the menu is closed with %s", async (way) => {
    signedIn();
    renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    const button = screen.getByRole("button", { name: "Open menu" });
    expect(button).toHaveAttribute("aria-expanded", "false");
    await userEvent.click(button);
    const menu = await screen.findByRole("dialog", { name: "Menu" });
    expect(button).toHaveAttribute("aria-expanded", "true");
    // Its navigation is named apart from the desktop rail's, and focus stays inside the menu.
    expect(within(menu).getByRole("navigation", { name: "Main menu" })).toBeInTheDocument();
    for (let i = 0; i < 15; i++) {
      await userEvent.tab();
      expect(menu).toContainElement(document.activeElement as HTMLElement);
    }
    if (way === "Escape") await userEvent.keyboard("{Escape}");
    else await userEvent.click(within(menu).getByRole("button", { name: "Close menu" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Menu" })).not.toBeInTheDocument());
    await waitFor(() => expect(button).toHaveFocus());
  });

  it("gives focus back to 'Open menu' after a link to the page already shown", async () => {
    signedIn();
    renderShell("/billing");
    await screen.findByRole("heading", { name: "Page /billing" });
    await userEvent.click(screen.getByRole("button", { name: "Open menu" }));
    const menu = await screen.findByRole("dialog", { name: "Menu" });
    await userEvent.click(within(menu).getByRole("link", { name: "Billing" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Menu" })).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole("button", { name: "Open menu" })).toHaveFocus());
  });
});

describe("landmarks", () => {
  it("has one banner, one main (the skip link's target) and one navigation, named Main", async () => {
    signedIn();
    renderShell("/settings");
    await screen.findByRole("heading", { name: "Page /settings" });
    expect(screen.getAllByRole("banner")).toHaveLength(1);
    const main = screen.getByRole("main");
    expect(main).toHaveAttribute("id", "main-content");
    expect(main).toHaveAttribute("tabindex", "-1");
    expect(within(main).getByRole("heading", { level: 1 })).toBeInTheDocument();
    expect(screen.getAllByRole("navigation").map((n) => n.getAttribute("aria-label"))).toEqual(["Main"]);
    // The sidebar is navigation, not a complementary region.
    expect(screen.queryByRole("complementary")).not.toBeInTheDocument();
  });
});

describe("Header", () => {
  it("shows the full name and the credit balance linking to billing", async () => {
    signedIn(makeUser({ credits: 12500 }));
    renderShell("/dashboard");
    await screen.findByRole("heading", { name: "Page /dashboard" });
    expect(screen.getByTestId("user-name")).toHaveTextContent("Jane Doe");
    const credits = screen.getByTestId("credits-balance");
    expect(credits).toHaveTextContent("12,500 credits");
    expect(credits).toHaveAttribute("href", "/billing");
    expect(await screen.findByText("API Online")).toBeInTheDocument();
  });

  it("shows overage as 0 credits and the overage used, never a negative balance, in halves that wrap on a phone", async () => {
    signedIn(makeUser({ plan: "basic", credits: -10 }));
    renderShell("/dashboard");
    await screen.findByRole("heading", { name: "Page /dashboard" });
    const credits = screen.getByTestId("credits-balance");
    expect(credits.textContent).toBe("0 credits · 10 overage ($0.30)");
    // Each half stays whole; the line may break only between them.
    const halves = [...credits.querySelectorAll(".whitespace-nowrap")].map((el) => el.textContent);
    expect(halves).toEqual(["0 credits ·", "10 overage ($0.30)"]);
  });
});

describe("the header's brand", () => {
  it("shows the logo and the name beside the menu button on small screens only, linking to the dashboard", async () => {
    signedIn();
    renderShell("/settings");
    await screen.findByRole("heading", { name: "Page /settings" });
    const brand = screen.getByTestId("header-brand");
    expect(brand.closest("header")).not.toBeNull();
    expect(brand).toHaveAttribute("href", "/dashboard");
    expect(brand).toHaveAccessibleName("Valuator dashboard");
    expect(brand).toHaveTextContent("Valuator");
    expect(brand.querySelector("svg")).not.toBeNull();
    // The sidebar carries the brand from md up; the header's is for the screens without it.
    expect(brand).toHaveClass("md:hidden");
  });
});
