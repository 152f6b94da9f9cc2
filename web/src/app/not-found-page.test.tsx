import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import { makeUser, mockFetch, renderWithProviders } from "@/test/utils";
import { NotFoundPage } from "./not-found-page";

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderNotFound({ signedIn }: { signedIn: boolean }) {
  if (signedIn) localStorage.setItem("token", "tok-1");
  mockFetch({ "GET /api/user/profile": { body: makeUser() } });
  return renderWithProviders(<NotFoundPage />, { route: "/no/such/page" });
}

describe("NotFoundPage", () => {
  it("is a public page: the header with the logo and the footer around a friendly message", () => {
    renderNotFound({ signedIn: false });
    expect(screen.getByRole("banner")).toBeInTheDocument();
    expect(screen.getByRole("contentinfo")).toBeInTheDocument();
    expect(within(screen.getByRole("banner")).getByRole("link", { name: /Valuator/ })).toHaveAttribute("href", "/");
    expect(screen.getByRole("heading", { level: 1, name: "We can't find that page" })).toBeInTheDocument();
    expect(within(screen.getByRole("main")).getByText("/no/such/page")).toBeInTheDocument();
    // Nothing for developers: the old page asked whether the route was added to the router.
    expect(screen.queryByText(/router/i)).not.toBeInTheDocument();
  });

  it("links a visitor Home and to the Help Center, and not to the Dashboard when signed out", () => {
    renderNotFound({ signedIn: false });
    const next = screen.getByRole("navigation", { name: "Where to go next" });
    expect(within(next).getByRole("link", { name: "Home" })).toHaveAttribute("href", "/");
    expect(within(next).getByRole("link", { name: "Help Center" })).toHaveAttribute("href", "/help-center");
    expect(within(next).queryByRole("link", { name: "Dashboard" })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Contact us" })).toHaveAttribute("href", "/contact-us");
  });

  it("links a signed-in user to the Dashboard too", async () => {
    renderNotFound({ signedIn: true });
    const next = screen.getByRole("navigation", { name: "Where to go next" });
    expect(await within(next).findByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(within(next).getAllByRole("link").map((l) => l.textContent)).toEqual(["Home", "Dashboard", "Help Center"]);
  });

  it("the header offers Sign In and Get Started signed out, the Dashboard signed in", async () => {
    const { unmount } = renderNotFound({ signedIn: false });
    const account = () => screen.getByRole("navigation", { name: "Account" });
    expect(within(account()).getAllByRole("link").map((l) => l.textContent)).toEqual(["Sign In", "Get Started"]);
    unmount();
    renderNotFound({ signedIn: true });
    expect(await within(account()).findByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(within(account()).queryByRole("link", { name: "Sign In" })).not.toBeInTheDocument();
  });
});
