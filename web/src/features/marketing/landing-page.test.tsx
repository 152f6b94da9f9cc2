import { afterEach, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import { EXAMPLE_ADDRESS_LINE, EXAMPLE_QUERY, EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { GENERATED_EXAMPLE } from "@/lib/generated-example";
import type { PropertyValuation } from "@/lib/types";
import { EXAMPLE_UNAVAILABLE_REPLY, LIVE_EXAMPLE } from "@/test/example-fixture";
import { mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { LandingPage } from "./landing-page";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The landing page, on a server that answers its own example (the live one unless `example` says otherwise). */
function renderLanding(example: FakeRoute = { body: LIVE_EXAMPLE }) {
  mockFetch({ "GET /api/example": example });
  return renderWithProviders(<LandingPage />);
}

describe("LandingPage", () => {
  it("shows the hero with its two calls to action and the free-credit promise", () => {
    renderLanding();
    expect(screen.getByRole("heading", { level: 1, name: "Property Valuation Made Simple" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Start Free Trial/ })).toHaveAttribute("href", "/register");
    expect(screen.getByRole("link", { name: "View Documentation" })).toHaveAttribute("href", "/docs");
    expect(screen.getByText(/100 free credits · no card needed/)).toBeInTheDocument();
  });

  it("claims coverage as what is loaded, never any US address (issue 35)", () => {
    renderLanding();
    expect(document.body).not.toHaveTextContent(/any US (address|home)/i);
    expect(screen.getByText(/^Value homes by address in the markets loaded in this installation/)).toBeInTheDocument();
    expect(screen.getByText(/any address in the markets loaded in this installation/)).toBeInTheDocument();
  });

  it("shows the six feature cards by their exact titles", () => {
    renderLanding();
    const titles = [
      "Instant Valuations",
      "Batch Processing",
      "Analytics Dashboard",
      "Enterprise Security",
      "Developer Friendly",
      "99.9% Uptime",
    ];
    const features = screen.getByRole("region", { name: /Everything you need/ });
    const headings = within(features)
      .getAllByRole("heading", { level: 3 })
      .map((h) => h.textContent);
    expect(headings).toEqual(titles);
  });

  it("shows the example request with a bearer key and this server's own answer for the same demo home", async () => {
    renderLanding();
    const example = screen.getByRole("region", { name: "Simple, powerful API" });
    const request = within(example).getByText(/curl/);
    expect(request.textContent).toContain(`/api/v1/property/valuation?${EXAMPLE_QUERY}`);
    for (const param of ["address=", "&city=", "&state=", "&zip="]) expect(request.textContent).toContain(param);
    expect(request.textContent).toContain('-H "Authorization: Bearer YOUR_API_KEY"');
    const query = new URLSearchParams(EXAMPLE_QUERY);
    expect(query.get("address")).toBe(EXAMPLE_REQUEST.address);

    // The answer is the API's envelope, as this server gives it for the address: no hand-written fields.
    const responseText = (await within(example).findByText(/"estimatedValue"/)).textContent ?? "";
    const response = JSON.parse(responseText) as { data: PropertyValuation };
    expect(response).toEqual(LIVE_EXAMPLE.response);
    expect(Object.keys(response.data)).toEqual(["property", "valuation", "details", "marketData", "valueHistory", "meta"]);
    const { property, valuation, details } = response.data;
    // It is the home the request asks for, found on record.
    expect(property.formattedAddress.toLowerCase()).toBe(EXAMPLE_ADDRESS_LINE.toLowerCase());
    expect(property.matchCode).toBe("exact");
    expect(valuation.confidence).toBeGreaterThan(0);
    expect(valuation.confidence).toBeLessThan(1);
    expect(valuation.low).toBeLessThan(valuation.estimatedValue);
    expect(valuation.high).toBeGreaterThan(valuation.estimatedValue);
    // The numbers agree with each other: value / area is the price per square foot (the value is rounded to $1,000).
    expect(Math.abs(valuation.estimatedValue / (details.squareFeet ?? NaN) - (valuation.pricePerSqFt ?? NaN))).toBeLessThan(1);
    expect(within(example).getByTestId("example-note")).toHaveTextContent(
      "This server's own answer today (sales up to 2027-07-13), showing 2 of its 11 comparable sales",
    );
  });

  it("shows a skeleton while the server's answer loads, never the generated numbers", () => {
    renderLanding(() => new Promise(() => {}));
    const example = screen.getByRole("region", { name: "Simple, powerful API" });
    expect(within(example).getByTestId("example-loading")).toBeInTheDocument();
    expect(within(example).queryByText(/"estimatedValue"/)).not.toBeInTheDocument();
    expect(example).not.toHaveTextContent(String(GENERATED_EXAMPLE.response.data.valuation.estimatedValue));
  });

  it("shows the generated example with its day when this server has no record of the home", async () => {
    renderLanding(EXAMPLE_UNAVAILABLE_REPLY);
    const example = screen.getByRole("region", { name: "Simple, powerful API" });
    const responseText = (await within(example).findByText(/"estimatedValue"/)).textContent ?? "";
    expect(JSON.parse(responseText)).toEqual(GENERATED_EXAMPLE.response);
    expect(within(example).getByTestId("example-note")).toHaveTextContent(
      `The answer on the demo market of ${GENERATED_EXAMPLE.market.day}`,
    );
  });

  it("has the closing call to action and the public header and footer links", () => {
    renderLanding();
    const cta = screen.getByRole("region", { name: /Ready to value/ });
    expect(within(cta).getByRole("link")).toHaveAttribute("href", "/register");

    expect(screen.getByRole("link", { name: "Sign In" })).toHaveAttribute("href", "/login");
    expect(screen.getByRole("link", { name: "Get Started" })).toHaveAttribute("href", "/register");
    const footer = screen.getByRole("navigation", { name: "Footer" });
    const hrefs = within(footer)
      .getAllByRole("link")
      .map((a) => a.getAttribute("href"));
    expect(hrefs).toEqual(["/docs", "/pricing", "/contact-us", "/about", "/privacy", "/opt-out", "/terms"]);
  });
});
