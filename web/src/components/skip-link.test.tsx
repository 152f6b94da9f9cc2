import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { PublicLayout } from "@/components/public-layout";
import { mockFetch, renderWithProviders } from "@/test/utils";
import { SkipLink } from "./skip-link";

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderPage() {
  mockFetch({});
  return renderWithProviders(
    <>
      <SkipLink />
      <Routes>
        <Route
          path="/"
          element={
            <PublicLayout>
              <h1>Public page</h1>
              <button type="button">First control of the content</button>
            </PublicLayout>
          }
        />
      </Routes>
    </>,
  );
}

describe("SkipLink", () => {
  it("is the first tab stop, hidden until focused, and takes focus past the header to the main content", async () => {
    const user = userEvent.setup();
    renderPage();
    const link = screen.getByRole("link", { name: "Skip to main content" });
    expect(link).toHaveAttribute("href", "#main-content");
    expect(link).toHaveClass("sr-only", "focus:not-sr-only");

    await user.tab();
    expect(link).toHaveFocus();
    await user.keyboard("{Enter}");
    const main = screen.getByRole("main");
    expect(main).toHaveAttribute("id", "main-content");
    expect(main).toHaveFocus();
    // The URL does not change: the link moves focus itself.
    expect(screen.getByTestId("location")).toHaveTextContent(/^\/$/);

    await user.tab();
    expect(within(main).getByRole("button", { name: "First control of the content" })).toHaveFocus();
  });

  it("leaves the public layout with one banner, one main and one contentinfo, and named navigations", async () => {
    renderPage();
    await waitFor(() => expect(screen.getAllByRole("banner")).toHaveLength(1));
    expect(screen.getAllByRole("main")).toHaveLength(1);
    expect(screen.getAllByRole("contentinfo")).toHaveLength(1);
    expect(screen.getAllByRole("navigation").map((n) => n.getAttribute("aria-label"))).toEqual(["Account", "Footer"]);
  });
});
