import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { errorBody, mockFetch, renderWithProviders, type FakeRequest, type FakeRoute } from "@/test/utils";
import { DEAD_LINK_TEXT, OptOutConfirmPage } from "./opt-out-confirm-page";

afterEach(() => {
  vi.unstubAllGlobals();
});

const CONFIRM = "POST /api/person/opt-out/confirm";

function renderConfirm(route: string, routes: Record<string, FakeRoute> = {}) {
  const server = mockFetch(routes);
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/opt-out/confirm" element={<OptOutConfirmPage />} />
      <Route path="/opt-out" element={<h1>Opt-out form</h1>} />
    </Routes>,
    { route },
  );
  return { ...server, user };
}

const confirmCalls = (requests: FakeRequest[]) =>
  requests.filter((r) => r.method === "POST" && r.url === "/api/person/opt-out/confirm");

describe("OptOutConfirmPage", () => {
  it("explains what confirming does and sends nothing on load (mail scanners open links)", async () => {
    const { requests } = renderConfirm("/opt-out/confirm?token=oot_abc");
    expect(screen.getByRole("heading", { level: 1, name: "Confirm your opt-out" })).toBeInTheDocument();
    expect(screen.getByText(/everywhere it appears/)).toBeInTheDocument();
    expect(screen.getByText(/cannot be undone/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Remove my listing" })).toBeEnabled();
    // Give any effect a chance to run.
    await new Promise((r) => setTimeout(r, 20));
    expect(confirmCalls(requests)).toHaveLength(0);
  });

  it("posts the token when the button is pressed and shows which listing was removed", async () => {
    const { requests, user } = renderConfirm("/opt-out/confirm?token=oot_abc", {
      [CONFIRM]: {
        body: {
          message: "Your listing has been removed from person lookup.",
          listing: { name: "Jennifer Northcott", city: "Seattle", state_code: "WA" },
        },
      },
    });
    await user.click(screen.getByRole("button", { name: "Remove my listing" }));

    const removed = await screen.findByTestId("opt-out-removed");
    expect(removed).toHaveTextContent("Your listing has been removed from person lookup.");
    expect(screen.getByTestId("removed-listing")).toHaveTextContent("Jennifer Northcott, Seattle, WA");
    expect(removed).toHaveFocus();
    expect(removed).toHaveAttribute("role", "status");
    expect(screen.getByRole("heading", { level: 2, name: "Your listing is removed" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Remove my listing" })).not.toBeInTheDocument();

    const sent = confirmCalls(requests);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({ token: "oot_abc" });
  });

  it("works from the keyboard", async () => {
    const { requests, user } = renderConfirm("/opt-out/confirm?token=oot_k", {
      [CONFIRM]: { body: { message: "Removed.", listing: { name: "A B", city: "Austin", state_code: "TX" } } },
    });
    const button = screen.getByRole("button", { name: "Remove my listing" });
    button.focus();
    await user.keyboard("{Enter}");
    expect(await screen.findByTestId("opt-out-removed")).toHaveFocus();
    expect(confirmCalls(requests)[0]?.body).toEqual({ token: "oot_k" });
  });

  it.each([
    [410, "Gone", DEAD_LINK_TEXT],
    [400, "This is not an opt-out link's token. Open the link from the email.", "This is not an opt-out link's token."],
  ])("on %i says the link does not work and links to the opt-out page", async (status, error, shown) => {
    const { user } = renderConfirm("/opt-out/confirm?token=oot_old", {
      [CONFIRM]: { status, body: errorBody(error, { code: status === 410 ? "optout_link_gone" : "invalid_input", field: "token" }) },
    });
    await user.click(screen.getByRole("button", { name: "Remove my listing" }));
    const dead = await screen.findByTestId("opt-out-dead-link");
    expect(dead).toHaveTextContent(shown);
    expect(DEAD_LINK_TEXT).toBe("This link has expired or was already used. Ask again from the opt-out page.");
    expect(dead).toHaveFocus();
    expect(dead).toHaveAttribute("role", "alert");
    const link = screen.getByRole("link", { name: "Go to the opt-out page" });
    expect(link).toHaveAttribute("href", "/opt-out");
    await user.click(link);
    expect(await screen.findByRole("heading", { name: "Opt-out form" })).toBeInTheDocument();
  });

  it("on another failure shows the server's sentence and lets the visitor try again", async () => {
    const { user, requests } = renderConfirm("/opt-out/confirm?token=oot_abc", {
      [CONFIRM]: { status: 429, body: errorBody("Too many requests. Try again in 30 seconds.", { code: "rate_limited" }) },
    });
    await user.click(screen.getByRole("button", { name: "Remove my listing" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many requests. Try again in 30 seconds.");
    await user.click(screen.getByRole("button", { name: "Remove my listing" }));
    expect(confirmCalls(requests)).toHaveLength(2);
  });

  it("says a link without a token is incomplete and offers no button", () => {
    renderConfirm("/opt-out/confirm");
    expect(screen.getByTestId("opt-out-dead-link")).toHaveTextContent("This link is incomplete");
    expect(screen.queryByRole("button", { name: "Remove my listing" })).not.toBeInTheDocument();
  });
});
