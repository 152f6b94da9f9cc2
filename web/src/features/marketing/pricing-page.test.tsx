import { afterEach, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { makeUser, mockFetch, renderWithProviders } from "@/test/utils";
import { PricingPage } from "./pricing-page";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Pricing for a visitor who is not signed in (no stored session, so no call is made). */
function renderPricing() {
  return renderWithProviders(<PricingPage />, { route: "/pricing" });
}

describe("PricingPage", () => {
  it("shows the three plans with their prices and credits, Most Popular on Professional only", () => {
    renderPricing();
    const want = [
      { name: "Basic", price: "$30", credits: "1,000 credits" },
      { name: "Professional", price: "$125", credits: "5,000 credits" },
      { name: "Enterprise", price: "$200", credits: "10,000 credits" },
    ];
    for (const plan of want) {
      const card = screen.getByRole("article", { name: plan.name });
      expect(within(card).getByText(plan.price)).toBeInTheDocument();
      expect(within(card).getByText("/month")).toBeInTheDocument();
      expect(within(card).getByText(plan.credits)).toBeInTheDocument();
      expect(within(card).getByText("$0.03 per credit above the plan")).toBeInTheDocument();
      if (plan.name === "Professional") expect(within(card).getByText("Most Popular")).toBeInTheDocument();
      else expect(within(card).queryByText("Most Popular")).not.toBeInTheDocument();
    }
    expect(screen.getAllByText("Most Popular")).toHaveLength(1);
  });

  it("states each plan's rate limit and batch size", () => {
    renderPricing();
    expect(within(screen.getByRole("article", { name: "Basic" })).getByText("60 requests per minute per key")).toBeInTheDocument();
    expect(
      within(screen.getByRole("article", { name: "Professional" })).getByText("120 requests per minute per key"),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole("article", { name: "Enterprise" })).getByText("Unlimited requests per minute"),
    ).toBeInTheDocument();
    expect(screen.getByText("Batch uploads up to 1,000 properties")).toBeInTheDocument();
    expect(screen.getByText("Batch uploads up to 10,000 properties")).toBeInTheDocument();
    expect(screen.getByText("Batch uploads up to 50,000 properties")).toBeInTheDocument();
  });

  it("compares the plans in a table, mentions the free tier and custom pricing", () => {
    renderPricing();
    const table = screen.getByRole("table", { name: "Plan comparison" });
    const row = (label: string) =>
      within(screen.getByRole("rowheader", { name: label }).closest("tr") as HTMLElement)
        .getAllByRole("cell")
        .map((c) => c.textContent);
    expect(within(table).getAllByRole("columnheader").map((c) => c.textContent)).toEqual([
      "Feature",
      "Free",
      "Basic",
      "Professional",
      "Enterprise",
    ]);
    expect(row("Monthly price")).toEqual(["$0", "$30", "$125", "$200"]);
    expect(row("Credits included per month")).toEqual(["100", "1,000", "5,000", "10,000"]);
    expect(row("Rate limit per API key")).toEqual(["60 / min", "60 / min", "120 / min", "Unlimited"]);
    expect(row("Batch upload size")).toEqual(["100 properties", "1,000 properties", "10,000 properties", "50,000 properties"]);
    expect(row("Overage above the plan")).toEqual(["Not available", "$0.03 / credit", "$0.03 / credit", "$0.03 / credit"]);
    expect(row("Property valuation")).toEqual(Array(4).fill("1 credit"));
    expect(row("Person lookup")).toEqual(Array(4).fill("5 credits"));

    expect(screen.getByText(/100 free credits when you sign up/)).toBeInTheDocument();
    expect(screen.getByText(/more than 50,000 credits a month/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Contact Sales" })).toHaveAttribute("href", "/contact-us");
    expect(screen.getByRole("link", { name: "Read the API docs" })).toHaveAttribute("href", "/docs");
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
  });

  it("answers rollover, credit costs, plan changes, overage and confidence in the FAQ", async () => {
    const user = userEvent.setup();
    renderPricing();
    const open = async (q: string) => {
      await user.click(screen.getByRole("button", { name: q }));
      return screen.getByRole("region", { name: q });
    };
    expect((await open("Do unused credits roll over?")).textContent).toMatch(/roll over for one month/);
    const credits = (await open("What does a credit buy?")).textContent;
    expect(credits).toMatch(/valuation costs 1 credit/);
    expect(credits).toMatch(/person lookup costs 5 credits/);
    expect(credits).toMatch(/1 credit for each property valued/);
    expect(credits).toMatch(/cost nothing/);
    const changes = (await open("Can I upgrade, downgrade or cancel at any time?")).textContent;
    expect(changes).toMatch(/Upgrades take effect immediately, with a prorated charge/);
    expect(changes).toMatch(/Downgrades and cancellations take effect at the end of the billing period/);
    const overage = (await open("What happens if I use more credits than my plan includes?")).textContent;
    expect(overage).toMatch(/\$0\.03/);
    expect(overage).toMatch(/overage limit/);
    expect(credits).toMatch(/an address outside the markets we cover/);
    const coverage = (await open("Which addresses can I value?")).textContent;
    expect(coverage).toMatch(/the markets loaded in this installation/);
    expect(coverage).toMatch(/area_not_covered/);
    expect(coverage).toMatch(/We\s+have no sales near 33131/);
    expect((await open("How is the confidence score calibrated?")).textContent).toMatch(
      /two in three homes like it sell within ±FSD of our estimate\. The confidence score is 1 − FSD/,
    );
  });

  it("sends a signed-out visitor to create an account from every plan", () => {
    renderPricing();
    for (const name of ["Basic", "Professional", "Enterprise"]) {
      const card = screen.getByRole("article", { name });
      expect(within(card).getByRole("link", { name: `Choose ${name}` })).toHaveAttribute("href", "/register");
    }
  });

  it("sends a signed-in user to that plan's payment on the Billing screen", async () => {
    localStorage.setItem("token", "tok-1");
    mockFetch({ "GET /api/user/profile": { body: makeUser() } });
    renderPricing();
    const basic = within(screen.getByRole("article", { name: "Basic" })).getByRole("link", { name: "Choose Basic" });
    await waitFor(() => expect(basic).toHaveAttribute("href", "/billing?plan=basic"));
    expect(within(screen.getByRole("article", { name: "Professional" })).getByRole("link", { name: "Choose Professional" })).toHaveAttribute(
      "href",
      "/billing?plan=professional",
    );
    expect(within(screen.getByRole("article", { name: "Enterprise" })).getByRole("link", { name: "Choose Enterprise" })).toHaveAttribute(
      "href",
      "/billing?plan=enterprise",
    );
  });
});
