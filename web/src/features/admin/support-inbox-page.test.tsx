import { afterEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { dismissToasts, type FakeRequest } from "@/test/utils";
import type { AdminConversation, ContactMessage, InboxItem } from "./admin-api";
import { AdminSupportPage } from "./support-inbox-page";
import { adminCalls, list, makeInboxItem, ok, OPERATOR, renderAdmin } from "./test-fixtures";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  dismissToasts();
});

const INBOX = "GET /api/admin/support?status=open&page=1";

function conversation(overrides: Partial<AdminConversation> = {}): AdminConversation {
  return {
    id: 1,
    accountId: 42,
    email: "jane@example.com",
    name: "Jane Doe",
    status: "open",
    assignee: null,
    createdAt: "2026-02-03T10:00:00Z",
    updatedAt: "2026-02-03T10:01:00Z",
    messages: [
      { id: 10, from: "customer", authorName: "Jane Doe", body: "My batch is stuck", createdAt: "2026-02-03T10:00:00Z" },
      { id: 11, from: "team", authorName: "Ada", body: "Looking now", createdAt: "2026-02-03T10:01:00Z" },
    ],
    ...overrides,
  };
}

const CONVERSATION = "GET /api/admin/support/conversations/1";

async function renderInbox(items: InboxItem[], routes: Record<string, (req: FakeRequest) => { status?: number; body?: unknown }> = {}, fakeTimers = false) {
  const state = { items, conv: conversation() };
  // The conversation as the server answers it: with ?after=<id>, only the messages after that one.
  const newer: Record<string, () => { body: unknown }> = {};
  for (let after = 1; after <= 20; after++) {
    newer[`${CONVERSATION}?after=${after}`] = () => ({ body: ok({ ...state.conv, messages: state.conv.messages.filter((m) => m.id > after) }) });
  }
  const view = await renderAdmin(<AdminSupportPage />, {
    path: "/admin/support",
    route: "/admin/support",
    fakeTimers,
    routes: {
      [INBOX]: () => ({ body: list(state.items) }),
      [CONVERSATION]: () => ({ body: ok(state.conv) }),
      ...newer,
      ...routes,
    },
  });
  await screen.findByTestId("inbox-list");
  return { ...view, state };
}

const posts = (requests: FakeRequest[]) => requests.filter((r) => r.method === "POST").map((r) => ({ url: r.url, body: r.body }));

describe("the support inbox", () => {
  it("lists chats and contact messages, unread first", async () => {
    await renderInbox([
      makeInboxItem({ id: 1, name: "Read Chat", unread: false, updatedAt: "2026-02-03T12:00:00Z" }),
      makeInboxItem({ type: "contact", id: 5, accountId: null, name: "New Lead", subject: "Pricing for 50k lookups", preview: "We run 50k lookups a month", unread: true, updatedAt: "2026-02-01T12:00:00Z" }),
    ]);
    const items = within(screen.getByTestId("inbox-list")).getAllByRole("button");
    expect(items[0]).toHaveTextContent("Unread:");
    expect(items[0]).toHaveTextContent("New Lead");
    expect(items[0]).toHaveTextContent("Contact form");
    expect(items[0]).toHaveTextContent("Pricing for 50k lookups");
    expect(items[0]).toHaveTextContent("We run 50k lookups a month");
    expect(items[1]).toHaveTextContent("Read Chat");
    expect(items[1]).toHaveTextContent("Chat");
    expect(items[1]).toHaveTextContent("Unassigned");
    expect(screen.getByText("1 unread")).toBeInTheDocument();
  });

  it("opens a conversation, replies, assigns it to me and closes it", async () => {
    const { user, requests, state } = await renderInbox([makeInboxItem({ unread: true })], {
      "POST /api/admin/support/conversations/1/reply": (req) => {
        const body = (req.body as { body: string }).body;
        const msg = { id: 12, from: "team" as const, authorName: "Ada", body, createdAt: "2026-02-03T10:02:00Z" };
        state.conv = { ...state.conv, messages: [...state.conv.messages, msg] };
        return { body: ok(msg) };
      },
      "POST /api/admin/support/conversations/1/assign": () => {
        state.conv = { ...state.conv, assignee: { id: OPERATOR.id, email: OPERATOR.email } };
        return { body: ok(state.conv) };
      },
      "POST /api/admin/support/conversations/1/close": () => {
        state.conv = { ...state.conv, status: "closed" };
        return { body: ok(state.conv) };
      },
    });
    await user.click(within(screen.getByTestId("inbox-list")).getByRole("button", { name: /Jane Doe/ }));
    const thread = await screen.findByTestId("conversation");
    await waitFor(() => expect(within(thread).getByRole("heading", { name: "Jane Doe" })).toHaveFocus());
    expect(within(thread).getByRole("log", { name: "Messages" })).toHaveTextContent("My batch is stuck");
    expect(within(thread).getByRole("link", { name: "Open account" })).toHaveAttribute("href", "/admin/accounts/42");

    await user.click(within(thread).getByRole("button", { name: "Send reply" }));
    expect(within(thread).getByText("Reply is required.")).toBeInTheDocument();
    await user.type(within(thread).getByLabelText("Reply"), "Fixed: it resumes now.");
    await user.click(within(thread).getByRole("button", { name: "Send reply" }));
    await waitFor(() => expect(within(thread).getByRole("log")).toHaveTextContent("Fixed: it resumes now."));
    expect(within(thread).getByLabelText("Reply")).toHaveValue("");

    await user.click(within(thread).getByRole("button", { name: "Assign to me" }));
    await waitFor(() => expect(thread).toHaveTextContent("Assigned to you"));
    expect(within(thread).queryByRole("button", { name: "Assign to me" })).not.toBeInTheDocument();

    await user.click(within(thread).getByRole("button", { name: "Close conversation" }));
    await waitFor(() => expect(within(thread).queryByRole("button", { name: "Close conversation" })).not.toBeInTheDocument());
    expect(posts(requests)).toEqual([
      { url: "/api/admin/support/conversations/1/reply", body: { body: "Fixed: it resumes now." } },
      { url: "/api/admin/support/conversations/1/assign", body: {} },
      { url: "/api/admin/support/conversations/1/close", body: {} },
    ]);
  });

  it("opens a contact-form message and closes it", async () => {
    const contact: ContactMessage = { id: 5, accountId: null, firstName: "Lee", lastName: "Park", email: "lee@example.com", company: "Lee Homes", subject: "Pricing", message: "Do you do volume discounts?", status: "open", createdAt: "2026-02-03T10:00:00Z" };
    const { user, requests } = await renderInbox([makeInboxItem({ type: "contact", id: 5, accountId: null, name: "Lee", subject: "Pricing" })], {
      "GET /api/admin/support/contact/5": () => ({ body: ok(contact) }),
      "POST /api/admin/support/contact/5/close": () => ({ body: ok({ ...contact, status: "closed" }) }),
    });
    await user.click(within(screen.getByTestId("inbox-list")).getByRole("button", { name: /Lee/ }));
    const msg = await screen.findByTestId("contact-message");
    expect(msg).toHaveTextContent("Do you do volume discounts?");
    expect(msg).toHaveTextContent("Lee Park · lee@example.com · Lee Homes");
    expect(within(msg).getByRole("link", { name: "Reply by email" })).toHaveAttribute("href", expect.stringContaining("mailto:lee@example.com"));
    await user.click(within(msg).getByRole("button", { name: "Close message" }));
    await waitFor(() => expect(posts(requests)).toEqual([{ url: "/api/admin/support/contact/5/close", body: {} }]));
  });

  it("filters by status", async () => {
    const { user, requests } = await renderInbox([makeInboxItem()], {
      "GET /api/admin/support?status=all&page=1": () => ({ body: list([makeInboxItem({ id: 2, name: "Old One", status: "closed" })]) }),
    });
    await user.selectOptions(screen.getByLabelText("Show"), "all");
    expect(await screen.findByRole("button", { name: /Old One/ })).toBeInTheDocument();
    expect(adminCalls(requests)).toContain("GET /api/admin/support?status=all&page=1");
  });

  it("polls an open conversation for the messages after the last one it shows, and appends them", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { user, requests, state } = await renderInbox([makeInboxItem()], {}, true);
    await user.click(within(screen.getByTestId("inbox-list")).getByRole("button", { name: /Jane Doe/ }));
    const log = within(await screen.findByTestId("conversation")).getByRole("log", { name: "Messages" });
    expect(log).toHaveTextContent("Looking now");
    const reads = () => adminCalls(requests).filter((c) => c.startsWith(CONVERSATION));
    expect(reads()).toEqual([CONVERSATION]);

    // Nothing new: the poll asks for what follows message 11 and the thread stays as it is.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    expect(reads()).toEqual([CONVERSATION, `${CONVERSATION}?after=11`]);
    expect(within(log).getAllByRole("listitem")).toHaveLength(2);

    // The customer writes again: the next poll brings only that message, shown after the others.
    const more = { id: 14, from: "customer" as const, authorName: "Jane Doe", body: "Still stuck at 40%", createdAt: "2026-02-03T10:05:00Z" };
    state.conv = { ...state.conv, messages: [...state.conv.messages, more] };
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    await waitFor(() => expect(within(log).getAllByRole("listitem")).toHaveLength(3));
    expect(within(log).getAllByRole("listitem")[2]).toHaveTextContent("Still stuck at 40%");
    expect(reads().at(-1)).toBe(`${CONVERSATION}?after=11`);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    expect(reads().at(-1)).toBe(`${CONVERSATION}?after=14`);
    expect(within(log).getAllByRole("listitem")).toHaveLength(3);
  });

  it("reads the inbox again every 5 seconds, so new items appear", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { requests, state } = await renderInbox([makeInboxItem()], {}, true);
    const reads = () => adminCalls(requests).filter((c) => c === INBOX).length;
    expect(reads()).toBe(1);
    state.items = [makeInboxItem({ id: 9, name: "Fresh Question", unread: true, updatedAt: "2026-02-03T11:00:00Z" }), makeInboxItem()];
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    expect(await screen.findByRole("button", { name: /Fresh Question/ })).toBeInTheDocument();
    expect(reads()).toBe(2);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5000);
    });
    expect(reads()).toBe(3);
  });
});
