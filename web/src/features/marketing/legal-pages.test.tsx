import { render, screen } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter } from "react-router";
import { createQueryClient } from "@/lib/query-client";
import { mockFetch } from "@/test/utils";
import { PrivacyPage } from "./privacy-page";
import { TermsPage } from "./terms-page";

afterEach(() => {
  vi.unstubAllGlobals();
});

// The pages name the installation's support address (GET /api/site).
function renderAt(page: React.ReactNode) {
  mockFetch({ "GET /api/site": { body: { supportEmail: "help@valuator.example.com" } } });
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>{page}</MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("legal pages", () => {
  it("the privacy policy shows its title, last-updated date, Back to Home and the retention promises", () => {
    renderAt(<PrivacyPage />);
    expect(screen.getByRole("heading", { level: 1, name: "Privacy Policy" })).toBeInTheDocument();
    expect(screen.getByText("Last updated: January 21, 2025")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("heading", { level: 2, name: /How long we keep data/ })).toBeInTheDocument();
    const text = document.body.textContent ?? "";
    expect(text).toMatch(/deleted within 24 hours/);
    expect(text).toMatch(/up to 2 years after you close your account/);
    expect(text).toMatch(/argon2id/);
    expect(text).toMatch(/never the full\s+card number/);
  });

  it("the terms show their title, last-updated date, Back to Home and the billing rules", () => {
    renderAt(<TermsPage />);
    expect(screen.getByRole("heading", { level: 1, name: "Terms of Service" })).toBeInTheDocument();
    expect(screen.getByText("Last updated: January 21, 2025")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    const text = document.body.textContent ?? "";
    expect(text).toMatch(/Basic \(\$30 a month, 1,000 credits\), Professional \(\$125 a month, 5,000 credits\), Enterprise \(\$200 a month, 10,000 credits\)/);
    expect(text).toMatch(/\$0\.03 per\s+credit, up to the overage limit/);
    expect(text).toMatch(/Upgrades take effect immediately/);
    expect(text).toMatch(/Cancellation takes effect at the end of the current billing period/);
    expect(text).toMatch(/Credits are forfeited/);
    expect(text).toMatch(/Valuations are estimates, not appraisals/);
    expect(text).toMatch(/99\.9%/);
  });

  it.each([
    ["privacy policy", <PrivacyPage key="p" />],
    ["terms", <TermsPage key="t" />],
  ])("the %s: the configured support address", async (_, page) => {
    renderAt(page);
    const links = await screen.findAllByRole("link", { name: "help@valuator.example.com" });
    expect(links[0]).toHaveAttribute("href", "mailto:help@valuator.example.com");
    // Only channels that exist: no made-up address and no phone line. (There is a live chat since issue 27, in the
    // signed-in dashboard; the privacy policy names what it keeps.)
    expect(document.body.textContent).not.toMatch(/support@valuator\.dev|phone support/i);
  });

  it("the privacy policy says the Support chat's messages are kept like the other messages", () => {
    renderAt(<PrivacyPage />);
    expect(document.body.textContent).toMatch(/through the contact form, the Support chat in your dashboard\s+or by email/);
  });

  it("the privacy policy says what sign-in alerts keep and which emails exist", () => {
    renderAt(<PrivacyPage />);
    const text = document.body.textContent ?? "";
    expect(text).toMatch(/Sign-in devices:.*keyed hash of the browser family/);
    expect(text).toMatch(/each with a link that\s+turns it off; we send no marketing email/);
  });
});
