import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
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

  it("shows the example request with a bearer key and the documented response fields", () => {
    renderLanding();
    const example = screen.getByRole("region", { name: "Simple, powerful API" });
    const request = within(example).getByText(/curl/);
    expect(request.textContent).toContain("/api/v1/property/valuation?address=");
    for (const param of ["address=", "&city=", "&state=", "&zip="]) expect(request.textContent).toContain(param);
    expect(request.textContent).toContain('-H "Authorization: Bearer YOUR_API_KEY"');

    const responseText = within(example).getByText(/"estimatedValue"/).textContent ?? "";
    const response = JSON.parse(responseText) as {
      status: string;
      data: {
        property: { address: string };
        valuation: { estimatedValue: number; confidence: number; pricePerSqFt: number };
        details: { bedrooms: number; bathrooms: number; sqft: number };
      };
    };
    expect(response.status).toBe("success");
    expect(response.data.property.address).toMatch(/\d+ .+, [A-Z]{2} \d{5}/);
    const { estimatedValue, confidence, pricePerSqFt } = response.data.valuation;
    expect(confidence).toBeGreaterThan(0);
    expect(confidence).toBeLessThan(1);
    // The numbers must agree with each other: value / area is the price per square foot.
    expect(Math.round(estimatedValue / response.data.details.sqft)).toBe(pricePerSqFt);
    expect(response.data.details.bedrooms).toBeGreaterThan(0);
    expect(response.data.details.bathrooms).toBeGreaterThan(0);
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
