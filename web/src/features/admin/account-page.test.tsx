import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { dismissToasts, errorBody, makeBalance, type FakeRequest } from "@/test/utils";
import { AdminAccountPage } from "./account-page";
import type { AccountDetail } from "./admin-api";
import { makeAccountDetail, ok, renderAdmin } from "./test-fixtures";

afterEach(() => {
  vi.unstubAllGlobals();
  dismissToasts();
});

const DETAIL = "GET /api/admin/accounts/42";

/** Renders account 42; `state.detail` is what the server answers now (an action's handler changes it). */
async function renderAccount(routes: Record<string, (req: FakeRequest) => { status?: number; body?: unknown }> = {}, detail = makeAccountDetail()) {
  const state = { detail };
  const view = await renderAdmin(<AdminAccountPage />, {
    path: "/admin/accounts/:id",
    route: "/admin/accounts/42",
    routes: { [DETAIL]: () => ({ body: ok(state.detail) }), ...routes },
  });
  await screen.findByRole("heading", { level: 1, name: "jane@example.com" });
  return { ...view, state };
}

const posts = (requests: FakeRequest[]) => requests.filter((r) => r.method === "POST").map((r) => ({ url: r.url, body: r.body }));

describe("an account's page", () => {
  it("shows the account, its balance, ledger, payments, keys, usage, batch jobs and person lookups", async () => {
    await renderAccount();
    const summary = screen.getByTestId("account-summary");
    expect(summary).toHaveTextContent("Jane Doe");
    expect(summary).toHaveTextContent("Acme Realty");
    expect(summary).toHaveTextContent("Basic");
    expect(within(summary).getByTestId("account-status")).toHaveTextContent("Active");
    expect(screen.getByTestId("balance-figure")).toHaveTextContent("1,200 credits");
    expect(screen.getByTestId("account-balance")).toHaveTextContent("321");
    const ledger = screen.getByRole("table", { name: "Credit ledger" });
    expect(within(ledger).getAllByRole("row")).toHaveLength(3);
    expect(ledger).toHaveTextContent("+1,000");
    const payments = screen.getByRole("table", { name: "Payments" });
    expect(payments).toHaveTextContent("$30");
    // Only the refundable payment has a Refund button.
    expect(within(payments).getAllByRole("button", { name: /^Refund/ })).toHaveLength(1);
    expect(within(payments).getByText("Not refundable")).toBeInTheDocument();
    expect(screen.getByRole("table", { name: "API keys" })).toHaveTextContent("vk_live_ab…9f");
    expect(screen.getByRole("table", { name: "API keys" })).toHaveTextContent("Never");
    expect(screen.getByRole("table", { name: "Recent API calls" })).toHaveTextContent("/api/v1/property/valuation");
    expect(screen.getByRole("table", { name: "Batch jobs" })).toHaveTextContent("portfolio.csv");
    expect(screen.getByRole("table", { name: "Batch jobs" })).toHaveTextContent("queued (held while suspended)");
    expect(screen.getByRole("table", { name: "Person lookups" })).toHaveTextContent("Not found");
    expect(screen.getByRole("button", { name: "Suspend" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Reinstate" })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "This account's audit log" })).toHaveAttribute("href", "/admin/audit?accountId=42");
  });

  it("says so for an unknown account (404 account_not_found)", async () => {
    await renderAdmin(<AdminAccountPage />, {
      path: "/admin/accounts/:id",
      route: "/admin/accounts/999",
      routes: { "GET /api/admin/accounts/999": { status: 404, body: errorBody("No such account.", { code: "account_not_found" }) } },
    });
    expect(await screen.findByRole("alert")).toHaveTextContent("No such account.");
  });

  it("grants credits: validation names the field, then POSTs {amount, reason}, refreshes the figures and says so", async () => {
    const { user, requests, state } = await renderAccount({
      "POST /api/admin/accounts/42/credits": (req) => {
        const { amount } = req.body as { amount: number };
        state.detail = makeAccountDetail({ balance: makeBalance({ planType: "basic", credits: 1200 + amount }) });
        return { body: ok({ balance: state.detail.balance, entry: { id: 902, amount, balanceAfter: 1450, kind: "admin_adjustment", description: "x", reference: "", createdAt: "2026-02-04T00:00:00Z" } }) };
      },
    });
    const opener = screen.getByRole("button", { name: "Grant credits" });
    await user.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Grant credits" });
    await user.click(within(dialog).getByRole("button", { name: "Grant credits" }));
    expect(within(dialog).getByText("Amount is required.")).toBeInTheDocument();
    expect(within(dialog).getByText("Reason is required: say why, for the audit log.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Amount (credits)")).toHaveFocus();
    expect(within(dialog).getByLabelText("Amount (credits)")).toHaveAttribute("aria-invalid", "true");

    await user.type(within(dialog).getByLabelText("Amount (credits)"), "2.5");
    await user.type(within(dialog).getByLabelText("Reason"), "ok");
    await user.click(within(dialog).getByRole("button", { name: "Grant credits" }));
    expect(within(dialog).getByText("Amount must be a whole number of credits, like 250.")).toBeInTheDocument();
    expect(within(dialog).getByText("Reason must be at least 3 characters.")).toBeInTheDocument();
    expect(posts(requests)).toEqual([]);

    await user.clear(within(dialog).getByLabelText("Amount (credits)"));
    await user.type(within(dialog).getByLabelText("Amount (credits)"), "250");
    await user.type(within(dialog).getByLabelText("Reason"), " goodwill");
    await user.click(within(dialog).getByRole("button", { name: "Grant credits" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(posts(requests)).toEqual([{ url: "/api/admin/accounts/42/credits", body: { amount: 250, reason: "ok goodwill" } }]);
    await waitFor(() => expect(screen.getByTestId("balance-figure")).toHaveTextContent("1,450 credits"));
    expect(await screen.findByText("Credits granted")).toBeInTheDocument();
    expect(screen.getAllByText(/Added 250 credits to jane@example.com\. Balance now: 1,450 credits\./)[0]).toBeInTheDocument();
    // Focus is back on what opened the dialog.
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("deducts with a negative amount; the server's refusal (409 insufficient_credits, field amount) shows on the field", async () => {
    const { user, requests } = await renderAccount({
      "POST /api/admin/accounts/42/credits": () => ({
        status: 409,
        body: errorBody("The balance cannot go below zero.", { code: "insufficient_credits", field: "amount" }),
      }),
    });
    await user.click(screen.getByRole("button", { name: "Deduct credits" }));
    const dialog = await screen.findByRole("dialog", { name: "Deduct credits" });
    await user.type(within(dialog).getByLabelText("Amount (credits)"), "5000");
    await user.type(within(dialog).getByLabelText("Reason"), "Chargeback");
    await user.click(within(dialog).getByRole("button", { name: "Deduct credits" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("The balance cannot go below zero.");
    expect(within(dialog).getByLabelText("Amount (credits)")).toHaveAttribute("aria-invalid", "true");
    expect(posts(requests)).toEqual([{ url: "/api/admin/accounts/42/credits", body: { amount: -5000, reason: "Chargeback" } }]);
  });

  it("shows a refusal without a field in the dialog, which stays open (503 refund_failed)", async () => {
    const { user } = await renderAccount({
      "POST /api/admin/accounts/42/payments/7/refund": () => ({
        status: 503,
        body: errorBody("The payment provider could not refund this payment. Nothing was changed.", { code: "refund_failed" }),
      }),
    });
    await user.click(screen.getByRole("button", { name: "Refund Basic plan, February" }));
    const dialog = await screen.findByRole("dialog", { name: "Refund payment" });
    await user.type(within(dialog).getByLabelText("Reason"), "Duplicate");
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("The payment provider could not refund this payment.");
    expect(screen.getByRole("dialog", { name: "Refund payment" })).toBeInTheDocument();
  });

  it("puts a field error of the server on its field", async () => {
    const { user } = await renderAccount({
      "POST /api/admin/accounts/42/credits": () => ({ status: 400, body: errorBody("Reason is too long.", { field: "reason" }) }),
    });
    await user.click(screen.getByRole("button", { name: "Grant credits" }));
    const dialog = await screen.findByRole("dialog");
    await user.type(within(dialog).getByLabelText("Amount (credits)"), "1");
    await user.type(within(dialog).getByLabelText("Reason"), "Because");
    await user.click(within(dialog).getByRole("button", { name: "Grant credits" }));
    expect(await within(dialog).findByText("Reason is too long.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Reason")).toHaveAttribute("aria-invalid", "true");
  });

  it("refunds a paid payment after a confirmation with a reason", async () => {
    const { user, requests, state } = await renderAccount({
      "POST /api/admin/accounts/42/payments/7/refund": () => {
        const d = makeAccountDetail();
        state.detail = {
          ...d,
          balance: makeBalance({ planType: "basic", credits: 200 }),
          payments: d.payments.map((p) => (p.id === 7 ? { ...p, status: "refunded", refundable: false } : p)),
        };
        return { body: ok({ payment: state.detail.payments[0], balance: state.detail.balance }) };
      },
    });
    await user.click(screen.getByRole("button", { name: "Refund Basic plan, February" }));
    const dialog = await screen.findByRole("dialog", { name: "Refund payment" });
    expect(dialog).toHaveTextContent("Refund $30 (Basic plan, February) to jane@example.com");
    // What it does to the plan (issue 36, L-4).
    expect(dialog).toHaveTextContent("A full refund also ends the plan at once; a partial refund keeps it.");
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    expect(within(dialog).getByText("Reason is required: say why, for the audit log.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Reason")).toHaveFocus();
    await user.type(within(dialog).getByLabelText("Reason"), "Charged twice");
    await user.click(within(dialog).getByRole("button", { name: "Refund" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(posts(requests)).toEqual([{ url: "/api/admin/accounts/42/payments/7/refund", body: { reason: "Charged twice" } }]);
    await waitFor(() => expect(screen.getByTestId("balance-figure")).toHaveTextContent("200 credits"));
    expect(await screen.findByText("Payment refunded")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /^Refund/ })).not.toBeInTheDocument();
    // The status in the customer's words, as Billing shows it.
    expect(screen.getByRole("table", { name: /Payments/ })).toHaveTextContent("Refunded");
  });

  it.each([
    ["suspend", "Suspend", "Suspend account", "Account suspended", "suspended"],
    ["close", "Close account", "Close account", "Account closed", "closed"],
  ] as const)("%s: confirms with a reason, POSTs it and shows the new status", async (action, button, title, done, status) => {
    const { user, requests, state } = await renderAccount({
      [`POST /api/admin/accounts/42/${action}`]: () => {
        state.detail = makeAccountDetail({}, { status: status as AccountDetail["account"]["status"], suspendReason: "Fraud", suspendedAt: "2026-02-04T00:00:00Z" });
        return { body: ok(state.detail.account) };
      },
    });
    await user.click(screen.getByRole("button", { name: button }));
    const dialog = await screen.findByRole("dialog", { name: title });
    await user.type(within(dialog).getByLabelText("Reason"), "Fraud");
    await user.click(within(dialog).getByRole("button", { name: button }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(posts(requests)).toEqual([{ url: `/api/admin/accounts/42/${action}`, body: { reason: "Fraud" } }]);
    await waitFor(() => expect(screen.getByTestId("account-status")).toHaveTextContent(status === "closed" ? "Closed" : "Suspended"));
    expect(await screen.findByText(done)).toBeInTheDocument();
    // The button that opened the dialog is gone: focus is on the page's heading, not lost.
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 })).toHaveFocus());
  });

  it("reinstates a suspended account; Cancel sends nothing and gives focus back", async () => {
    const { user, requests } = await renderAccount(
      { "POST /api/admin/accounts/42/reinstate": () => ({ body: ok(makeAccountDetail().account) }) },
      makeAccountDetail({}, { status: "suspended", suspendReason: "Chargebacks", suspendedAt: "2026-02-01T00:00:00Z" }),
    );
    expect(screen.getByTestId("account-summary")).toHaveTextContent("Chargebacks");
    expect(screen.queryByRole("button", { name: "Suspend" })).not.toBeInTheDocument();
    const opener = screen.getByRole("button", { name: "Reinstate" });
    await user.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Reinstate account" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(opener).toHaveFocus());
    expect(posts(requests)).toEqual([]);
    await user.click(opener);
    const again = await screen.findByRole("dialog", { name: "Reinstate account" });
    await user.type(within(again).getByLabelText("Reason"), "Paid up");
    await user.click(within(again).getByRole("button", { name: "Reinstate" }));
    await waitFor(() => expect(posts(requests)).toEqual([{ url: "/api/admin/accounts/42/reinstate", body: { reason: "Paid up" } }]));
  });
});
