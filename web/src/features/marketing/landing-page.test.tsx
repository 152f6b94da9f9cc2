import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { EXAMPLE_ADDRESS_LINE, EXAMPLE_QUERY, EXAMPLE_REQUEST, EXAMPLE_VALUATION } from "@/lib/example-valuation";
import type { PropertyValuation } from "@/lib/types";
import { LandingPage } from "./landing-page";

function renderLanding() {
  return render(
    <MemoryRouter>
      <LandingPage />
    </MemoryRouter>,
  );
}

describe("LandingPage", () => {
  it("shows the hero with its two calls to action and the free-credit promise", () => {
    renderLanding();
    expect(screen.getByRole("heading", { level: 1, name: "Property Valuation Made Simple" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Start Free Trial/ })).toHaveAttribute("href", "/register");
    expect(screen.getByRole("link", { name: "View Documentation" })).toHaveAttribute("href", "/docs");
    expect(screen.getByText(/100 free credits · no card needed/)).toBeInTheDocument();
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

  it("shows the example request with a bearer key and the engine's answer for the same demo home", () => {
    renderLanding();
    const example = screen.getByRole("region", { name: "Simple, powerful API" });
    const request = within(example).getByText(/curl/);
    expect(request.textContent).toContain(`/api/v1/property/valuation?${EXAMPLE_QUERY}`);
    for (const param of ["address=", "&city=", "&state=", "&zip="]) expect(request.textContent).toContain(param);
    expect(request.textContent).toContain('-H "Authorization: Bearer YOUR_API_KEY"');
    const query = new URLSearchParams(EXAMPLE_QUERY);
    expect(query.get("address")).toBe(EXAMPLE_REQUEST.address);

    // The answer is the API's envelope, as generated: no hand-written fields.
    const responseText = within(example).getByText(/"estimatedValue"/).textContent ?? "";
    const response = JSON.parse(responseText) as { data: PropertyValuation };
    expect(response).toEqual({ data: EXAMPLE_VALUATION });
    expect(Object.keys(response.data)).toEqual(["property", "valuation", "details", "marketData", "meta"]);
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
    expect(within(example).getByTestId("example-note")).toHaveTextContent("demo market");
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
