import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { errorBody, mockFetch, renderWithProviders, type FakeRequest, type FakeRoute } from "@/test/utils";
import { BAD_LINK_TEXT, UnsubscribePage } from "./unsubscribe-page";
import { tokenTopic } from "./unsubscribe-api";

afterEach(() => {
  vi.unstubAllGlobals();
});

const UNSUBSCRIBE = "POST /api/unsubscribe";
const WEEKLY = "u1.42.weeklyReports.c2lnbmF0dXJl";

function renderPage(route: string, routes: Record<string, FakeRoute> = {}) {
  const server = mockFetch(routes);
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/unsubscribe" element={<UnsubscribePage />} />
      <Route path="/settings" element={<h1>Settings</h1>} />
    </Routes>,
    { route },
  );
  return { ...server, user };
}

const posts = (requests: FakeRequest[]) => requests.filter((r) => r.method === "POST" && r.url === "/api/unsubscribe");

describe("UnsubscribePage", () => {
  it("says which emails will stop and sends nothing on load (mail scanners open links)", async () => {
    const { requests } = renderPage(`/unsubscribe?token=${WEEKLY}`);
    expect(screen.getByRole("heading", { level: 1, name: "Unsubscribe" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2, name: "Stop weekly usage report" })).toBeInTheDocument();
    expect(screen.getByTestId("unsubscribe-what")).toHaveTextContent(
      "Unsubscribing stops the weekly usage report sent on Mondays: it turns “Weekly usage report” off",
    );
    expect(screen.getByRole("button", { name: "Unsubscribe" })).toBeEnabled();
    await new Promise((r) => setTimeout(r, 20));
    expect(posts(requests)).toHaveLength(0);
  });

  it.each([
    ["emailNotifications", /batch job results and billing notices .* sign-in alerts are always sent/],
    ["usageAlerts", /low balance alerts \(under 50 credits/],
  ])("names the emails of %s", (topic, text) => {
    renderPage(`/unsubscribe?token=u1.7.${topic}.sig`);
    expect(screen.getByTestId("unsubscribe-what")).toHaveTextContent(text);
  });

  it("posts the token when the button is pressed, without a session, and confirms", async () => {
    const { requests, user } = renderPage(`/unsubscribe?token=${encodeURIComponent(WEEKLY)}`, {
      [UNSUBSCRIBE]: {
        body: { switch: "weeklyReports", label: "Weekly usage report", message: "Done: these emails are off." },
      },
    });
    await user.click(screen.getByRole("button", { name: "Unsubscribe" }));

    const done = await screen.findByTestId("unsubscribe-done");
    expect(done).toHaveTextContent("You will no longer receive the weekly usage report sent on Mondays.");
    expect(done).toHaveFocus();
    expect(done).toHaveAttribute("role", "status");
    expect(screen.getByRole("heading", { level: 2, name: "You are unsubscribed" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Open Settings" })).toHaveAttribute("href", "/settings");
    const sent = posts(requests);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({ token: WEEKLY });
    expect(sent[0]?.headers.Authorization).toBeUndefined();
  });

  it("shows the server's message for a token it refuses (altered), with a way to Settings", async () => {
    const { user } = renderPage(`/unsubscribe?token=${WEEKLY}`, {
      [UNSUBSCRIBE]: { status: 400, body: errorBody("This unsubscribe link is not valid.", { field: "token" }) },
    });
    await user.click(screen.getByRole("button", { name: "Unsubscribe" }));
    const bad = await screen.findByTestId("unsubscribe-bad-link");
    expect(bad).toHaveTextContent("This unsubscribe link is not valid.");
    expect(bad).toHaveAttribute("role", "alert");
    expect(screen.getByRole("heading", { level: 2, name: "This link does not work" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Unsubscribe" })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to Settings" })).toHaveAttribute("href", "/settings");
  });

  it.each([
    ["garbage", "/unsubscribe?token=hello", BAD_LINK_TEXT],
    ["a marketing switch (no such email)", "/unsubscribe?token=u1.42.marketingEmails.sig", BAD_LINK_TEXT],
    ["no token", "/unsubscribe", "This link is incomplete"],
  ])("refuses %s without asking the server", async (_, route, text) => {
    const { requests } = renderPage(route);
    expect(screen.getByTestId("unsubscribe-bad-link")).toHaveTextContent(text);
    expect(screen.queryByRole("button", { name: "Unsubscribe" })).not.toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 20));
    expect(posts(requests)).toHaveLength(0);
  });

  it("keeps the button for a failure that is not the token's (the server is down)", async () => {
    const { user } = renderPage(`/unsubscribe?token=${WEEKLY}`, { [UNSUBSCRIBE]: "network-error" });
    await user.click(screen.getByRole("button", { name: "Unsubscribe" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Cannot reach the server");
    expect(screen.getByRole("button", { name: "Unsubscribe" })).toBeEnabled();
  });
});

describe("tokenTopic", () => {
  it("reads the switch of a well-formed token only", () => {
    expect(tokenTopic("u1.42.usageAlerts.abc")).toBe("usageAlerts");
    expect(tokenTopic("u1.042.usageAlerts.abc")).toBeNull();
    expect(tokenTopic("u2.42.usageAlerts.abc")).toBeNull();
    expect(tokenTopic("u1.42.usageAlerts.")).toBeNull();
    expect(tokenTopic("u1.42.toString.abc")).toBeNull();
    expect(tokenTopic("")).toBeNull();
  });
});
