import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { PortfolioPage, PortfoliosPage } from "./portfolios-page";
import { alertPage, makeAlert, makeDetail, makePortfolio } from "./test-fixtures";

vi.mock("recharts", async (original) => (await import("@/test/recharts")).sized(await original<object>()));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

function render(routes: Record<string, FakeRoute>, route: string) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({ "GET /api/user/profile": { body: makeUser() }, ...routes });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/portfolios" element={<PortfoliosPage />} />
      <Route path="/portfolios/:id" element={<PortfolioPage />} />
    </Routes>,
    { route },
  );
  return { ...server, user };
}

const DETAIL = "GET /api/portfolios/7?limit=1000";

describe("a portfolio's page", () => {
  it("shows its totals, the alert and the movers first and marked, sorts, and removes a home after asking", async () => {
    let removed: unknown = null;
    const { user } = render(
      {
        [DETAIL]: { body: makeDetail() },
        "DELETE /api/portfolios/7/properties": (req) => {
          removed = req.body;
          return { body: { removed: 1 } };
        },
      },
      "/portfolios/7",
    );
    expect(await screen.findByRole("heading", { level: 1, name: "Seattle rentals" })).toBeInTheDocument();
    expect(screen.getByTestId("portfolio-value")).toHaveTextContent("$2,100,000");
    expect(screen.getByTestId("portfolio-alert")).toHaveTextContent("Alert: 2 homes moved more than 1% since last month");
    const rows = () => screen.getAllByTestId("home-row").map((r) => within(r).getByRole("rowheader").textContent);
    expect(rows()).toEqual(["200 B ST, SEATTLE, WA 98103Moved", "=300 C ST, SEATTLE, WA 98103Moved", "100 A ST, SEATTLE, WA 98103"]);
    // The chart's figures are in a table too.
    expect(within(screen.getByTestId("value-chart-data")).getAllByRole("row")).toHaveLength(3);

    const byValue = screen.getByRole("button", { name: "Value" });
    await user.click(byValue);
    expect(byValue.closest("th")).toHaveAttribute("aria-sort", "descending");
    // Movers stay first.
    expect(rows()[2]).toBe("100 A ST, SEATTLE, WA 98103");

    const removeButton = screen.getByRole("button", { name: "Remove 100 A ST, SEATTLE, WA 98103" });
    await user.click(removeButton);
    const dialog = await screen.findByRole("alertdialog", { name: "Remove home?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(removeButton).toHaveFocus());
    await user.click(removeButton);
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Remove Home" }));
    await waitFor(() => expect(removed).toEqual({ homeIds: [1] }));
  });

  it("says a paused portfolio is paused, why, and how to resume it", async () => {
    render(
      { [DETAIL]: { body: makeDetail({ status: "paused", pausedReason: "Paused: your credits ran out during this month's revaluation." }) } },
      "/portfolios/7",
    );
    const paused = await screen.findByTestId("portfolio-paused");
    expect(paused).toHaveTextContent("your credits ran out");
    expect(within(paused).getByRole("link", { name: /Add credits/ })).toHaveAttribute("href", "/billing");
  });

  it("adds a home for 1 credit and shows a server's field error at its field", async () => {
    const { user, requests } = render(
      {
        [DETAIL]: { body: makeDetail() },
        "POST /api/portfolios/7/properties": { status: 400, body: errorBody("ZIP code must be 5 digits", { field: "properties[0].zip" }) },
      },
      "/portfolios/7",
    );
    const form = await screen.findByRole("form", { name: "Add a home" });
    await user.type(within(form).getByLabelText("Address"), "7006 Maple Rd");
    await user.type(within(form).getByLabelText("ZIP"), "981");
    await user.click(within(form).getByRole("button", { name: "Add (1 credit)" }));
    expect(await within(form).findByText("ZIP code must be 5 digits")).toBeInTheDocument();
    expect(within(form).getByLabelText("ZIP")).toHaveAttribute("aria-invalid", "true");
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ properties: [{ address: "7006 Maple Rd", zip: "981" }] });
  });
});

describe("a portfolio's past alerts", () => {
  const ALERTS = "GET /api/portfolios/7/alerts?page=1&limit=12";

  it("lists each month's alert, newest first, with the homes that moved, and reads older ones on asking", async () => {
    const { user } = render(
      {
        [DETAIL]: { body: makeDetail() },
        [ALERTS]: {
          body: alertPage(
            [
              makeAlert("2026-11", [
                [2, "200 B ST, SEATTLE, WA 98103", 923_000, 900_000],
                [3, "=300 C ST, SEATTLE, WA 98103", 689_700, 700_000],
              ]),
              makeAlert("2026-10", [[1, "100 A ST, SEATTLE, WA 98103", 480_000, 500_000]], 2),
            ],
            1,
            13,
          ),
        },
        "GET /api/portfolios/7/alerts?page=2&limit=12": {
          body: alertPage([makeAlert("2025-09", [[1, "100 A ST, SEATTLE, WA 98103", 470_000, 480_000]])], 2, 13),
        },
      },
      "/portfolios/7",
    );
    const card = await screen.findByTestId("past-alerts");
    expect(within(card).getByRole("heading", { name: "Past alerts" })).toBeInTheDocument();
    const alerts = await within(card).findAllByTestId("past-alert");
    expect(alerts.map((a) => within(a).getByRole("heading", { level: 3 }).textContent)).toEqual([
      "Nov 2026: 2 homes moved more than 1%",
      // The threshold of that month, not today's.
      "Oct 2026: 1 home moved more than 2%",
    ]);
    expect(alerts[0]).toHaveTextContent("Sent Nov 1, 2026");
    const homes = within(alerts[0]!).getAllByTestId("past-alert-home");
    expect(within(homes[0]!).getByRole("rowheader")).toHaveTextContent("200 B ST, SEATTLE, WA 98103");
    expect(homes[0]).toHaveTextContent("$923,000");
    expect(homes[0]).toHaveTextContent("Oct 2026");
    expect(homes[0]).toHaveTextContent("$900,000");
    expect(homes[0]).toHaveTextContent("−2.49%");
    expect(homes[0]).toHaveTextContent("−$23,000");
    expect(homes[1]).toHaveTextContent("+1.49%");

    await user.click(within(card).getByRole("button", { name: "Show older alerts" }));
    await waitFor(() => expect(within(card).getAllByTestId("past-alert")).toHaveLength(3));
    expect(within(card).getAllByTestId("past-alert")[2]).toHaveTextContent("Sep 2025: 1 home moved more than 1%");
    expect(within(card).queryByRole("button", { name: "Show older alerts" })).not.toBeInTheDocument();
  });

  it("without alerts says when they are sent: monthly, past the threshold", async () => {
    render({ [DETAIL]: { body: makeDetail() }, [ALERTS]: { body: alertPage([], 1, 0) } }, "/portfolios/7");
    expect(await screen.findByTestId("past-alerts-empty")).toHaveTextContent(
      "No alerts yet. Alerts are sent once a month, after the monthly revaluation, when a home's value moves more than 1% from the month before",
    );
  });

  it("with alerts off says how to turn them on", async () => {
    render({ [DETAIL]: { body: makeDetail({ alertThreshold: null }) }, [ALERTS]: { body: alertPage([], 1, 0) } }, "/portfolios/7");
    expect(await screen.findByTestId("past-alerts-empty")).toHaveTextContent("With an alert threshold, an alert is sent once a month");
    expect(screen.getByTestId("past-alerts")).toHaveTextContent("Alerts are off: set an alert threshold in Settings");
  });
});

describe("a portfolio's settings", () => {
  it("changes the name, turns alerts off and adds a webhook; a 400 shows at its field", async () => {
    const asked: unknown[] = [];
    const { user } = render(
      {
        [DETAIL]: { body: makeDetail() },
        "PATCH /api/portfolios/7": (req) => {
          asked.push(req.body);
          if (asked.length === 1) return { status: 400, body: errorBody("webhookUrl must be an https URL", { field: "webhookUrl" }) };
          return { body: makePortfolio({ name: "Renamed", alertThreshold: null, webhookUrl: "https://example.com/hook" }) };
        },
      },
      "/portfolios/7",
    );
    const open = await screen.findByRole("button", { name: "Settings" });
    await user.click(open);
    const dialog = await screen.findByRole("dialog", { name: "Portfolio settings" });
    expect(within(dialog).getByLabelText("Alert threshold (%)")).toHaveValue("1");
    await user.clear(within(dialog).getByLabelText("Name"));
    await user.type(within(dialog).getByLabelText("Name"), "Renamed");
    await user.clear(within(dialog).getByLabelText("Alert threshold (%)"));
    await user.type(within(dialog).getByLabelText("Webhook URL (optional)"), "http://example.com/hook");
    await user.click(within(dialog).getByRole("button", { name: "Save Settings" }));
    expect(await within(dialog).findByText("webhookUrl must be an https URL")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Webhook URL (optional)")).toHaveFocus();
    await user.clear(within(dialog).getByLabelText("Webhook URL (optional)"));
    await user.type(within(dialog).getByLabelText("Webhook URL (optional)"), "https://example.com/hook");
    await user.click(within(dialog).getByRole("button", { name: "Save Settings" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Portfolio settings" })).not.toBeInTheDocument());
    expect(asked[1]).toEqual({ name: "Renamed", alertThreshold: null, webhookUrl: "https://example.com/hook" });
    // The dialog gives focus back to the button that opened it.
    await waitFor(() => expect(open).toHaveFocus());
  });

  it("checks the threshold before sending", async () => {
    const { user, fetchMock } = render({ [DETAIL]: { body: makeDetail() } }, "/portfolios/7");
    await user.click(await screen.findByRole("button", { name: "Settings" }));
    const dialog = await screen.findByRole("dialog", { name: "Portfolio settings" });
    await user.clear(within(dialog).getByLabelText("Alert threshold (%)"));
    await user.type(within(dialog).getByLabelText("Alert threshold (%)"), "250");
    await user.click(within(dialog).getByRole("button", { name: "Save Settings" }));
    expect(await within(dialog).findByText("Alert threshold must be a percentage from 0.1 to 100")).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([, init]) => (init as RequestInit | undefined)?.method === "PATCH")).toBe(false);
  });
});

describe("the list", () => {
  it("lists each portfolio with its value, its month's change and its status", async () => {
    render(
      {
        "GET /api/portfolios?limit=100": {
          body: {
            data: [makePortfolio(), makePortfolio({ id: 8, name: "Denver", status: "paused", pausedReason: "Paused: credits ran out." })],
            pagination: { page: 1, limit: 100, total: 2, totalPages: 1, hasPreviousPage: false, hasNextPage: false },
          },
        },
        "GET /api/portfolios/7?limit=1": { body: makeDetail() },
        "GET /api/portfolios/8?limit=1": { body: makeDetail({ id: 8, totals: { ...makeDetail().totals, value: 400_000, changeSinceLastMonth: 0 } }) },
      },
      "/portfolios",
    );
    const rows = await screen.findAllByTestId("portfolio-row");
    await waitFor(() => expect(rows[0]).toHaveTextContent("$2,100,000"));
    expect(rows[0]).toHaveTextContent("−$10,000 (−0.47%)");
    expect(rows[0]).toHaveTextContent("Active");
    await waitFor(() => expect(rows[1]).toHaveTextContent("$400,000"));
    expect(rows[1]).toHaveTextContent("Paused");
    expect(rows[1]).toHaveTextContent("credits ran out");
    expect(within(rows[1]!).getByRole("link", { name: "Denver" })).toHaveAttribute("href", "/portfolios/8");
  });

  it("creates a portfolio from a batch job's valued rows, saying its cost, and shows a 400 at its field", async () => {
    let asked: unknown = null;
    const { user } = render(
      {
        "GET /api/portfolios?limit=100": { body: { data: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 0, hasPreviousPage: false, hasNextPage: false } } },
        "GET /api/jobs/3/results?page=1&limit=1000&status=success": {
          body: {
            data: [{ fullAddress: "7006 MAPLE RD, SEATTLE, WA 98103", address: "7006 Maple Rd" }, { fullAddress: "", address: "7010 Maple Rd, Seattle, WA 98103" }],
            pagination: { page: 1, limit: 1000, total: 2, totalPages: 1, hasPreviousPage: false, hasNextPage: false },
          },
        },
        "POST /api/portfolios": (req) => {
          asked = req.body;
          return { status: 400, body: errorBody("alertThreshold must be a percentage from 0.1 to 100", { field: "alertThreshold" }) };
        },
      },
      "/portfolios?fromJob=3",
    );
    const dialog = await screen.findByRole("dialog", { name: "Create portfolio from batch results" });
    expect(await within(dialog).findByText(/The 2 homes valued by batch job #3/)).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText("Name"), "From the job");
    await user.click(await within(dialog).findByRole("button", { name: "Create (2 credits)" }));
    expect(await within(dialog).findByText("alertThreshold must be a percentage from 0.1 to 100")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Alert threshold (%)")).toHaveFocus();
    expect(asked).toEqual({
      name: "From the job",
      alertThreshold: 5,
      webhookUrl: null,
      properties: [{ address: "7006 MAPLE RD, SEATTLE, WA 98103" }, { address: "7010 Maple Rd, Seattle, WA 98103" }],
    });
  });

  it("creates a portfolio from a spreadsheet with the mapping Batch Upload confirmed, and lists the rows not added by line", async () => {
    let asked: unknown = null;
    localStorage.setItem("token", "tok-1");
    mockFetch({
      "GET /api/user/profile": { body: makeUser() },
      "GET /api/portfolios?limit=100": { body: { data: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 0, hasPreviousPage: false, hasNextPage: false } } },
      "POST /api/portfolios": (req) => {
        asked = req.body;
        return {
          status: 201,
          body: {
            ...makePortfolio({ id: 9, name: "Sheet", homeCount: 1 }),
            results: [
              { index: 0, line: 2, status: "added", homeId: 1, formattedAddress: "7006 MAPLE RD, SEATTLE, WA 98103", value: 700000, creditsUsed: 1 },
              { index: 1, line: 3, status: "failed", code: "area_not_covered", error: "No sales near this address", creditsUsed: 0 },
            ],
          },
        };
      },
    });
    const user = userEvent.setup();
    const mapping = { Street: "address", Town: "city", ST: "state", Zip: "zip" };
    renderWithProviders(
      <Routes>
        <Route path="/portfolios" element={<PortfoliosPage />} />
      </Routes>,
      { route: { pathname: "/portfolios", search: "?fromUpload=44", state: { uploadId: 44, mapping, fileName: "homes.xlsx", rowCount: 2 } } },
    );
    const dialog = await screen.findByRole("dialog", { name: "Create portfolio from a spreadsheet" });
    expect(dialog).toHaveTextContent("The 2 rows of homes.xlsx, read with the mapping you confirmed.");
    await user.type(within(dialog).getByLabelText("Name"), "Sheet");
    await user.click(within(dialog).getByRole("button", { name: "Create (up to 2 credits)" }));
    expect(await screen.findByTestId("row-failures")).toHaveTextContent("Line 3: No sales near this address");
    expect(asked).toEqual({ name: "Sheet", alertThreshold: 5, webhookUrl: null, uploadId: 44, mapping });
  });

  it("after a reload the spreadsheet is sent without a mapping (the server's detected one), and a bad line is said in the dialog", async () => {
    let asked: unknown = null;
    const { user } = render(
      {
        "GET /api/portfolios?limit=100": { body: { data: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 0, hasPreviousPage: false, hasNextPage: false } } },
        "POST /api/portfolios": (req) => {
          asked = req.body;
          return { status: 400, body: errorBody('Line 3 of the file: squareFeet must be a number, not "big"', { field: "uploadId" }) };
        },
      },
      "/portfolios?fromUpload=44",
    );
    const dialog = await screen.findByRole("dialog", { name: "Create portfolio from a spreadsheet" });
    expect(dialog).toHaveTextContent("The rows of the uploaded file, read with the columns as detected.");
    await user.type(within(dialog).getByLabelText("Name"), "Sheet");
    await user.click(within(dialog).getByRole("button", { name: "Create (1 credit a home)" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Line 3 of the file");
    expect(asked).toEqual({ name: "Sheet", alertThreshold: 5, webhookUrl: null, uploadId: 44 });
  });

  it("says a 402 with the balance and the way to Billing", async () => {
    const { user } = render(
      {
        "GET /api/portfolios?limit=100": { body: { data: [], pagination: { page: 1, limit: 100, total: 0, totalPages: 0, hasPreviousPage: false, hasNextPage: false } } },
        "POST /api/portfolios": { status: 402, body: errorBody("Insufficient credits", { code: "insufficient_credits", balance: 0, creditsRequired: 1 }) },
      },
      "/portfolios",
    );
    await user.click(await screen.findByRole("button", { name: "New Portfolio" }));
    const dialog = await screen.findByRole("dialog", { name: "New portfolio" });
    await user.type(within(dialog).getByLabelText("Name"), "Mine");
    await user.type(within(dialog).getByLabelText("Address"), "7006 Maple Rd");
    await user.click(within(dialog).getByRole("button", { name: "Create (1 credit)" }));
    expect(await screen.findByTestId("insufficient-credits")).toHaveTextContent("Your balance is 0 credits and this portfolio costs 1.");
  });
});
