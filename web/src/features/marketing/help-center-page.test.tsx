import type { ReactElement } from "react";
import { afterEach, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import { AppRoutes } from "@/app/routes";
import { EXAMPLE_QUERY, EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { GENERATED_EXAMPLE } from "@/lib/generated-example";
import { EXAMPLE_UNAVAILABLE_REPLY, LIVE_EXAMPLE } from "@/test/example-fixture";
import { mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { HelpCenterPage } from "./help-center-page";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Renders `ui` on a server that answers its own example (the live one unless `example` says otherwise). */
function renderOnServer(ui: ReactElement, route = "/", example: FakeRoute = { body: LIVE_EXAMPLE }) {
  mockFetch({ "GET /api/example": example });
  return renderWithProviders(ui, { route });
}

describe("HelpCenterPage", () => {
  it("covers the main topics and links to the docs, the contact page and home", () => {
    renderOnServer(<HelpCenterPage />);
    expect(screen.getByRole("heading", { level: 1, name: "Help Center" })).toBeInTheDocument();
    for (const topic of [
      "Getting started",
      "API keys and authentication",
      "Credits and billing",
      "Batch uploads and column mapping",
      "Valuation confidence and ranges",
      "Market statistics",
      "Errors and what to do",
    ]) {
      expect(screen.getByRole("heading", { level: 2, name: topic })).toBeInTheDocument();
    }
    for (const status of ["400", "401", "402", "404", "415", "422", "429"]) {
      expect(screen.getByRole("rowheader", { name: new RegExp(`^${status} `) })).toBeInTheDocument();
    }
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("link", { name: "Read the API docs" })).toHaveAttribute("href", "/docs");
    expect(screen.getByRole("link", { name: "Contact support" })).toHaveAttribute("href", "/contact-us");
  });

  it("explains market statistics: what they return, 1 credit per ZIP, thin data left out (issue 28)", () => {
    renderOnServer(<HelpCenterPage />);
    expect(screen.getByText(/For a ZIP code, from our own records/)).toHaveTextContent("GET /api/v1/markets?zip=98103");
    expect(screen.getByText(/^1 credit per ZIP code, like a valuation/)).toHaveTextContent("up to five ZIP codes");
    expect(screen.getByText(/A figure made of fewer than 5 records is left out/)).toBeInTheDocument();
  });

  it("explains confidence as 1 - FSD with the spec's levels, and the range rule", () => {
    renderOnServer(<HelpCenterPage />);
    expect(screen.getByText(/Confidence, from 0 to 1, is 1 minus the valuation's FSD/)).toHaveTextContent(
      "0.85 and up is High, 0.70 and up is Medium",
    );
    expect(screen.getByText(/more than three\s+times the low one/)).toBeInTheDocument();
  });

  it("makes the first API call on the example home and shows this server's own answer for it", async () => {
    renderOnServer(<HelpCenterPage />);
    const call = screen.getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith("curl "));
    expect(call.textContent).toContain(`/api/v1/property/valuation?${EXAMPLE_QUERY}`);
    const answer = await screen.findByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith('{\n  "data"'));
    expect(JSON.parse(answer.textContent ?? "")).toEqual(LIVE_EXAMPLE.response);
    expect(screen.getByTestId("example-note")).toHaveTextContent("This server's own answer today");
    const csv = screen.getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith("address,city"));
    expect(csv.textContent).toContain(`${EXAMPLE_REQUEST.address},${EXAMPLE_REQUEST.city},`);
  });

  it("shows a skeleton while the answer loads, and the generated example with its day where there is none", async () => {
    const first = renderOnServer(<HelpCenterPage />, "/", () => new Promise(() => {}));
    const loading = screen.getByTestId("example-response");
    expect(within(loading).getByTestId("example-loading")).toBeInTheDocument();
    expect(loading).not.toHaveTextContent('"estimatedValue"');
    first.unmount();

    renderOnServer(<HelpCenterPage />, "/", EXAMPLE_UNAVAILABLE_REPLY);
    const answer = await screen.findByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith('{\n  "data"'));
    expect(JSON.parse(answer.textContent ?? "")).toEqual(GENERATED_EXAMPLE.response);
    expect(screen.getByTestId("example-note")).toHaveTextContent(`demo market of ${GENERATED_EXAMPLE.market.day}`);
  });

  it("is routed at /help-center, where the contact page's button points", async () => {
    renderOnServer(<AppRoutes />, "/help-center");
    expect(await screen.findByRole("heading", { level: 1, name: "Help Center" })).toBeInTheDocument();
  });
});
