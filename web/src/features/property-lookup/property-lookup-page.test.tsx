import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { GENERATED_EXAMPLE } from "@/lib/generated-example";
import { EXAMPLE_UNAVAILABLE_REPLY, LIVE_EXAMPLE } from "@/test/example-fixture";
import type { PropertyValuation } from "@/lib/types";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { ValuationCard } from "./components/valuation-card";
import { PropertyLookupPage } from "./property-lookup-page";
import { makeResult } from "@/test/valuation-fixture";
import { formatCurrency, formatValueRange } from "./valuation-helpers";

// These tests drive the whole screen (a large DOM and a 51-item Select) and can be slow on a busy machine; the
// limit is for a stuck test, not a speed requirement.
vi.setConfig({ testTimeout: 20_000 });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const LOOKUP = "POST /api/property/lookup";
const REPORT = "POST /api/properties/download-report";

function renderLookup(routes: Record<string, FakeRoute> = {}) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({
    "GET /api/user/profile": { body: makeUser() },
    "GET /api/example": { body: LIVE_EXAMPLE },
    ...routes,
  });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/property-lookup" element={<PropertyLookupPage />} />
      <Route path="/billing" element={<h1>Billing page</h1>} />
    </Routes>,
    { route: "/property-lookup" },
  );
  return { ...server, user };
}

async function fillForm(
  user: ReturnType<typeof userEvent.setup>,
  { address = "2114 Bigelow Ave N Unit 3", city = "Seattle", state = "Washington", zip = "98109" } = {},
) {
  // Pasting is as real as typing for these plain inputs and much faster than a key event per character.
  const fill = async (label: string, value: string) => {
    await user.click(screen.getByLabelText(label));
    await user.paste(value);
  };
  await fill("Street Address", address);
  await fill("City", city);
  await user.click(screen.getByLabelText("State"));
  await user.click(await screen.findByRole("option", { name: state }));
  await fill("ZIP Code", zip);
}

const submit = () => screen.getByRole("button", { name: /Get Property Valuation|Searching\.\.\./ });

async function lookUp(routes: Record<string, FakeRoute>) {
  const ctx = renderLookup(routes);
  await fillForm(ctx.user);
  await ctx.user.click(submit());
  return ctx;
}

const profileReads = (requests: { method: string; url: string }[]) =>
  requests.filter((r) => r.method === "GET" && r.url === "/api/user/profile").length;

/** The toast (an <li> in the notifications region) whose title is `title`. */
async function findToast(title: string) {
  const el = await screen.findByText(title, { selector: "li *" });
  return el.closest("li")!;
}

describe("the form", () => {
  it("offers the states by name with the two-letter code as value, DC included", async () => {
    const { user } = renderLookup();
    await user.click(screen.getByLabelText("State"));
    const options = await screen.findAllByRole("option");
    expect(options).toHaveLength(51);
    expect(options[0]).toHaveTextContent("Alabama");
    expect(screen.getByRole("option", { name: "District of Columbia" })).toBeInTheDocument();
    expect(screen.getByRole("option", { name: "Wyoming" })).toBeInTheDocument();
  });

  it("shows examples beside the fields, never in them: the fields start empty (issue 33)", () => {
    renderLookup();
    // The example address is generated (make examples); the examples follow it.
    const expected = {
      "Street Address": `e.g. ${EXAMPLE_REQUEST.address}`,
      City: `e.g. ${EXAMPLE_REQUEST.city}`,
      "ZIP Code": `e.g. ${EXAMPLE_REQUEST.zip}`,
      "Square Feet": "e.g. 1,850",
    };
    for (const [label, example] of Object.entries(expected)) {
      // The label's name stays exact (the end-to-end tests find the fields by it); the example describes the field.
      const input = screen.getByRole("textbox", { name: label });
      expect(input).toHaveValue("");
      expect(input).not.toHaveAttribute("placeholder");
      expect(input).toHaveAccessibleDescription(example);
      const hint = screen.getByText(example);
      expect(hint).toHaveClass("text-muted-foreground");
      expect(input.getAttribute("aria-describedby")).toBe(hint.id);
    }
    // The selects start on their prompts, not on a value.
    expect(screen.getByRole("combobox", { name: "State" })).toHaveTextContent("Select a state");
    expect(screen.getByRole("combobox", { name: "Property Type" })).toHaveTextContent("Not specified");
  });

  it("keeps the example beside the error, both describing the field", async () => {
    const { user } = renderLookup();
    await user.click(submit());
    expect(await screen.findByText("ZIP code must be at least 5 characters")).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "ZIP Code" })).toHaveAccessibleDescription(
      `e.g. ${EXAMPLE_REQUEST.zip} ZIP code must be at least 5 characters`,
    );
  });

  it("shows the spec's validation texts and sends nothing", async () => {
    const { user, requests } = renderLookup();
    await user.click(submit());
    expect(await screen.findByText("Address is required")).toBeInTheDocument();
    expect(screen.getByText("City is required")).toBeInTheDocument();
    expect(screen.getByText("State is required")).toBeInTheDocument();
    expect(screen.getByText("ZIP code must be at least 5 characters")).toBeInTheDocument();
    expect(screen.getByLabelText("Street Address")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("State")).toHaveAttribute("aria-invalid", "true");

    await fillForm(user, { zip: "9810" });
    await user.click(submit());
    expect(await screen.findByText("ZIP code must be at least 5 characters")).toBeInTheDocument();
    expect(screen.queryByText("Address is required")).not.toBeInTheDocument();
    expect(screen.queryByText("State is required")).not.toBeInTheDocument();
    expect(requests.some((r) => r.url === "/api/property/lookup")).toBe(false);
  });
});

describe("before any search", () => {
  it("shows a clearly labelled sample result, without a report to download", async () => {
    renderLookup();
    expect(screen.getByRole("heading", { level: 1, name: "Property Lookup" })).toBeInTheDocument();
    const sample = await screen.findByTestId("sample-result");
    expect(within(sample).getByText("Sample result")).toBeInTheDocument();
    expect(within(sample).getByText(/This is an example/)).toBeInTheDocument();
    // The sample is the product's example valuation: this server's own answer for a demo home today, so a lookup
    // of that address shows the same numbers.
    const v = LIVE_EXAMPLE.response.data.valuation;
    expect(within(sample).getByText(LIVE_EXAMPLE.response.data.property.formattedAddress)).toBeInTheDocument();
    expect(within(sample).getByTestId("demo-badge")).toBeInTheDocument();
    expect(within(sample).getByTestId("estimated-value")).toHaveTextContent(formatCurrency(v.estimatedValue));
    expect(within(sample).getByTestId("value-range")).toHaveTextContent(`80% range: ${formatValueRange(v.low, v.high)}`);
    expect(within(sample).getByRole("button", { name: "Download Report" })).toBeDisabled();
    expect(screen.queryByTestId("valuation-result")).not.toBeInTheDocument();
    expect(screen.getByTestId("sample-note")).toHaveTextContent(
      "The sample is this server's answer today for 5873 River Dr N, Seattle, WA 98103: look it up and you get these numbers.",
    );
  });

  it("shows a skeleton while the sample loads, never the generated numbers", () => {
    renderLookup({ "GET /api/example": () => new Promise(() => {}) });
    expect(screen.getByTestId("sample-loading")).toBeInTheDocument();
    expect(screen.queryByTestId("sample-result")).not.toBeInTheDocument();
    expect(screen.queryByText(formatCurrency(GENERATED_EXAMPLE.response.data.valuation.estimatedValue))).not.toBeInTheDocument();
  });

  it("shows the generated sample with its day when this server has no record of the home", async () => {
    renderLookup({ "GET /api/example": EXAMPLE_UNAVAILABLE_REPLY });
    const sample = await screen.findByTestId("sample-result");
    expect(within(sample).getByText("Sample result")).toBeInTheDocument();
    expect(within(sample).getByTestId("estimated-value")).toHaveTextContent(
      formatCurrency(GENERATED_EXAMPLE.response.data.valuation.estimatedValue),
    );
    expect(screen.getByTestId("sample-note")).toHaveTextContent(
      `The sample is the answer on the demo market of ${GENERATED_EXAMPLE.market.day}: this server has no record of`,
    );
  });

  it("shows the promo banners for batch upload and API keys", async () => {
    renderLookup();
    // The batch limit is the user's own plan's, with the next plan's, from the plan table (as on the Batch page).
    await waitFor(() =>
      expect(screen.getByTestId("promo-batch-limit")).toHaveTextContent(
        "Your Free plan: up to 100 properties per upload (Basic: 1,000).",
      ),
    );
    expect(screen.queryByText(/up to 1,000 properties/)).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: /Batch Upload/ })).toHaveAttribute("href", "/batch-upload");
    expect(screen.getByRole("link", { name: /API Key/ })).toHaveAttribute("href", "/api-keys");
  });

  it.each([
    ["basic", "Your Basic plan: up to 1,000 properties per upload (Professional: 10,000)."],
    ["enterprise", "Your Enterprise plan: up to 50,000 properties per upload."],
  ] as const)("states a %s user's own batch limit in the promo", async (plan, line) => {
    renderLookup({ "GET /api/user/profile": { body: makeUser({ plan }) } });
    await waitFor(() => expect(screen.getByTestId("promo-batch-limit")).toHaveTextContent(line));
  });
});

describe("a lookup", () => {
  it("reads 'Searching...' while pending, sends the address and replaces the sample with the result", async () => {
    let answer: (reply: { body: unknown }) => void = () => {};
    const { user, requests } = renderLookup({
      [LOOKUP]: () => new Promise((resolve) => (answer = resolve)),
    });
    await fillForm(user);
    await user.click(submit());

    // Unavailable while the lookup runs, but not disabled: focus stays on it, and pressing it again sends nothing.
    const button = await screen.findByRole("button", { name: "Searching..." });
    expect(button).toHaveAttribute("aria-disabled", "true");
    expect(button).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(requests.filter((r) => r.url === "/api/property/lookup")).toHaveLength(1);
    const call = requests.find((r) => r.method === "POST" && r.url === "/api/property/lookup");
    expect(call?.body).toEqual({ address: "2114 Bigelow Ave N Unit 3", city: "Seattle", state: "WA", zip: "98109" });
    expect(call?.headers.Authorization).toBe("Bearer tok-1");
    const readsBefore = profileReads(requests);

    answer({ body: { data: makeResult() } });
    const card = await screen.findByTestId("valuation-result");
    expect(screen.queryByTestId("sample-result")).not.toBeInTheDocument();
    expect(within(card).queryByText("Sample result")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Get Property Valuation" })).toBeEnabled();
    // The result is announced: its heading (the address) takes focus.
    await waitFor(() =>
      expect(within(card).getByRole("heading", { level: 2, name: "2114 Bigelow Ave N Unit 3, Seattle, WA 98109" })).toHaveFocus(),
    );
    // The credit was used: the header's balance is re-read.
    await waitFor(() => expect(profileReads(requests)).toBe(readsBefore + 1));
  });

  it("trims what was typed before sending it", async () => {
    const { user, requests } = renderLookup({ [LOOKUP]: { body: { data: makeResult() } } });
    await fillForm(user, { address: "  1 Main St ", city: " Austin ", state: "Texas", zip: " 78701 " });
    await user.click(submit());
    await screen.findByTestId("valuation-result");
    expect(requests.find((r) => r.url === "/api/property/lookup")?.body).toEqual({
      address: "1 Main St",
      city: "Austin",
      state: "TX",
      zip: "78701",
    });
  });

  it("shows every part of the result", async () => {
    await lookUp({ [LOOKUP]: { body: { data: makeResult() } } });
    const card = await screen.findByTestId("valuation-result");
    const c = within(card);

    expect(c.getByRole("heading", { name: "2114 Bigelow Ave N Unit 3, Seattle, WA 98109" })).toBeInTheDocument();
    expect(c.getByTestId("estimated-value")).toHaveTextContent(/^\$987,400$/);
    expect(c.getByTestId("value-range")).toHaveTextContent("80% range: $910,000 – $1,065,000");
    expect(c.getByTestId("price-per-sqft")).toHaveTextContent("$537 per sq ft");
    const badge = c.getByTestId("confidence-badge");
    expect(badge).toHaveTextContent("91% High Confidence");
    expect(badge).toHaveClass("bg-green-100");
    expect(
      c.getByText("means: about 2 in 3 homes like this sell within ±9% of our estimate (FSD 0.09); 71% sell within 10%"),
    ).toBeInTheDocument();
    // What the estimate is made of, heaviest first; a part with no weight is left out.
    expect(
      within(c.getByTestId("evidence"))
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["Model 60%", "Last sale of this home 40%: sold Dec 1, 2025 for $1,010,000, $1,030,000 today"]);
    expect(c.getByTestId("comparables-value")).toHaveTextContent("Comparable sales indicate $1,010,000");
    // How it was valued, beside the confidence; off the record it is the match note, said once.
    const path = "A unit not on record, valued at its building from the facts you gave";
    expect(c.getByTestId("valuation-path")).toHaveTextContent(path);
    expect(c.getByTestId("match-note")).toHaveTextContent(new RegExp(`^${path}$`));
    expect(c.getByTestId("match-note")).toContainElement(c.getByTestId("valuation-path"));
    expect(c.getByText("Demo data")).toBeInTheDocument();
    expect(c.getByRole("img", { name: /Photo of 2114 Bigelow/ })).toHaveAttribute("src", "/demo-homes/house-3.svg");

    const stat = (label: string) => c.getByText(label, { selector: "dt" }).closest("div")!;
    expect(stat("Bedrooms")).toHaveTextContent("3");
    expect(stat("Bathrooms")).toHaveTextContent("1.75");
    expect(stat("Square Feet")).toHaveTextContent("1,840");
    expect(stat("Year Built")).toHaveTextContent("1926");
    expect(stat("Property Type")).toHaveTextContent("Townhouse");
    expect(stat("Lot Size")).toHaveTextContent("0.12 acres");
    expect(stat("Living Area")).toHaveTextContent("1,760 sq ft");
    expect(stat("Home Status")).toHaveTextContent("Recently sold");
    expect(stat("Rent Estimate")).toHaveTextContent("$3,900/mo");
    expect(stat("Rent Estimate")).toHaveTextContent("$3,500 – $4,300 · model estimate");
    expect(stat("County")).toHaveTextContent("King County");
    expect(stat("Market Price Trend")).toHaveTextContent("+3.2% over 12 months");
    expect(c.getByTestId("valuation-meta")).toHaveTextContent("1 credit used, 99 left");

    const rows = within(c.getByTestId("comparables-table")).getAllByRole("row");
    expect(rows).toHaveLength(5); // the header and four sales
    const first = within(rows[1]!).getAllByRole("cell").map((cell) => cell.textContent);
    expect(first).toEqual([
      "2120 BIGELOW AVE NSEATTLE, WA 9810993% similarUsed",
      "0.0 mi",
      "Oct 9, 2025",
      "$1,010,000",
      "3",
      "2",
      "1,900",
      "1931",
      "$992,000",
      "−1.8%",
      "4.4%",
    ]);
    // Over a guideline limit, said in words.
    expect(within(rows[2]!).getAllByRole("cell")[9]).toHaveTextContent("+17.2%over 15%");
    expect(within(rows[3]!).getAllByRole("cell")[10]).toHaveTextContent("30.2%over 25%");
    const last = within(rows[4]!).getAllByRole("cell").map((cell) => cell.textContent);
    expect(last).toEqual([
      "Parcel 123456789061% similarNot used",
      "1.3 mi",
      "Jun 30, 2025",
      "$845,000",
      "—",
      "—",
      "—",
      "—",
      "$901,500",
      "+6.7%",
      "15.0%",
    ]);

    const history = c.getByTestId("price-history");
    expect(within(history).getByRole("img", { name: /2 sales from 2011 to 2021/ })).toBeInTheDocument();
    const sales = within(within(history).getByTestId("price-history-list")).getAllByRole("row").slice(1);
    expect(sales.map((r) => r.textContent)).toEqual(["Aug 2, 2021Sold$880,000+93.4%", "Mar 15, 2011Sold$455,000—"]);
  });

  it("says when the rent comes from nearby rents and explains a home that is not on record", async () => {
    const base = makeResult();
    const result = makeResult({
      property: { ...base.property, matchCode: "not_on_record", isDemo: false },
      valuation: { ...base.valuation, path: "facts" },
      marketData: { ...base.marketData, rentSource: "rental_comparables" },
    });
    await lookUp({ [LOOKUP]: { body: { data: result } } });
    const card = await screen.findByTestId("valuation-result");
    expect(within(card).getByTestId("valuation-path")).toHaveTextContent("Not on record: valued from the facts you gave");
    expect(within(card).getByTestId("match-note")).toHaveAttribute("role", "note");
    expect(within(card).getByTestId("match-note")).toHaveTextContent(/^Not on record: valued from the facts you gave$/);
    expect(within(card).getByTestId("rent-source")).toHaveTextContent("estimated from nearby rents");
    expect(within(card).queryByText("Demo data")).not.toBeInTheDocument();
  });

  it("shows no match note for an exact match", async () => {
    const base = makeResult();
    await lookUp({
      [LOOKUP]: {
        body: {
          data: makeResult({
            property: { ...base.property, matchCode: "exact" },
            valuation: { ...base.valuation, path: "record" },
          }),
        },
      },
    });
    await screen.findByTestId("valuation-result");
    expect(screen.queryByTestId("match-note")).not.toBeInTheDocument();
    // A home on record: the path is a plain line, not a note.
    expect(screen.getByTestId("valuation-path")).toHaveTextContent(/^Valued from its record$/);
    expect(screen.getByTestId("valuation-path")).not.toHaveAttribute("role");
  });

  it("makes empty comparables and price history look intentional", async () => {
    const base = makeResult();
    await lookUp({
      [LOOKUP]: {
        body: {
          data: makeResult({
            valuation: { ...base.valuation, comparablesValue: null },
            marketData: { ...base.marketData, comparables: [], priceHistory: [] },
          }),
        },
      },
    });
    const card = await screen.findByTestId("valuation-result");
    expect(within(card).queryByTestId("comparables-table")).not.toBeInTheDocument();
    expect(within(card).queryByTestId("sales-comparison")).not.toBeInTheDocument();
    expect(within(card).queryByTestId("comparables-value")).not.toBeInTheDocument();
    expect(within(card).getByText("No comparable sales nearby")).toBeInTheDocument();
    expect(within(card).getByTestId("price-history")).toHaveTextContent("No recorded sales");
  });

  it("shows unknown details as a dash, never a default type, and leaves out the optional details", async () => {
    const base = makeResult();
    const result = makeResult({
      details: { bedrooms: null, bathrooms: null, squareFeet: null, yearBuilt: null, imageUrl: null },
      marketData: { ...base.marketData, rentEstimate: null, county: null, marketTrend: null },
      property: { ...base.property, county: null },
      valuation: { ...base.valuation, pricePerSqFt: null },
    });
    await lookUp({ [LOOKUP]: { body: { data: result } } });
    const card = await screen.findByTestId("valuation-result");
    const c = within(card);
    expect(c.getByTestId("lot-size")).toHaveTextContent("—");
    expect(c.getByText("Property Type", { selector: "dt" }).closest("div")).toHaveTextContent(/^Property Type—$/);
    expect(c.getByText("Bedrooms", { selector: "dt" }).closest("div")).toHaveTextContent(/^Bedrooms—$/);
    expect(card).not.toHaveTextContent("Single Family");
    for (const label of ["Living Area", "Home Status", "Rent Estimate", "County", "Market Price Trend"]) {
      expect(c.queryByText(label, { selector: "dt" })).not.toBeInTheDocument();
    }
    expect(c.queryByTestId("price-per-sqft")).not.toBeInTheDocument();
    // No photo: the placeholder gradient.
    expect(c.getByTestId("photo-placeholder")).toBeInTheDocument();
    expect(c.queryByRole("img", { name: /Photo of/ })).not.toBeInTheDocument();
  });

  it("shows a home not on record with exactly the details given: dashes elsewhere, no 0, NaN or null", async () => {
    const base = makeResult();
    const result = makeResult({
      property: { ...base.property, matchCode: "not_on_record", isDemo: false, unit: null },
      valuation: { ...base.valuation, path: "type_and_size" },
      details: {
        bedrooms: null,
        bathrooms: null,
        squareFeet: 1400,
        livingArea: 1400,
        yearBuilt: null,
        propertyType: "Townhouse",
        lotSize: null,
        lotSizeSqFt: null,
        imageUrl: null,
        homeStatus: null,
      },
      marketData: { ...base.marketData, priceHistory: [] },
    });
    await lookUp({ [LOOKUP]: { body: { data: result } } });
    const card = await screen.findByTestId("valuation-result");
    const c = within(card);
    const stat = (label: string) => c.getByText(label, { selector: "dt" }).closest("div")!;
    expect(stat("Property Type")).toHaveTextContent(/^Property TypeTownhouse$/);
    expect(stat("Square Feet")).toHaveTextContent(/^Square Feet1,400$/);
    for (const label of ["Bedrooms", "Bathrooms", "Year Built", "Lot Size"]) {
      expect(stat(label)).toHaveTextContent(new RegExp(`^${label}—$`));
    }
    expect(c.queryByText("Home Status", { selector: "dt" })).not.toBeInTheDocument();
    expect(c.getByTestId("valuation-path")).toHaveTextContent("Not on record: valued from its type and size alone");
    const details = c.getByRole("heading", { name: "Property details" }).nextElementSibling!;
    expect(details.textContent).not.toMatch(/N\/A|NaN|null|undefined|Single Family/);
  });

  it("falls back to the placeholder when the photo fails to load", async () => {
    await lookUp({ [LOOKUP]: { body: { data: makeResult() } } });
    const card = await screen.findByTestId("valuation-result");
    const photo = within(card).getByRole("img", { name: /Photo of/ });
    expect(within(card).queryByTestId("photo-placeholder")).not.toBeInTheDocument();
    fireEvent.error(photo);
    expect(within(card).getByTestId("photo-placeholder")).toBeInTheDocument();
    expect(within(card).queryByRole("img", { name: /Photo of/ })).not.toBeInTheDocument();
  });
});

describe("the confidence badge", () => {
  it.each([
    [0.85, "High", "85%", "bg-green-100"],
    [0.81, "High", "81%", "bg-green-100"],
    [0.7, "Medium", "70%", "bg-yellow-100"],
    [0.58, "Low", "58%", "bg-red-100"],
  ] as const)("at confidence %d (level %s) shows %s and the level, coloured %s", (confidence, level, percent, colour) => {
    const base = makeResult();
    render(
      // The card links to its ZIP's market (issue 28): it lives inside the router.
      <MemoryRouter>
        <ValuationCard
          result={makeResult({ valuation: { ...base.valuation, confidence, confidenceLevel: level } })}
          onDownload={() => {}}
        />
      </MemoryRouter>,
    );
    const badge = screen.getByTestId("confidence-badge");
    expect(badge).toHaveTextContent(`${percent} ${level} Confidence`);
    expect(badge).toHaveClass(colour);
    for (const other of ["bg-green-100", "bg-yellow-100", "bg-red-100"].filter((c) => c !== colour)) {
      expect(badge).not.toHaveClass(other);
    }
  });
});

describe("a failed lookup", () => {
  it("on 402 says the balance and points to Billing", async () => {
    const { user, requests } = await lookUp({
      [LOOKUP]: {
        status: 402,
        body: errorBody("Insufficient credits: this lookup costs 1 credit and your balance is 0.", {
          code: "insufficient_credits",
          balance: 0,
          creditsRequired: 1,
          plan: "free",
          overageRateCents: 0,
          overageLimitCents: null,
        }),
      },
    });
    const toast = await findToast("Insufficient Credits");
    expect(toast).toHaveTextContent("Your balance is 0 credits and a valuation costs 1.");
    const link = within(toast).getByRole("link", { name: /Billing/ });
    expect(link).toHaveAttribute("href", "/billing");
    // The sample stays: nothing was valued.
    expect(screen.getByTestId("sample-result")).toBeInTheDocument();
    await waitFor(() => expect(profileReads(requests)).toBeGreaterThanOrEqual(2));
    await user.click(link);
    expect(await screen.findByRole("heading", { name: "Billing page" })).toBeInTheDocument();
  });

  it("on 402 without a balance shows the server's sentence", async () => {
    await lookUp({ [LOOKUP]: { status: 402, body: errorBody("Out of credits", { code: "insufficient_credits" }) } });
    const toast = await findToast("Insufficient Credits");
    expect(toast).toHaveTextContent("Out of credits");
    expect(within(toast).getByRole("link", { name: /Billing/ })).toHaveAttribute("href", "/billing");
  });

  it("on 404 shows a friendly empty state and the toast", async () => {
    const { requests } = await lookUp({
      [LOOKUP]: { status: 404, body: errorBody("Property not found", { code: "property_not_found" }) },
    });
    const empty = await screen.findByTestId("not-found-result");
    expect(within(empty).getByRole("heading", { name: "Property not found" })).toBeInTheDocument();
    // Announced: the outcome's heading takes focus.
    await waitFor(() => expect(within(empty).getByRole("heading", { name: "Property not found" })).toHaveFocus());
    expect(empty).toHaveTextContent("We have no market data for this address");
    expect(empty).toHaveTextContent("2114 Bigelow Ave N Unit 3, Seattle, WA 98109");
    const toast = await findToast("Lookup Failed");
    expect(toast).toHaveTextContent("Property not found");
    expect(screen.queryByTestId("sample-result")).not.toBeInTheDocument();
    expect(screen.queryByTestId("valuation-result")).not.toBeInTheDocument();
    // Only the start-up profile read: a not-found costs nothing.
    expect(profileReads(requests)).toBe(1);
  });

  it("on 404 area_not_covered says the address is outside the markets, names the place and that it was free", async () => {
    const { requests } = await lookUp({
      [LOOKUP]: { status: 404, body: errorBody("We have no sales near 33131", { code: "area_not_covered" }) },
    });
    const empty = await screen.findByTestId("area-not-covered-result");
    const heading = within(empty).getByRole("heading", { name: "Outside our markets" });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(within(empty).getByTestId("area-not-covered-message")).toHaveTextContent(/^We have no sales near 33131$/);
    expect(empty).toHaveTextContent("the markets loaded in this installation");
    expect(empty).toHaveTextContent("2114 Bigelow Ave N Unit 3, Seattle, WA 98109");
    expect(empty).toHaveTextContent("No credit was used.");
    // Not the generic not-found state, and no field is marked: nothing the caller can add changes the answer.
    expect(screen.queryByTestId("not-found-result")).not.toBeInTheDocument();
    expect(screen.getByLabelText("Property Type")).not.toHaveAttribute("aria-invalid", "true");
    const toast = await findToast("Lookup Failed");
    expect(toast).toHaveTextContent("We have no sales near 33131");
    // Only the start-up profile read: the answer cost nothing.
    expect(profileReads(requests)).toBe(1);
  });

  it("on 404 for a home not on record shows what to add and marks the optional details", async () => {
    const message =
      "No property on record at this address. To value it anyway, add its propertyType and squareFeet (optionally bedrooms, bathrooms, yearBuilt, lotSize).";
    const { requests } = await lookUp({
      [LOOKUP]: {
        status: 404,
        body: errorBody(message, {
          code: "property_not_found",
          field: "propertyType",
          fields: {
            propertyType: "Add the property type: the home is not on record",
            squareFeet: "Add the square feet: the home is not on record",
          },
        }),
      },
    });
    const empty = await screen.findByTestId("not-found-result");
    expect(within(empty).getByRole("heading", { name: "Not on record" })).toBeInTheDocument();
    expect(within(empty).getByTestId("not-found-message")).toHaveTextContent(
      "No property on record at this address. To value it anyway, add its property type and square feet (optionally bedrooms, bathrooms, year built, lot size).",
    );
    expect(empty).toHaveTextContent("2114 Bigelow Ave N Unit 3, Seattle, WA 98109");
    expect(empty).toHaveTextContent("No credit was used.");
    expect(screen.getByLabelText("Property Type")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByText("Add the property type: the home is not on record")).toHaveAttribute(
      "id",
      "lookup-property-type-error",
    );
    expect(screen.getByLabelText("Square Feet")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Property Type")).toHaveFocus();
    const toast = await findToast("Lookup Failed");
    expect(toast).toHaveTextContent("add its property type and square feet");
    expect(profileReads(requests)).toBe(1);
  });

  it("sends the optional details when given, and checks the square feet first", async () => {
    const { user, requests } = renderLookup({ [LOOKUP]: { body: { data: makeResult() } } });
    await fillForm(user, { address: "1 Nowhere Lane", city: "Seattle", state: "Washington", zip: "98103" });
    await user.click(screen.getByLabelText("Square Feet"));
    await user.paste("12");
    await user.click(submit());
    expect(await screen.findByText("Square feet must be a number from 100 to 100,000")).toBeInTheDocument();
    expect(requests.some((r) => r.url === "/api/property/lookup")).toBe(false);

    await user.clear(screen.getByLabelText("Square Feet"));
    await user.paste("1,400");
    await user.click(screen.getByLabelText("Property Type"));
    await user.click(await screen.findByRole("option", { name: "Townhouse" }));
    await user.click(submit());
    await screen.findByTestId("valuation-result");
    expect(requests.find((r) => r.url === "/api/property/lookup")?.body).toEqual({
      address: "1 Nowhere Lane",
      city: "Seattle",
      state: "WA",
      zip: "98103",
      propertyType: "Townhouse",
      squareFeet: 1400,
    });
  });

  it("on 400 puts the server's messages on the fields", async () => {
    await lookUp({
      [LOOKUP]: {
        status: 400,
        body: errorBody("ZIP code 98109 is not in WA", {
          field: "zip",
          fields: { zip: "ZIP code 98109 is not in WA", state: "Unknown state", other: "ignored" },
        }),
      },
    });
    const toast = await findToast("Lookup Failed");
    expect(toast).toHaveTextContent("ZIP code 98109 is not in WA");
    const zipError = screen.getAllByText("ZIP code 98109 is not in WA").find((el) => el.id === "lookup-zip-error");
    expect(zipError).toBeDefined();
    expect(screen.getByLabelText("ZIP Code")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByText("Unknown state")).toHaveAttribute("id", "lookup-state-error");
    expect(screen.getByLabelText("State")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Street Address")).not.toHaveAttribute("aria-invalid");
    expect(screen.queryByText("ignored")).not.toBeInTheDocument();
  });

  it("on 400 with only `field` uses the error sentence for that field", async () => {
    await lookUp({ [LOOKUP]: { status: 400, body: errorBody("Address is too vague", { field: "address" }) } });
    await findToast("Lookup Failed");
    expect(screen.getAllByText("Address is too vague").some((el) => el.id === "lookup-address-error")).toBe(true);
  });

  it("shows the server's sentence (503 while the engine warms up)", async () => {
    await lookUp({
      [LOOKUP]: { status: 503, body: errorBody("The valuation engine is starting; try again in a minute", { code: "unavailable" }) },
    });
    expect(await findToast("Lookup Failed")).toHaveTextContent("The valuation engine is starting; try again in a minute");
    expect(screen.getByTestId("sample-result")).toBeInTheDocument();
  });

  it("falls back to 'Failed to get property valuation'", async () => {
    await lookUp({ [LOOKUP]: { status: 500, body: "oops" } });
    expect(await findToast("Lookup Failed")).toHaveTextContent("Failed to get property valuation");
  });

  it("keeps the previous result when a later lookup fails", async () => {
    let fail = false;
    const { user } = await lookUp({
      [LOOKUP]: () => (fail ? { status: 500, body: errorBody("Internal error", { code: "internal" }) } : { body: { data: makeResult() } }),
    });
    await screen.findByTestId("valuation-result");
    fail = true;
    await user.click(submit());
    await findToast("Lookup Failed");
    expect(screen.getByTestId("valuation-result")).toBeInTheDocument();
  });
});

describe("Download Report", () => {
  function readBlob(blob: Blob): Promise<string> {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(reader.error);
      reader.readAsText(blob);
    });
  }

  /** Stubs the object-URL functions jsdom lacks and records what the temporary link would download. */
  function stubDownload() {
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return "blob:report-1";
    });
    const revokeObjectURL = vi.fn();
    // jsdom has no object URLs: add them for this test only.
    const saved = { createObjectURL: URL.createObjectURL, revokeObjectURL: URL.revokeObjectURL };
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    onTestFinished(() => {
      Object.assign(URL, saved);
    });
    const clicks: Array<{ href: string; download: string; attached: boolean }> = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push({ href: this.href, download: this.download, attached: document.body.contains(this) });
    });
    return { blobs, clicks, createObjectURL, revokeObjectURL };
  }

  /** The lookup answers JSON; the report answers CSV text, which mockFetch (JSON only) cannot send. */
  function csvRoute(csv: string | null, status = 200): Record<string, FakeRoute> {
    return { [REPORT]: () => ({ status, body: { __csv: csv } }) };
  }

  async function lookUpWithReport(report: Record<string, FakeRoute>) {
    const ctx = await lookUp({ [LOOKUP]: { body: { data: makeResult() } }, ...report });
    // Turn the JSON answer of the report route back into raw text.
    const json = ctx.fetchMock.getMockImplementation()!;
    ctx.fetchMock.mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await json(input, init);
      if (String(input) !== "/api/properties/download-report") return res;
      const body = (await res.clone().json()) as { __csv?: string | null };
      return new Response(body.__csv ?? "", { status: res.status, headers: { "Content-Type": "text/csv" } });
    });
    await screen.findByTestId("valuation-result");
    return ctx;
  }

  it("posts the report payload, saves the CSV as property-report-{timestamp}.csv and toasts", async () => {
    const dl = stubDownload();
    const csv = "Field,Value\nAddress,2114 BIGELOW AVE N UNIT 3\n";
    const { user, requests } = await lookUpWithReport(csvRoute(csv));
    const before = Date.now();
    await user.click(screen.getByRole("button", { name: "Download Report" }));

    await findToast("Report Downloaded");
    const after = Date.now();
    const call = requests.find((r) => r.method === "POST" && r.url === "/api/properties/download-report");
    const result = makeResult();
    expect(call?.body).toEqual({
      propertyData: {
        address: "2114 BIGELOW AVE N UNIT 3",
        city: "SEATTLE",
        state: "WA",
        zipCode: "98109",
        propertyType: "Townhouse",
        valuation: 987400,
        low: 910000,
        high: 1065000,
        confidence: 0.91,
        confidenceLevel: "High",
        rentEstimate: 3900,
        bedrooms: 3,
        bathrooms: 1.75,
        squareFeet: 1840,
        yearBuilt: 1926,
        comparables: result.marketData.comparables,
      },
    });
    expect(call?.headers.Authorization).toBe("Bearer tok-1");

    expect(dl.clicks).toHaveLength(1);
    const click = dl.clicks[0]!;
    expect(click.href).toBe("blob:report-1");
    expect(click.attached).toBe(true);
    const stamp = Number(/^property-report-(\d+)\.csv$/.exec(click.download)?.[1]);
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(after);
    expect(dl.blobs).toHaveLength(1);
    expect(dl.blobs[0]!.type).toMatch(/^text\/csv/);
    expect(await readBlob(dl.blobs[0]!)).toBe(csv);
    // The temporary link is gone and the URL released.
    expect(document.querySelector("a[download]")).toBeNull();
    await waitFor(() => expect(dl.revokeObjectURL).toHaveBeenCalledWith("blob:report-1"));
  });

  it("sends the server's confidence level, the one mapping every surface uses", async () => {
    stubDownload();
    const base = makeResult();
    const result = makeResult({ valuation: { ...base.valuation, confidence: 0.8, confidenceLevel: "Medium" } });
    const ctx = await lookUp({ [LOOKUP]: { body: { data: result } }, [REPORT]: { body: "x" } });
    await screen.findByTestId("valuation-result");
    await ctx.user.click(screen.getByRole("button", { name: "Download Report" }));
    await waitFor(() => expect(ctx.requests.some((r) => r.url === "/api/properties/download-report")).toBe(true));
    const body = ctx.requests.find((r) => r.url === "/api/properties/download-report")?.body as {
      propertyData: { confidenceLevel: string; confidence: number };
    };
    expect(body.propertyData.confidenceLevel).toBe("Medium");
    expect(body.propertyData.confidence).toBe(0.8);
  });

  it("toasts 'Download Failed' when the server fails, and saves nothing", async () => {
    const dl = stubDownload();
    const { user } = await lookUpWithReport(csvRoute(null, 500));
    await user.click(screen.getByRole("button", { name: "Download Report" }));
    const toast = await findToast("Download Failed");
    expect(toast).toHaveTextContent("Failed to download report. Please try again.");
    expect(dl.clicks).toHaveLength(0);
    expect(dl.createObjectURL).not.toHaveBeenCalled();
  });

  it("says 'No data in report' when the server refuses an empty report", async () => {
    const dl = stubDownload();
    const { user } = await lookUp({
      [LOOKUP]: { body: { data: makeResult() } },
      [REPORT]: { status: 400, body: errorBody("No data in report", { field: "propertyData" }) },
    });
    await screen.findByTestId("valuation-result");
    await user.click(screen.getByRole("button", { name: "Download Report" }));
    expect(await findToast("Download Failed")).toHaveTextContent("No data in report");
    expect(dl.clicks).toHaveLength(0);
  });

  it("says 'No data in report' for an empty answer", async () => {
    const dl = stubDownload();
    const { user } = await lookUpWithReport(csvRoute(""));
    await user.click(screen.getByRole("button", { name: "Download Report" }));
    const toast = await findToast("Download Failed");
    expect(toast).toHaveTextContent("No data in report");
    expect(dl.clicks).toHaveLength(0);
  });
});

describe("valuations that say how sure they are (issue 25)", () => {
  it("on 422 says the value is too uncertain to sell and that no credit was used", async () => {
    const message =
      "This home's value is too uncertain to quote: its likely range is more than three times wide (the high end over three times the low): the sales near it say too little about a home like it. Not charged.";
    const { requests } = await lookUp({
      [LOOKUP]: { status: 422, body: errorBody(message, { code: "valuation_too_uncertain" }) },
    });
    const state = await screen.findByTestId("too-uncertain-result");
    expect(within(state).getByRole("heading", { name: "Too uncertain to value" })).toBeInTheDocument();
    await waitFor(() => expect(within(state).getByRole("heading", { name: "Too uncertain to value" })).toHaveFocus());
    expect(within(state).getByTestId("too-uncertain-message")).toHaveTextContent(message);
    expect(state).toHaveTextContent("No credit was used.");
    expect(screen.queryByTestId("valuation-result")).not.toBeInTheDocument();
    expect(profileReads(requests)).toBe(1);
  });

  it("on 422 outside_records says the fact is outside the records, marks the field and charges nothing", async () => {
    const message =
      "Outside our records: the largest single-family home on record near 98103 has 5,240 sq ft, and 100,000 sq ft were given (the records hold 820 sq ft to 5,240 sq ft). A value this far past them would be a guess. Not charged.";
    const { requests } = await lookUp({
      [LOOKUP]: {
        status: 422,
        body: errorBody(message, {
          code: "outside_records",
          field: "squareFeet",
          fields: { squareFeet: "Outside our records: single-family homes near 98103 hold 820 sq ft to 5,240 sq ft" },
        }),
      },
    });
    const state = await screen.findByTestId("outside-records-result");
    expect(within(state).getByRole("heading", { name: "Outside our records" })).toBeInTheDocument();
    expect(within(state).getByTestId("too-uncertain-message")).toHaveTextContent(message);
    expect(state).toHaveTextContent("No credit was used.");
    expect(screen.queryByTestId("too-uncertain-result")).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText("Square Feet")).toHaveAttribute("aria-invalid", "true"));
    expect(profileReads(requests)).toBe(1);
  });

  it("shows the date valued as of and every warning of a stale market", () => {
    const warning =
      "Valued as of May 2008, the newest sale on record here: the records end there, and prices may have moved since.";
    const base = makeResult();
    renderWithProviders(
      <ValuationCard
        result={makeResult({ valuation: { ...base.valuation, valuationDate: "2008-05-21", warnings: [warning] } })}
      />,
    );
    expect(screen.getByTestId("valuation-date")).toHaveTextContent("as of May 21, 2008");
    expect(screen.getByTestId("valuation-warnings")).toHaveTextContent(warning);
  });

  it("has no warning box when there is nothing to warn of, and explains the confidence by its FSD", () => {
    renderWithProviders(<ValuationCard result={makeResult()} />);
    expect(screen.queryByTestId("valuation-warnings")).not.toBeInTheDocument();
    expect(screen.getByTestId("confidence-meaning")).toHaveTextContent(
      "about 2 in 3 homes like this sell within ±9% of our estimate (FSD 0.09); 71% sell within 10%",
    );
  });
});

describe("the value history and the ZIP's market (issue 28)", () => {
  /** 60 month-end values, oldest first, the last one today's estimate (the contract's valueHistory). */
  function valueHistory(estimate: number) {
    return Array.from({ length: 60 }, (_, i) => {
      const k = 2021 * 12 + 11 + i; // Dec 2021 .. Nov 2026
      return {
        month: `${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, "0")}`,
        value: i === 59 ? estimate : Math.round((estimate * (0.8 + (0.2 * i) / 59)) / 1000) * 1000,
      };
    });
  }

  it("draws the 60 monthly values beside the sales history, for no extra call", async () => {
    const base = makeResult();
    const result = { ...base, valueHistory: valueHistory(base.valuation.estimatedValue) } as PropertyValuation;
    const { requests } = await lookUp({ [LOOKUP]: { body: { data: result } } });
    const card = await screen.findByTestId("valuation-result");
    const history = within(card).getByTestId("value-history");
    expect(within(card).getByRole("heading", { name: "Value History" })).toBeInTheDocument();
    const rows = within(within(history).getByTestId("value-history-data")).getAllByRole("row");
    expect(rows).toHaveLength(61);
    expect(rows[1]).toHaveTextContent("Dec 2021");
    expect(rows[60]).toHaveTextContent(`Nov 2026${formatCurrency(base.valuation.estimatedValue)}`);
    expect(within(history).getByTestId("value-history-summary")).toHaveTextContent(
      `to ${formatCurrency(base.valuation.estimatedValue)} in Nov 2026 (+25.0%)`,
    );
    expect(requests.filter((r) => r.url.startsWith("/api/markets"))).toHaveLength(0);
  });

  it("links to the ZIP's market", async () => {
    const { user } = await lookUp({ [LOOKUP]: { body: { data: makeResult() } } });
    const card = await screen.findByTestId("valuation-result");
    const link = within(card).getByRole("link", { name: "See the 98109 market" });
    expect(link).toHaveAttribute("href", "/markets?zip=98109");
    // No value history from an older server: no chart, still the link.
    expect(within(card).queryByTestId("value-history")).not.toBeInTheDocument();
    await user.click(link);
    expect(screen.getByTestId("location")).toHaveTextContent("/markets?zip=98109");
  });
});
