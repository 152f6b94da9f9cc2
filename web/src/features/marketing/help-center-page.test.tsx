import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { AppRoutes } from "@/app/routes";
import { EXAMPLE_QUERY, EXAMPLE_REQUEST, EXAMPLE_VALUATION } from "@/lib/example-valuation";
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

  it("makes the first API call on the example home and shows the engine's answer for it", () => {
    render(
      <MemoryRouter>
        <HelpCenterPage />
      </MemoryRouter>,
    );
    const call = screen.getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith("curl "));
    expect(call.textContent).toContain(`/api/v1/property/valuation?${EXAMPLE_QUERY}`);
    const answer = screen.getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith('{\n  "data"'));
    expect(JSON.parse(answer.textContent ?? "")).toEqual({ data: EXAMPLE_VALUATION });
    const csv = screen.getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith("address,city"));
    expect(csv.textContent).toContain(`${EXAMPLE_REQUEST.address},${EXAMPLE_REQUEST.city},`);
  });

  it("is routed at /help-center, where the contact page's button points", async () => {
    render(
      <MemoryRouter initialEntries={["/help-center"]}>
        <AppRoutes />
      </MemoryRouter>,
    );
    expect(await screen.findByRole("heading", { level: 1, name: "Help Center" })).toBeInTheDocument();
  });
});
