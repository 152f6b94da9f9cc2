import { afterEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { AppShell } from "@/app/shell/app-shell";
import { dismissToasts, makeUser, mockFetch, renderWithProviders, type FakeRequest, type FakeRoute } from "@/test/utils";
import { availability, formatNextOpen, mergeMessages, type SupportMessage, type SupportState } from "./support-api";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  dismissToasts();
});

const HOURS_TEXT = "Mon–Fri 9 AM–6 PM PT";

function msg(id: number, from: SupportMessage["from"], body: string): SupportMessage {
  return { id, from, authorName: from === "team" ? "Ada" : "Jane Doe", body, createdAt: "2026-02-03T10:00:00Z" };
}

/** GET /api/support's answer: the panel in the contract's envelope. */
function panel(overrides: Partial<SupportState> = {}) {
  return { success: true, data: supportState(overrides) };
}

function supportState(overrides: Partial<SupportState> = {}): SupportState {
  return {
    hours: { text: HOURS_TEXT, open: true, nextOpen: null },
    conversation: { id: 3, status: "open", messages: [msg(10, "customer", "Is the API down?"), msg(11, "team", "No, all fine.")] },
    ...overrides,
  };
}

/** The signed-in shell with a page, and the support routes of `routes`. */
async function renderShell(routes: Record<string, FakeRoute>, fakeTimers = false) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({
    "GET /api/user/profile": { body: makeUser() },
    "GET /healthz": { body: { status: "ok" } },
    ...routes,
  });
  const user = userEvent.setup(fakeTimers ? { advanceTimers: vi.advanceTimersByTime.bind(vi) } : {});
  renderWithProviders(
    <Routes>
      <Route element={<AppShell />}>
        <Route path="/dashboard" element={<h1>Dashboard</h1>} />
      </Route>
    </Routes>,
    { route: "/dashboard" },
  );
  await screen.findByRole("heading", { level: 1, name: "Dashboard" });
  return { ...server, user };
}

const supportReads = (requests: FakeRequest[]) =>
  requests.filter((r) => r.url.startsWith("/api/support")).map((r) => `${r.method} ${r.url}`);

describe("office hours", () => {
  it("says truthfully whether the team is in, and when it replies if not", () => {
    expect(availability({ text: HOURS_TEXT, open: true, nextOpen: null })).toBe("We're online now");
    // Monday 9 AM in Los Angeles (PST, UTC-8).
    expect(formatNextOpen("2026-02-09T17:00:00Z")).toBe("Mon 9 AM PT");
    expect(availability({ text: HOURS_TEXT, open: false, nextOpen: "2026-02-09T17:00:00Z" })).toBe(
      "We're offline; we reply from Mon 9 AM PT and by email",
    );
    expect(formatNextOpen("2026-07-06T16:30:00Z")).toBe("Mon 9:30 AM PT");
    expect(availability({ text: HOURS_TEXT, open: false, nextOpen: null })).toBe("We're offline; we reply in office hours and by email");
  });

  it("merges polled and sent messages by id, oldest first", () => {
    expect(mergeMessages([msg(2, "team", "b"), msg(1, "customer", "a")], [msg(2, "team", "b"), msg(3, "customer", "c")]).map((m) => m.id)).toEqual([
      1, 2, 3,
    ]);
  });
});

describe("the Support panel", () => {
  it("opens from the header as a dialog with the hours and the thread, and gives focus back on close", async () => {
    const { user } = await renderShell({ "GET /api/support": { body: panel() } });
    const button = screen.getByRole("button", { name: "Support" });
    await user.click(button);
    const dialog = await screen.findByRole("dialog", { name: "Support" });
    expect(await within(dialog).findByTestId("support-availability")).toHaveTextContent("We're online now.");
    expect(dialog).toHaveTextContent(`Office hours: ${HOURS_TEXT}`);
    const thread = within(dialog).getByRole("log", { name: "Conversation with the Valuator team" });
    expect(thread).toHaveTextContent("Is the API down?");
    expect(thread).toHaveTextContent("Ada, Valuator team");
    // Focus starts in the message box, and stays in the panel (the page behind is inert).
    await waitFor(() => expect(within(dialog).getByLabelText("Your message")).toHaveFocus());
    await user.tab();
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(button).toHaveFocus();
  });

  it("shows the offline line outside office hours", async () => {
    const { user } = await renderShell({
      "GET /api/support": { body: panel({ hours: { text: HOURS_TEXT, open: false, nextOpen: "2026-02-09T17:00:00Z" }, conversation: null }) },
    });
    await user.click(screen.getByRole("button", { name: "Support" }));
    const dialog = await screen.findByRole("dialog", { name: "Support" });
    expect(await within(dialog).findByTestId("support-availability")).toHaveTextContent(
      "We're offline; we reply from Mon 9 AM PT and by email.",
    );
    expect(dialog).toHaveTextContent("No messages yet.");
  });

  it("sends a message: validation first, then POST {body}; the thread shows it", async () => {
    const { user, requests } = await renderShell({
      "GET /api/support": { body: panel({ conversation: null }) },
      "POST /api/support/messages": (req) => ({ body: { success: true, data: msg(20, "customer", (req.body as { body: string }).body) } }),
    });
    await user.click(screen.getByRole("button", { name: "Support" }));
    const dialog = await screen.findByRole("dialog", { name: "Support" });
    await within(dialog).findByTestId("support-availability");
    await user.click(within(dialog).getByRole("button", { name: "Send" }));
    expect(within(dialog).getByText("Message is required.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Your message")).toHaveFocus();
    await user.type(within(dialog).getByLabelText("Your message"), "  How do I rotate a key?  {Enter}");
    await waitFor(() => expect(within(dialog).getByRole("log")).toHaveTextContent("How do I rotate a key?"));
    expect(within(dialog).getByLabelText("Your message")).toHaveValue("");
    expect(requests.filter((r) => r.method === "POST").map((r) => r.body)).toEqual([{ body: "How do I rotate a key?" }]);
  });

  it("polls GET /api/support/messages?after= every 3 s while open, shows replies, and stops when closed", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const pending: SupportMessage[][] = [[msg(12, "team", "We have restarted your batch.")], []];
    const { user, requests } = await renderShell(
      {
        "GET /api/support": { body: panel() },
        "GET /api/support/messages?after=11": () => ({ body: { success: true, data: pending.shift() ?? [] } }),
        "GET /api/support/messages?after=12": { body: { success: true, data: [] } },
      },
      true,
    );
    // Nothing is read while the panel is closed.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(6000);
    });
    expect(supportReads(requests)).toEqual([]);

    await user.click(screen.getByRole("button", { name: "Support" }));
    const dialog = await screen.findByRole("dialog", { name: "Support" });
    await within(dialog).findByTestId("support-availability");
    expect(supportReads(requests)).toEqual(["GET /api/support"]);

    await act(async () => {
      await vi.advanceTimersByTimeAsync(3000);
    });
    expect(await within(dialog).findByText("We have restarted your batch.")).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3000);
    });
    expect(supportReads(requests)).toEqual([
      "GET /api/support",
      "GET /api/support/messages?after=11",
      "GET /api/support/messages?after=12",
    ]);

    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    const before = supportReads(requests).length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(9000);
    });
    expect(supportReads(requests)).toHaveLength(before);
  });

  it("skips polls while the tab is hidden, and says so when the server cannot be reached", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { user, requests } = await renderShell(
      {
        "GET /api/support": { body: panel() },
        "GET /api/support/messages?after=11": "network-error",
      },
      true,
    );
    await user.click(screen.getByRole("button", { name: "Support" }));
    const dialog = await screen.findByRole("dialog", { name: "Support" });
    await within(dialog).findByTestId("support-availability");
    const visibility = vi.spyOn(document, "visibilityState", "get").mockReturnValue("hidden");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(6000);
    });
    expect(supportReads(requests)).toEqual(["GET /api/support"]);
    visibility.mockReturnValue("visible");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3000);
    });
    expect(await within(dialog).findByText("Cannot reach the server just now; still trying.")).toBeInTheDocument();
    visibility.mockRestore();
  });

  it("opens from the phone menu: the menu closes, and closing the panel gives focus to Open menu", async () => {
    const { user } = await renderShell({ "GET /api/support": { body: panel() } });
    const openMenu = screen.getByRole("button", { name: "Open menu" });
    await user.click(openMenu);
    const menu = await screen.findByRole("dialog", { name: "Menu" });
    await user.click(within(menu).getByRole("button", { name: "Support" }));
    const dialog = await screen.findByRole("dialog", { name: "Support" });
    expect(screen.queryByRole("dialog", { name: "Menu" })).not.toBeInTheDocument();
    await within(dialog).findByTestId("support-availability");
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(openMenu).toHaveFocus();
  });
});
