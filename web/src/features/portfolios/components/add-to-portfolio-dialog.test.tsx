import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { dismissToasts, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { AddToPortfolioDialog } from "./add-to-portfolio-dialog";
import { makePortfolio } from "../test-fixtures";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const HOME = { address: "7006 Maple Rd", city: "Seattle", state: "WA", zip: "98103" };
const FORMATTED = "7006 MAPLE RD, SEATTLE, WA 98103";
const page = (data: unknown[]) => ({
  body: { data, pagination: { page: 1, limit: 100, total: data.length, totalPages: 1, hasPreviousPage: false, hasNextPage: false } },
});

function render(routes: Record<string, FakeRoute>) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({ "GET /api/user/profile": { body: makeUser() }, ...routes });
  const onClose = vi.fn();
  const user = userEvent.setup();
  renderWithProviders(<AddToPortfolioDialog open onClose={onClose} home={HOME} formattedAddress={FORMATTED} />);
  return { ...server, user, onClose };
}

describe("Add to Portfolio", () => {
  it("adds the looked-up home to the newest portfolio for 1 credit and says where it went", async () => {
    let asked: unknown = null;
    const { user, onClose } = render({
      "GET /api/portfolios?limit=100": page([makePortfolio(), makePortfolio({ id: 8, name: "Denver" })]),
      "POST /api/portfolios/7/properties": (req) => {
        asked = req.body;
        return { body: { results: [{ index: 0, status: "added", homeId: 3, formattedAddress: FORMATTED, value: 700000, creditsUsed: 1 }] } };
      },
    });
    const dialog = await screen.findByRole("dialog", { name: "Add to Portfolio" });
    expect(dialog).toHaveTextContent(`${FORMATTED} is valued again and added for 1 credit`);
    expect(await within(dialog).findByRole("combobox", { name: "Portfolio" })).toHaveTextContent("Seattle rentals (3 homes)");
    await user.click(within(dialog).getByRole("button", { name: "Add (1 credit)" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(asked).toEqual({ properties: [HOME] });
    expect(await screen.findByText(/is in Seattle rentals, revalued every month/)).toBeInTheDocument();
    // (The test keeps the dialog open, so the toast is behind it for the accessibility tree.)
    expect(screen.getByText("Open the portfolio").closest("a")).toHaveAttribute("href", "/portfolios/7");
  });

  it("sends one request for a double click, and holds the dialog open while it is sent", async () => {
    let answer!: (reply: { body: unknown }) => void;
    const { user, onClose, requests } = render({
      "GET /api/portfolios?limit=100": page([makePortfolio()]),
      "POST /api/portfolios/7/properties": () => new Promise((resolve) => (answer = resolve)),
    });
    const dialog = await screen.findByRole("dialog", { name: "Add to Portfolio" });
    await user.dblClick(await within(dialog).findByRole("button", { name: "Add (1 credit)" }));
    expect(within(dialog).getByRole("button", { name: "Adding..." })).toHaveAttribute("aria-disabled", "true");
    expect(within(dialog).getByRole("button", { name: "Cancel" })).toBeDisabled();
    await user.keyboard("{Escape}");
    expect(onClose).not.toHaveBeenCalled();
    answer({ body: { results: [{ index: 0, status: "added", homeId: 3, formattedAddress: FORMATTED, value: 700000, creditsUsed: 1 }] } });
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("says a home the portfolio already holds was not added and not charged", async () => {
    const { user, onClose } = render({
      "GET /api/portfolios?limit=100": page([makePortfolio()]),
      "POST /api/portfolios/7/properties": {
        body: { results: [{ index: 0, status: "failed", code: "duplicate_property", error: "This property is already in the portfolio", creditsUsed: 0 }] },
      },
    });
    const dialog = await screen.findByRole("dialog", { name: "Add to Portfolio" });
    await user.click(await within(dialog).findByRole("button", { name: "Add (1 credit)" }));
    expect(await within(dialog).findByTestId("add-to-portfolio-refused")).toHaveTextContent(
      "This property is already in the portfolio. Nothing was charged.",
    );
    expect(onClose).not.toHaveBeenCalled();
  });

  it("without a portfolio, asks a name and makes a new one holding the home", async () => {
    let asked: unknown = null;
    const { user, onClose } = render({
      "GET /api/portfolios?limit=100": page([]),
      "POST /api/portfolios": (req) => {
        asked = req.body;
        return {
          status: 201,
          body: { ...makePortfolio({ id: 9, name: "Watched", homeCount: 1 }), results: [{ index: 0, status: "added", homeId: 1, creditsUsed: 1 }] },
        };
      },
    });
    const dialog = await screen.findByRole("dialog", { name: "Add to Portfolio" });
    await user.click(await within(dialog).findByRole("button", { name: "Add (1 credit)" }));
    expect(await within(dialog).findByText("Portfolio name is required")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("New portfolio's name")).toHaveFocus();
    await user.type(within(dialog).getByLabelText("New portfolio's name"), "Watched");
    await user.click(within(dialog).getByRole("button", { name: "Add (1 credit)" }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(asked).toEqual({ name: "Watched", alertThreshold: 5, properties: [HOME] });
  });
});
