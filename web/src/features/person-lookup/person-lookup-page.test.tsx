import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import type { FindPersonResponse, PersonResult } from "./person-types";
import { PersonLookupPage } from "./person-lookup-page";

vi.setConfig({ testTimeout: 20_000 });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const FIND = "POST /api/find-person";

function makePerson(overrides: Partial<PersonResult> = {}): PersonResult {
  return {
    id: "p-1",
    name: "Jane Q Public",
    alternate_names: ["Jane Public", "J Q Public"],
    age_range: "40-44",
    gender: "Female",
    found_at_address: {
      street_line_1: "2114 Bigelow Ave N",
      street_line_2: "",
      city: "Seattle",
      state_code: "WA",
      postal_code: "98109",
      lat_long: { latitude: 47.6389, longitude: -122.3501 },
    },
    current_addresses: [
      {
        street_line_1: "2114 Bigelow Ave N",
        street_line_2: "",
        city: "Seattle",
        state_code: "WA",
        postal_code: "98109",
        lat_long: { latitude: 47.6389, longitude: -122.3501 },
      },
    ],
    historical_addresses: [
      { street_line_1: "10 Pine St", street_line_2: "Apt 2", city: "Tacoma", state_code: "WA", postal_code: "98402", lat_long: null },
      { street_line_1: "77 Oak Rd", street_line_2: "", city: "Portland", state_code: "OR", postal_code: "97201", lat_long: null },
    ],
    phones: [
      { phone_number: "+12065550100", line_type: "mobile" },
      { phone_number: "2065550199", line_type: "landline" },
      { phone_number: "+442071838750", line_type: "non_fixed_voip" },
    ],
    emails: ["jane.public@example.com", "jqp@example.org"],
    associated_people: [
      { name: "John Public", firstname: "John", lastname: "Public", relation: "spouse" },
      { name: "", firstname: "Amy", lastname: "Public", relation: "relative" },
    ],
    match_score: 0.93,
    ambiguous: false,
    source: "directory",
    ...overrides,
  };
}

function hit(person: PersonResult = makePerson(), creditsRemaining = 95): FakeRoute {
  const body: FindPersonResponse = { data: person, meta: { requestId: "req-p-1", creditsUsed: 5, creditsRemaining } };
  return { body };
}

function renderPage(routes: Record<string, FakeRoute> = {}) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({ "GET /api/user/profile": { body: makeUser() }, ...routes });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/person-lookup" element={<PersonLookupPage />} />
      <Route path="/billing" element={<h1>Billing page</h1>} />
    </Routes>,
    { route: "/person-lookup" },
  );
  return { ...server, user };
}

type User = ReturnType<typeof userEvent.setup>;

async function fillForm(
  user: User,
  { name = "Jane Q Public", street = "", city = "Seattle", state = "wa", zip = "" } = {},
) {
  const fill = async (label: string, value: string) => {
    if (!value) return;
    await user.click(screen.getByLabelText(label));
    await user.paste(value);
  };
  await fill("Full Name", name);
  await fill("Street Address", street);
  await fill("City", city);
  if (state) await user.type(screen.getByLabelText("State"), state);
  await fill("Zip Code", zip);
}

const submit = () => screen.getByRole("button", { name: /Search Person \(5 Credits\)|Searching\.\.\./ });

async function search(routes: Record<string, FakeRoute>, values: Parameters<typeof fillForm>[1] = {}) {
  const ctx = renderPage(routes);
  await fillForm(ctx.user, values);
  await ctx.user.click(submit());
  return ctx;
}

const profileReads = (requests: { method: string; url: string }[]) =>
  requests.filter((r) => r.method === "GET" && r.url === "/api/user/profile").length;

async function findToast(title: string) {
  const el = await screen.findByText(title, { selector: "li *" });
  return el.closest("li")!;
}

describe("the form", () => {
  it("has the spec's fields, the button, the purpose with its default, and the compliance note", async () => {
    const { user } = renderPage();
    expect(screen.getByRole("heading", { level: 1, name: "Person Lookup" })).toBeInTheDocument();
    for (const label of ["Full Name", "Street Address", "City", "State", "Zip Code"]) {
      expect(screen.getByLabelText(label)).toBeInTheDocument();
    }
    expect(screen.getByLabelText("State")).toHaveAttribute("maxLength", "2");
    expect(submit()).toHaveTextContent("Search Person (5 Credits)");
    const purpose = screen.getByLabelText("Permissible purpose");
    expect(purpose).toHaveTextContent("Real estate transaction");
    await user.click(purpose);
    const options = await screen.findAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual([
      "Real estate transaction",
      "Identity verification",
      "Fraud prevention",
      "Contacting a property owner",
      "Service of legal process",
    ]);
    expect(screen.getByTestId("compliance-note")).toHaveTextContent(/logged .* for compliance/);
    expect(screen.getByTestId("compliance-note")).toHaveTextContent(/permissible purpose/);
  });

  it("has placeholders that read as examples, and empty values", () => {
    renderPage();
    const expected: Record<string, string> = {
      "Full Name": "e.g. Jennifer Northcott",
      "Street Address": "e.g. 5873 River Dr N",
      City: "e.g. Seattle",
      State: "e.g. WA",
      "Zip Code": "e.g. 98103",
    };
    // The example address is generated (make examples); the placeholders follow it.
    expect(EXAMPLE_REQUEST).toEqual({ address: "5873 River Dr N", city: "Seattle", state: "WA", zip: "98103" });
    for (const [label, placeholder] of Object.entries(expected)) {
      const input = screen.getByLabelText(label);
      expect(input).toHaveAttribute("placeholder", placeholder);
      expect(input).toHaveValue("");
      expect(input).toHaveClass("placeholder:text-muted-foreground");
    }
    // The state field upper-cases what is typed, not its placeholder ("E.G. WA").
    expect(screen.getByLabelText("State")).toHaveClass("uppercase", "placeholder:normal-case");
  });

  it("links the compliance note to the lookup audit tab", async () => {
    const { user } = renderPage({ "GET /api/person/audit?limit=20": { body: { data: [], pagination: { limit: 20, hasMore: false, nextBefore: null } } } });
    const link = within(screen.getByTestId("compliance-note")).getByRole("link", { name: "lookup audit" });
    expect(link).toHaveAttribute("href", "/person-lookup?tab=audit");
    await user.click(link);
    expect(await screen.findByRole("tab", { name: "Lookup audit", selected: true })).toBeInTheDocument();
    expect(await screen.findByTestId("person-audit")).toBeInTheDocument();
  });

  it("offers a demo resident only when the server names one (development), and fills the form with it", async () => {
    const { user } = renderPage({
      "GET /api/person/demo-resident": {
        body: { name: "Jennifer Northcott", street_line_1: "5873 River Dr N", city: "Seattle", state_code: "WA", postal_code: "98103" },
      },
      [FIND]: hit(),
    });
    await user.click(await screen.findByRole("button", { name: "Try a demo resident" }));
    expect(screen.getByLabelText("Full Name")).toHaveValue("Jennifer Northcott");
    expect(screen.getByLabelText("Street Address")).toHaveValue("5873 River Dr N");
    expect(screen.getByLabelText("City")).toHaveValue("Seattle");
    expect(screen.getByLabelText("State")).toHaveValue("WA");
    expect(screen.getByLabelText("Zip Code")).toHaveValue("98103");
    expect(screen.getByLabelText("Permissible purpose")).toHaveTextContent("Real estate transaction");
  });

  it("hides the demo button when the server answers 404 (production)", async () => {
    const { requests } = renderPage({
      "GET /api/person/demo-resident": { status: 404, body: errorBody("Not found", { code: "not_found" }) },
    });
    await waitFor(() => expect(requests.some((r) => r.url === "/api/person/demo-resident")).toBe(true));
    // Let the answer land.
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByRole("button", { name: "Try a demo resident" })).not.toBeInTheDocument();
  });

  it("shows the spec's validation texts and sends nothing", async () => {
    const { user, requests } = renderPage();
    await user.click(submit());
    expect(await screen.findByText("Name is required")).toBeInTheDocument();
    expect(screen.getByText("City is required")).toBeInTheDocument();
    expect(screen.getByText("State must be 2 letters")).toBeInTheDocument();
    expect(screen.getByLabelText("Full Name")).toHaveAttribute("aria-invalid", "true");

    await fillForm(user, { state: "W" });
    await user.click(submit());
    expect(await screen.findByText("State must be 2 letters")).toBeInTheDocument();
    expect(screen.queryByText("Name is required")).not.toBeInTheDocument();
    expect(screen.queryByText("City is required")).not.toBeInTheDocument();

    await user.clear(screen.getByLabelText("State"));
    await user.type(screen.getByLabelText("State"), "1a");
    await user.click(submit());
    expect(await screen.findByText("State must be 2 letters")).toBeInTheDocument();
    expect(requests.some((r) => r.url === "/api/find-person")).toBe(false);
  });

  it("limits the name to 200 and the city to 100 characters", async () => {
    const { user, requests } = renderPage();
    await fillForm(user, { name: "a".repeat(201), city: "b".repeat(101) });
    await user.click(submit());
    expect(await screen.findByText("Name must be at most 200 characters")).toBeInTheDocument();
    expect(screen.getByText("City must be at most 100 characters")).toBeInTheDocument();
    expect(requests.some((r) => r.url === "/api/find-person")).toBe(false);
  });

  it("upper-cases the state as it is typed and keeps two letters", async () => {
    const { user } = renderPage();
    const state = screen.getByLabelText("State");
    await user.type(state, "w");
    expect(state).toHaveValue("W");
    await user.type(state, "ax");
    expect(state).toHaveValue("WA");
  });
});

describe("a search", () => {
  it("sends the snake_case body with the purpose, leaving out blank optional fields", async () => {
    const { requests } = await search({ [FIND]: hit() });
    await screen.findByTestId("person-result");
    expect(requests.find((r) => r.url === "/api/find-person")?.body).toEqual({
      name: "Jane Q Public",
      city: "Seattle",
      state_code: "WA",
      purpose: "real_estate_transaction",
    });
  });

  it("sends the street, zip and chosen purpose, trimmed", async () => {
    const ctx = renderPage({ [FIND]: hit() });
    await fillForm(ctx.user, { name: " Jane Q Public ", street: " 2114 Bigelow Ave N ", city: " Seattle ", zip: " 98109 " });
    await ctx.user.click(screen.getByLabelText("Permissible purpose"));
    await ctx.user.click(await screen.findByRole("option", { name: "Fraud prevention" }));
    await ctx.user.click(submit());
    await screen.findByTestId("person-result");
    expect(ctx.requests.find((r) => r.url === "/api/find-person")?.body).toEqual({
      name: "Jane Q Public",
      street_line_1: "2114 Bigelow Ave N",
      city: "Seattle",
      state_code: "WA",
      postal_code: "98109",
      purpose: "fraud_prevention",
    });
  });

  it("reads 'Searching...' while the request is open", async () => {
    let release: (r: { body: FindPersonResponse }) => void = () => {};
    const held = new Promise<{ body: FindPersonResponse }>((resolve) => (release = resolve));
    const { requests, user } = await search({ [FIND]: () => held });
    // Unavailable while the search runs, but not disabled: focus stays on it, and pressing it again sends nothing.
    const searching = await screen.findByRole("button", { name: "Searching..." });
    expect(searching).toHaveAttribute("aria-disabled", "true");
    expect(searching).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(requests.filter((r) => r.url === "/api/find-person")).toHaveLength(1);
    expect(screen.getByTestId("person-pending")).toHaveTextContent("Searching for Jane Q Public, Seattle, WA");
    release({ body: { data: makePerson(), meta: { requestId: "r", creditsUsed: 5, creditsRemaining: 95 } } });
    expect(await screen.findByRole("button", { name: "Search Person (5 Credits)" })).toBeEnabled();
    // The result is announced: its heading takes focus.
    await waitFor(() => expect(screen.getByRole("heading", { level: 2, name: "Person found" })).toHaveFocus());
  });

  it("renders every card of a full result, toasts 'Person Found' and refreshes the balance", async () => {
    const { requests, user } = renderPage({ [FIND]: hit() });
    await waitFor(() => expect(profileReads(requests)).toBe(1));
    await fillForm(user);
    await user.click(submit());
    await screen.findByTestId("person-result");

    const info = within(screen.getByTestId("person-info"));
    expect(info.getByRole("heading", { name: "Person Information" })).toBeInTheDocument();
    expect(info.getByTestId("person-name")).toHaveTextContent("Jane Q Public");
    expect(info.getByText("Jane Public, J Q Public")).toBeInTheDocument();
    expect(info.getByText("40-44")).toBeInTheDocument();
    expect(info.getByText("Female")).toBeInTheDocument();
    expect(info.getByTestId("match-score")).toHaveTextContent("93%");
    expect(info.queryByTestId("ambiguous-note")).not.toBeInTheDocument();
    expect(info.queryByText("Demo data")).not.toBeInTheDocument();

    const current = within(screen.getByTestId("current-address"));
    expect(current.getByRole("heading", { name: "Current Address" })).toBeInTheDocument();
    expect(current.getByText("2114 Bigelow Ave N")).toBeInTheDocument();
    expect(current.getByText("Seattle, WA 98109")).toBeInTheDocument();
    expect(current.getByTestId("lat-long")).toHaveTextContent("Latitude, longitude: 47.63890, -122.35010");
    // The matched address is the current one: not repeated.
    expect(current.queryByTestId("found-at")).not.toBeInTheDocument();

    const recent = screen.getByTestId("recent-addresses");
    expect(within(recent).getByRole("heading", { name: "Recent Addresses" })).toBeInTheDocument();
    const items = within(within(recent).getByRole("list")).getAllByRole("listitem");
    expect(recent.querySelector("ol")).not.toBeNull();
    expect(items.map((li) => li.textContent)).toEqual(["110 Pine St, Apt 2Tacoma, WA 98402", "277 Oak RdPortland, OR 97201"]);

    const phones = within(screen.getByTestId("phone-numbers"));
    expect(phones.getByRole("heading", { name: "Phone Numbers" })).toBeInTheDocument();
    expect(phones.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "(206) 555-0100Mobile",
      "(206) 555-0199Landline",
      "+442071838750Non fixed voip",
    ]);

    const emails = within(screen.getByTestId("email-addresses"));
    expect(emails.getByRole("heading", { name: "Email Addresses" })).toBeInTheDocument();
    expect(emails.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "jane.public@example.com",
      "jqp@example.org",
    ]);

    const people = within(screen.getByTestId("associated-people"));
    expect(people.getByRole("heading", { name: "Associated People" })).toBeInTheDocument();
    expect(people.getAllByRole("listitem").map((li) => li.textContent)).toEqual(["John PublicSpouse", "Amy PublicRelative"]);

    expect(screen.getByTestId("person-meta")).toHaveTextContent("5 credits used, 95 left");
    expect(await findToast("Person Found")).toHaveTextContent("Jane Q Public");
    // The hit used 5 credits: the header's balance is re-read.
    await waitFor(() => expect(profileReads(requests)).toBe(2));
  });

  it("says 'None on record' for empty lists and shows where the match was made", async () => {
    const person = makePerson({
      alternate_names: [],
      current_addresses: [],
      historical_addresses: [],
      phones: [],
      emails: [],
      associated_people: [],
      age_range: "",
    });
    await search({ [FIND]: hit(person) });
    await screen.findByTestId("person-result");
    for (const id of ["current-address", "recent-addresses", "phone-numbers", "email-addresses", "associated-people"]) {
      expect(within(screen.getByTestId(id)).getByText("None on record")).toBeInTheDocument();
    }
    const info = within(screen.getByTestId("person-info"));
    expect(info.getByText("None on record")).toBeInTheDocument();
    expect(info.getByText("Not on record")).toBeInTheDocument();
    expect(screen.getByTestId("found-at")).toHaveTextContent("Matched at 2114 Bigelow Ave N, Seattle, WA 98109");
  });

  it("says honestly when several people match, and marks demo data", async () => {
    await search({ [FIND]: hit(makePerson({ ambiguous: true, match_score: 0.61, source: "demo" })) });
    await screen.findByTestId("person-result");
    expect(screen.getByTestId("ambiguous-note")).toHaveTextContent("Several people match; this is the closest");
    expect(screen.getByTestId("match-score")).toHaveTextContent("61%");
    expect(screen.getByTestId("demo-badge")).toHaveTextContent("Demo data");
  });
});

describe("failures", () => {
  it("on 400 for an initial alone shows the server's sentence under the name field", async () => {
    const message = "Enter the full first name (two letters or more), not an initial, such as Jennifer Northcott";
    const { requests } = await search(
      { [FIND]: { status: 400, body: errorBody(message, { field: "name", fields: { name: message } }) } },
      { name: "J Northcott" },
    );
    const name = screen.getByLabelText("Full Name");
    await waitFor(() => expect(name).toHaveAttribute("aria-invalid", "true"));
    expect(name).toHaveAccessibleDescription(message);
    expect(name).toHaveFocus();
    expect(requests.find((r) => r.url === "/api/find-person")?.body).toMatchObject({ name: "J Northcott" });
  });

  it("on 429 shows the server's sentence (when to retry) in the result area", async () => {
    await search({
      [FIND]: {
        status: 429,
        headers: { "Retry-After": "42", "x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "42" },
        body: errorBody("Too many lookups without a match. Try again in 42 seconds.", { code: "rate_limited", retryAfter: 42 }),
      },
    });
    const area = await screen.findByTestId("person-rate-limited");
    expect(within(area).getByRole("alert")).toHaveTextContent("Too many lookups without a match. Try again in 42 seconds.");
    expect(area).toHaveTextContent("No credits were used.");
    expect(screen.queryByTestId("person-result")).not.toBeInTheDocument();
  });

  it("on 429 without a sentence says when to retry from retryAfter", async () => {
    await search({ [FIND]: { status: 429, raw: JSON.stringify({ error: "", code: "rate_limited", requestId: "r", retryAfter: 7 }) } });
    expect(await screen.findByTestId("person-rate-limited")).toHaveTextContent("Too many lookups. Try again in 7 seconds.");
  });

  it("on 404 shows a not-found state that says no credits were used, and re-reads no balance", async () => {
    const { requests } = await search({
      [FIND]: { status: 404, body: errorBody("No person found for this name and address", { code: "person_not_found" }) },
    });
    const empty = await screen.findByTestId("person-not-found");
    expect(within(empty).getByRole("heading", { name: "No person found" })).toBeInTheDocument();
    // Announced: the outcome's heading takes focus.
    await waitFor(() => expect(within(empty).getByRole("heading", { name: "No person found" })).toHaveFocus());
    expect(empty).toHaveTextContent("No person found for this name and address");
    expect(empty).toHaveTextContent("Jane Q Public, Seattle, WA");
    expect(empty).toHaveTextContent("No credits were used.");
    expect(screen.queryByTestId("person-result")).not.toBeInTheDocument();
    expect(await findToast("No Match")).toHaveTextContent("No credits were used");
    expect(profileReads(requests)).toBe(1);
  });

  it("on 402 says the balance, points to Billing and refreshes the balance", async () => {
    const { requests } = await search({
      [FIND]: {
        status: 402,
        body: errorBody("Insufficient credits", { code: "insufficient_credits", balance: 3, creditsRequired: 5 }),
      },
    });
    const toast = await findToast("Insufficient Credits");
    expect(toast).toHaveTextContent("Your balance is 3 credits and a person lookup costs 5.");
    expect(within(toast).getByRole("link", { name: /Billing/ })).toHaveAttribute("href", "/billing");
    expect(screen.queryByTestId("person-result")).not.toBeInTheDocument();
    await waitFor(() => expect(profileReads(requests)).toBeGreaterThanOrEqual(2));
  });

  it("on 402 without a balance shows the server's sentence", async () => {
    await search({ [FIND]: { status: 402, body: errorBody("Out of credits", { code: "insufficient_credits" }) } });
    expect(await findToast("Insufficient Credits")).toHaveTextContent("Out of credits");
  });

  it("on 500 shows the server's text, else 'Failed to find person'", async () => {
    await search({ [FIND]: { status: 500, body: errorBody("Provider unavailable", { code: "internal" }) } });
    expect(await findToast("Search Failed")).toHaveTextContent("Provider unavailable");
  });

  it("on 500 without a JSON body falls back to 'Failed to find person'", async () => {
    await search({ [FIND]: { status: 500, body: "oops" } });
    expect(await findToast("Search Failed")).toHaveTextContent("Failed to find person");
  });

  it("on 400 puts the server's messages on the fields", async () => {
    await search({
      [FIND]: {
        status: 400,
        body: errorBody("Unknown state", { field: "state_code", fields: { state_code: "Unknown state", other: "x" } }),
      },
      // "ZZ" passes the form's own check; the server knows it is no state.
    }, { state: "zz" });
    expect(await findToast("Search Failed")).toHaveTextContent("Unknown state");
    expect(screen.getByLabelText("State")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getAllByText("Unknown state").length).toBeGreaterThanOrEqual(2);
  });
});
