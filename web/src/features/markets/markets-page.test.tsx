import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { MarketsPage } from "./markets-page";
import { envelope, makeMarket, makeThinMarket } from "./market-fixture";
import { queryFromParams } from "./api/markets-api";
import { indexLines, marketsCsv } from "./markets-helpers";

// jsdom lays nothing out, so ResponsiveContainer would measure 0 x 0 and draw nothing: give the charts a size.
vi.mock("recharts", async (original) => (await import("@/test/recharts")).sized(await original<object>()));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const ONE = "GET /api/markets?zip=98103";
const TWO = "GET /api/markets/compare?zip=98103&zip=98115";

function renderMarkets(routes: Record<string, FakeRoute>, route = "/markets") {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({ "GET /api/user/profile": { body: makeUser() }, ...routes });
  const user = userEvent.setup();
  const view = renderWithProviders(<MarketsPage />, { route });
  const calls = (key: string) => server.requests.filter((r) => `${r.method} ${r.url}` === key);
  return { ...server, ...view, user, calls };
}

/** Opens the screen at a URL (a shared link) and presses Search, as a search from a link is only run by the button. */
async function searchFrom(routes: Record<string, FakeRoute>, route: string) {
  const ctx = renderMarkets(routes, route);
  await ctx.user.click(screen.getByRole("button", { name: /^Search \(\d+ Credits?\)$/ }));
  return ctx;
}

function location() {
  return screen.getByTestId("location").textContent ?? "";
}

/** jsdom's Blob has no text(): read it the older way. */
function readBlob(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

function captureDownloads() {
  const blobs: Blob[] = [];
  const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
  URL.createObjectURL = vi.fn((b: Blob) => {
    blobs.push(b);
    return "blob:markets";
  });
  URL.revokeObjectURL = vi.fn();
  onTestFinished(() => {
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
  });
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
  return { blobs, click };
}

describe("the Markets screen", () => {
  it("asks nothing until a ZIP is searched, and says what a search costs", async () => {
    const { calls, user } = renderMarkets({ [ONE]: { body: envelope(makeMarket()) } });
    expect(screen.getByRole("heading", { level: 1, name: "Markets" })).toBeInTheDocument();
    expect(screen.getByTestId("markets-intro")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Search (1 Credit)" })).toBeInTheDocument();
    expect(calls(ONE)).toHaveLength(0);

    await user.type(screen.getByLabelText("ZIP Code"), "98103");
    await user.click(screen.getByRole("button", { name: "Search (1 Credit)" }));
    expect(await screen.findByTestId("market-title")).toHaveTextContent("98103 · Seattle, WA");
    expect(location()).toBe("/markets?zip=98103");
    expect(calls(ONE)).toHaveLength(1);
    // The answer is announced: its heading takes focus.
    await waitFor(() => expect(screen.getByTestId("market-title")).toHaveFocus());
  });

  it("shows examples under the ZIP fields, never in them: the fields start empty (issue 33)", () => {
    renderMarkets({});
    const examples: [label: string, example: string][] = [
      ["ZIP Code", "e.g. 98103"],
      ["Compare ZIP Code", "e.g. 98115"],
    ];
    for (const [label, example] of examples) {
      const input = screen.getByRole("textbox", { name: label });
      expect(input).toHaveValue("");
      expect(input).not.toHaveAttribute("placeholder");
      expect(input).toHaveAccessibleDescription(example);
      expect(screen.getByText(example)).toHaveClass("text-muted-foreground");
    }
  });

  it("says there is no monthly median to draw when no month has 5 records, instead of empty axes", async () => {
    const base = makeMarket();
    const history = base.history.map((h) => ({ ...h, medianSalePrice: null, medianRent: null }));
    await searchFrom({ [ONE]: { body: envelope(makeMarket({ history })) } }, "/markets?zip=98103");
    expect(await screen.findByTestId("median-prices-none")).toHaveTextContent("no monthly median to draw");
    expect(screen.getByTestId("median-prices-drawing")).toHaveClass("hidden");
  });

  it("draws the headline figures, charts and tables from the contract's data", async () => {
    await searchFrom({ [ONE]: { body: envelope(makeMarket()) } }, "/markets?zip=98103");
    expect(await screen.findByTestId("stat-median-sale-value")).toHaveTextContent("$890,000");
    expect(screen.getByTestId("stat-median-sale-note")).toHaveTextContent("Mean $934,512; $612 per sq ft");
    expect(screen.getByTestId("stat-sales-count-value")).toHaveTextContent("143");
    expect(screen.getByTestId("stat-median-rent-value")).toHaveTextContent("$3,100/mo");
    expect(screen.getByTestId("stat-median-value-value")).toHaveTextContent("$905,000");
    expect(screen.getByTestId("stat-median-value-note")).toHaveTextContent("Middle half $760,000 to $1,120,000; 812 homes on record");
    expect(screen.getByTestId("stat-index-change-value")).toHaveTextContent("+5.1%");
    expect(screen.getByTestId("market-as-of")).toHaveTextContent("Records up to Nov 20, 2026");

    expect(screen.getByTestId("price-index-chart")).toBeInTheDocument();
    expect(within(screen.getByTestId("price-index-data")).getAllByRole("row")).toHaveLength(25);
    // A month with fewer than 5 sales has no median: said so, never a number.
    expect(within(screen.getByTestId("median-prices-data")).getAllByText("Fewer than 5 sales").length).toBeGreaterThan(0);
    expect(screen.queryByTestId("median-prices-none")).not.toBeInTheDocument();

    const byType = screen.getByRole("table", { name: "98103 by property type" });
    const condo = within(byType).getByRole("row", { name: /Condo/ });
    expect(within(condo).getAllByRole("cell").map((c) => c.textContent)).toEqual(["40", "$560,000", "$701", "$410,000–$990,000", "—", "—", "—"]);
    // Rents by bedrooms: the median rent and the rent per square foot, with cents.
    const twoBeds = within(screen.getByRole("table", { name: "98103 by bedrooms" })).getByRole("row", { name: /^2 bedrooms/ });
    expect(within(twoBeds).getAllByRole("cell").map((c) => c.textContent).slice(4)).toEqual(["22", "$2,700", "$2.90/sq ft"]);
    expect(screen.getByTestId("stat-median-rent-note")).toHaveTextContent("61 rents in the last 12 months; $2.41/sq ft");
    // Real records: no demo badge, and monthly medians of the month's own records.
    expect(screen.queryByTestId("market-demo-badge")).not.toBeInTheDocument();
    expect(screen.queryByTestId("median-prices-window")).not.toBeInTheDocument();
    expect(screen.queryByTestId("market-as-of-older")).not.toBeInTheDocument();
    expect(within(screen.getByRole("table", { name: "98103 by bedrooms" })).getByRole("rowheader", { name: "5+ bedrooms" })).toBeInTheDocument();
    const omitted = screen.getByTestId("omitted-98103");
    expect(omitted).toHaveTextContent("Manufactured (sales): Fewer than 5 sales in the last 12 months.");
    expect(omitted).toHaveTextContent("Condo (rents): Fewer than 5 rents in the last 12 months.");
    // No one left out is given a row of figures.
    expect(within(byType).queryByRole("row", { name: /Manufactured/ })).not.toBeInTheDocument();
  });

  it("labels demo data and a thin ZIP's rolling 3-month medians", async () => {
    const thin = makeMarket({ isDemo: true, historyWindow: { sales: 3, rents: 1 } });
    await searchFrom({ [ONE]: { body: envelope(thin) } }, "/markets?zip=98103");
    expect(await screen.findByTestId("market-demo-badge")).toHaveTextContent(/^Demo data$/);
    expect(screen.getByTestId("median-prices-window")).toHaveTextContent("3-month rolling median of sales: this ZIP has few sales a month");
    const heads = within(screen.getByTestId("median-prices-data")).getAllByRole("columnheader").map((c) => c.textContent);
    expect(heads).toEqual(["Month", "Sales", "Median sale price (3-month rolling)", "Rents", "Median rent (monthly)"]);
  });

  it("shows one as-of date for ZIPs compared, the newest, and names a ZIP whose records end earlier", async () => {
    const older = makeThinMarket({ asOf: "2026-09-30", isDemo: true });
    await searchFrom(
      { [TWO]: { body: envelope({ markets: [makeMarket({ isDemo: true }), older], notFound: [] }, 2) } },
      "/markets?zip=98103&compare=98115",
    );
    expect(await screen.findByTestId("market-as-of")).toHaveTextContent(/^Records up to Nov 20, 2026 · /);
    expect(screen.getByTestId("market-as-of-older")).toHaveTextContent("98115's newest record is Sep 30, 2026: its 12 months and history end then.");
    expect(screen.getByTestId("market-demo-badge")).toHaveTextContent(/^Demo data$/);
    const table = screen.getByRole("table", { name: "ZIP codes compared" });
    const rent = within(table).getByRole("row", { name: /Rent per sq ft/ });
    expect(within(rent).getAllByRole("cell").map((c) => c.textContent)).toEqual(["$2.41/sq ft", "—"]);
  });

  it("shows a thin block's reason in place of its figures", async () => {
    const thin = makeMarket({ sales: { count: 3, omitted: "Fewer than 5 sales in the last 12 months." } });
    await searchFrom({ [ONE]: { body: envelope(thin) } }, "/markets?zip=98103");
    expect(await screen.findByTestId("stat-median-sale-value")).toHaveTextContent("—");
    expect(screen.getByTestId("stat-median-sale-note")).toHaveTextContent("Fewer than 5 sales in the last 12 months.");
    expect(screen.getByTestId("stat-sales-count-value")).toHaveTextContent("3");
    expect(screen.getByTestId("omitted-98103")).toHaveTextContent("All sales: Fewer than 5 sales in the last 12 months.");
  });

  it("says when the market has no price index yet, and leaves a null per-sq-ft figure out", async () => {
    const base = makeMarket();
    const noIndex = makeMarket({
      priceIndex: [],
      sales: { ...(base.sales as Exclude<typeof base.sales, { omitted: string }>), medianPricePerSqft: null },
    });
    await searchFrom({ [ONE]: { body: envelope(noIndex) } }, "/markets?zip=98103");
    expect(await screen.findByTestId("price-index-none")).toHaveTextContent("too few sales");
    expect(screen.getByTestId("stat-index-change-value")).toHaveTextContent("—");
    expect(screen.getByTestId("stat-median-sale-note")).toHaveTextContent(/^Mean \$934,512$/);
  });

  it("sends the property type and history asked, and keeps them in the URL", async () => {
    const key = "GET /api/markets?zip=98103&historyMonths=60&propertyType=Condo";
    const { calls, user } = renderMarkets({ [key]: { body: envelope(makeMarket({ propertyType: "Condo" }, 60)) } });
    await user.type(screen.getByLabelText("ZIP Code"), "98103");
    await user.selectOptions(screen.getByLabelText("Property Type"), "Condo");
    await user.selectOptions(screen.getByLabelText("History"), "60");
    await user.click(screen.getByRole("button", { name: "Search (1 Credit)" }));
    expect(await screen.findByTestId("market-as-of")).toHaveTextContent("Condo only · 60 months of history");
    expect(calls(key)).toHaveLength(1);
    expect(location()).toBe("/markets?zip=98103&propertyType=Condo&historyMonths=60");
  });

  it("checks the ZIP before asking, and names the field", async () => {
    const { fetchMock, user } = renderMarkets({});
    const before = fetchMock.mock.calls.length;
    await user.type(screen.getByLabelText("ZIP Code"), "9810");
    await user.click(screen.getByRole("button", { name: "Search (1 Credit)" }));
    expect(await screen.findByText("ZIP code must be 5 digits")).toBeInTheDocument();
    expect(screen.getByLabelText("ZIP Code")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("ZIP Code")).toHaveFocus();
    expect(fetchMock.mock.calls.slice(before).some(([u]) => String(u).startsWith("/api/markets"))).toBe(false);
  });

  it("puts a 400's message on the field it names", async () => {
    const key = "GET /api/markets?zip=98103&historyMonths=120";
    await searchFrom(
      { [key]: { status: 400, body: errorBody("historyMonths must be between 1 and 120", { field: "historyMonths" }) } },
      "/markets?zip=98103&historyMonths=120",
    );
    expect(await screen.findByText("historyMonths must be between 1 and 120", { selector: "p[role=alert]" })).toBeInTheDocument();
    expect(screen.getByLabelText("History")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByTestId("markets-error")).toBeInTheDocument();
  });

  it("says a ZIP with no records is not found, and free", async () => {
    const key = "GET /api/markets?zip=12345";
    await searchFrom(
      { [key]: { status: 404, body: errorBody("No records for ZIP 12345.", { code: "market_not_found", field: "zip" }) } },
      "/markets?zip=12345",
    );
    const card = await screen.findByTestId("markets-not-found");
    expect(within(card).getByRole("heading", { name: "No records for ZIP 12345." })).toBeInTheDocument();
    expect(card).toHaveTextContent("No credit was used");
  });

  it("handles running out of credits as the lookup does: a toast with the balance and a way to Billing", async () => {
    await searchFrom(
      { [ONE]: { status: 402, body: errorBody("Insufficient credits", { code: "insufficient_credits", balance: 0, creditsRequired: 1 }) } },
      "/markets?zip=98103",
    );
    const toastText = await screen.findByTestId("insufficient-credits");
    expect(toastText).toHaveTextContent("Your balance is 0 credits and this search costs 1.");
    expect(within(toastText).getByRole("link", { name: /Add credits/ })).toHaveAttribute("href", "/billing");
    expect(screen.getByTestId("markets-no-credits")).toBeInTheDocument();
  });

  it("compares ZIPs side by side: adds and removes them, prices the search, keeps them in the URL", async () => {
    const three = "GET /api/markets/compare?zip=98103&zip=98115&zip=98107";
    const { calls, user } = renderMarkets({
      [TWO]: { body: envelope({ markets: [makeThinMarket(), makeMarket()], notFound: [] }, 2) },
      [three]: { body: envelope({ markets: [makeMarket(), makeThinMarket()], notFound: ["98107"] }, 2) },
    });
    await user.type(screen.getByLabelText("ZIP Code"), "98103");
    const compare = screen.getByLabelText("Compare ZIP Code");
    await user.type(compare, "981");
    await user.click(screen.getByRole("button", { name: "Add ZIP" }));
    expect(screen.getByText("Compare ZIP code must be 5 digits")).toBeInTheDocument();
    await user.clear(compare);
    await user.type(compare, "98115{Enter}");
    await user.type(compare, "98107");
    await user.click(screen.getByRole("button", { name: "Add ZIP" }));
    await user.type(compare, "98103");
    await user.click(screen.getByRole("button", { name: "Add ZIP" }));
    expect(screen.getByText("98103 is already in the comparison")).toBeInTheDocument();
    await user.clear(compare);
    expect(screen.getByRole("list", { name: "ZIP codes compared" })).toHaveTextContent("98115");
    expect(screen.getByRole("button", { name: "Search (3 Credits)" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Search (3 Credits)" }));
    await screen.findByTestId("compare-table");
    expect(location()).toBe("/markets?zip=98103&compare=98115%2C98107");
    expect(calls(three)).toHaveLength(1);
    expect(screen.getByTestId("markets-not-found-list")).toHaveTextContent("No records for ZIP 98107.");

    await user.click(screen.getByRole("button", { name: "Remove 98107" }));
    expect(screen.getByRole("button", { name: "Search (2 Credits)" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Search (2 Credits)" }));
    const table = await screen.findByRole("table", { name: "ZIP codes compared" });
    // The columns follow the order asked, whatever the order answered.
    expect(within(table).getAllByRole("columnheader").map((c) => c.textContent)).toEqual(["Figure", "98103", "98115"]);
    const rent = within(table).getByRole("row", { name: /Median rent/ });
    expect(within(rent).getAllByRole("cell").map((c) => c.textContent)).toEqual(["$3,100/mo", "Fewer than 5 rents in the last 12 months."]);
    const value = within(table).getByRole("row", { name: /Median home value/ });
    expect(within(value).getAllByRole("cell").map((c) => c.textContent)).toEqual(["$905,000", "Fewer than 5 homes on record."]);
    // Two ZIPs of one metro follow its one index: drawn once for both, named after both, and said so.
    expect(within(screen.getByTestId("price-index-data")).getAllByRole("columnheader").map((c) => c.textContent)).toEqual([
      "Month",
      "98103, 98115 index (12-month change)",
    ]);
    expect(screen.getByTestId("price-index-description")).toHaveTextContent(
      "98103: its metro's index (the metro of 98103); 98115: its metro's index (the metro of 98103)",
    );
    expect(location()).toBe("/markets?zip=98103&compare=98115");
  });

  it("fills the form from a shared URL and charges nothing until Search is pressed", async () => {
    const { calls, user } = renderMarkets(
      { [TWO + "&propertyType=Condo"]: { body: envelope({ markets: [makeMarket(), makeThinMarket()], notFound: [] }, 2) } },
      "/markets?zip=98103&compare=98115&propertyType=Condo",
    );
    expect(screen.getByLabelText("ZIP Code")).toHaveValue("98103");
    expect(screen.getByLabelText("Property Type")).toHaveValue("Condo");
    expect(screen.getByRole("list", { name: "ZIP codes compared" })).toHaveTextContent("98115");
    expect(screen.getByTestId("markets-ready")).toHaveTextContent("Ready to search 98103, 98115");
    expect(screen.getByTestId("markets-ready")).toHaveTextContent("it costs 2 credits");
    expect(calls(TWO + "&propertyType=Condo")).toHaveLength(0);

    await user.click(screen.getByRole("button", { name: "Search (2 Credits)" }));
    expect(await screen.findByTestId("market-title")).toHaveTextContent("98103, 98115 compared");
    expect(calls(TWO + "&propertyType=Condo")).toHaveLength(1);
    expect(location()).toBe("/markets?zip=98103&compare=98115&propertyType=Condo");
    await waitFor(() => expect(screen.getByTestId("market-title")).toHaveFocus());
  });

  it("asks again when the same search is pressed after a failure (credits bought since a 402)", async () => {
    let answer: FakeRoute = { status: 402, body: errorBody("Insufficient credits", { code: "insufficient_credits", balance: 0, creditsRequired: 1 }) };
    const { calls, user } = await searchFrom({ [ONE]: () => answer as { status: number; body: unknown } }, "/markets?zip=98103");
    await screen.findByTestId("markets-no-credits");
    answer = { body: envelope(makeMarket()) };
    await user.click(screen.getByRole("button", { name: "Search (1 Credit)" }));
    expect(await screen.findByTestId("stat-median-sale-value")).toHaveTextContent("$890,000");
    expect(calls(ONE)).toHaveLength(2);
  });

  it("stops at five ZIPs", async () => {
    const { user } = renderMarkets({}, "/markets");
    const compare = screen.getByLabelText("Compare ZIP Code");
    for (const z of ["98115", "98107", "98117", "98122"]) {
      await user.type(compare, z);
      await user.click(screen.getByRole("button", { name: "Add ZIP" }));
    }
    expect(screen.getByLabelText("Compare ZIP Code")).toBeDisabled();
    expect(screen.getByRole("button", { name: "Add ZIP" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Search (5 Credits)" })).toBeInTheDocument();
  });

  it("exports what is shown as CSV, protected against formulas", async () => {
    const { blobs, click } = captureDownloads();
    const evil = makeThinMarket({ city: "=HYPERLINK(\"http://x\")" });
    const { user } = await searchFrom(
      { [TWO]: { body: envelope({ markets: [makeMarket(), evil], notFound: [] }, 2) } },
      "/markets?zip=98103&compare=98115",
    );
    await screen.findByTestId("compare-table");
    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(await screen.findByText("Export Ready")).toBeInTheDocument();
    const link = click.mock.contexts[0] as HTMLAnchorElement;
    expect(link.download).toMatch(/^market-98103-98115-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = await readBlob(blobs[0]!);
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("Market statistics");
    expect(lines[1]).toMatch(/^ZIP,City,State,Records up to,Property type,Sales \(12 months\),Median sale price/);
    expect(lines[2]).toBe(
      "98103,SEATTLE,WA,2026-11-20,All,143,890000,934512,410000,2650000,612,,61,3100,3240,1650,6200,2.41,,812,905000,760000,1120000,,0.4,5.1,No",
    );
    // The formula is text, the thin rents and the omitted values are empty with their reason.
    expect(lines[3]).toContain("98115,\"'=HYPERLINK(\"\"http://x\"\")\",WA");
    expect(lines[3]).toContain(",3,,,,,,Fewer than 5 rents in the last 12 months.,");
    expect(lines[3]).toContain(",,,,,Fewer than 5 homes on record.,");
    expect(text).toContain("98103,Property type,Condo,40,560000,585000,410000,990000,701,,,,,,");
    expect(text).toContain("98103,Sales,Manufactured,Fewer than 5 sales in the last 12 months.");
    expect(text).toContain("98103,2026-11,1.092,0.4,5.1,12,903000,6,3100,1,1");
  });
});

describe("the search in the URL", () => {
  it("reads a shared URL and drops what it cannot use", () => {
    const q = queryFromParams(new URLSearchParams("zip=98103&compare=98115,abc,98103,98107,98117,98122,98126&propertyType=Boat&historyMonths=500"));
    expect(q).toEqual({ zip: "98103", compare: ["98115", "98107", "98117", "98122"], propertyType: null, historyMonths: 24 });
    expect(queryFromParams(new URLSearchParams("zip=9810"))).toBeNull();
  });

  it("writes an empty CSV section for no markets without failing", () => {
    expect(marketsCsv([], ["12345"])).toContain("12345,,,,,,,,,,,No records for ZIP 12345.");
  });
});

describe("indexLines", () => {
  it("draws the engine's one index once for the ZIPs that share it, and a ZIP over other months apart", () => {
    const a = makeMarket({ zip: "98103" });
    const b = makeMarket({ zip: "98115" });
    const older = makeMarket({ zip: "98107", priceIndex: a.priceIndex.slice(0, -1) });
    const none = makeMarket({ zip: "33101", priceIndex: [] });
    expect(indexLines([a, b, older, none]).map((l) => [l.name, l.points.length])).toEqual([
      ["98103, 98115", a.priceIndex.length],
      ["98107", a.priceIndex.length - 1],
    ]);
  });
});
