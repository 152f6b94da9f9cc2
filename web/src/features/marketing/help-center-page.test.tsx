import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { AppRoutes } from "@/app/routes";
import { HelpCenterPage } from "./help-center-page";

describe("HelpCenterPage", () => {
  it("covers the main topics and links to the docs, the contact page and home", () => {
    render(
      <MemoryRouter>
        <HelpCenterPage />
      </MemoryRouter>,
    );
    expect(screen.getByRole("heading", { level: 1, name: "Help Center" })).toBeInTheDocument();
    for (const topic of [
      "Getting started",
      "API keys and authentication",
      "Credits and billing",
      "Batch uploads and column mapping",
      "Valuation confidence and ranges",
      "Errors and what to do",
    ]) {
      expect(screen.getByRole("heading", { level: 2, name: topic })).toBeInTheDocument();
    }
    for (const status of ["400", "401", "402", "404", "429"]) {
      expect(screen.getByRole("rowheader", { name: new RegExp(`^${status} `) })).toBeInTheDocument();
    }
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("link", { name: "Read the API docs" })).toHaveAttribute("href", "/docs");
    expect(screen.getByRole("link", { name: "Contact support" })).toHaveAttribute("href", "/contact-us");
  });

  it("is routed at /help-center, where the contact page's button points", () => {
    render(
      <MemoryRouter initialEntries={["/help-center"]}>
        <AppRoutes />
      </MemoryRouter>,
    );
    expect(screen.getByRole("heading", { level: 1, name: "Help Center" })).toBeInTheDocument();
  });
});
