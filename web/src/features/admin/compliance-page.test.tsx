import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import { AdminCompliancePage } from "./compliance-page";
import { adminCalls, list, makePersonAudit, renderAdmin } from "./test-fixtures";

afterEach(() => {
  vi.unstubAllGlobals();
});

const AUDITS = "GET /api/admin/person-audits?page=1";
const OPT_OUTS = "GET /api/admin/opt-outs?page=1";

async function renderCompliance(extra: Record<string, { body: unknown }> = {}) {
  const view = await renderAdmin(<AdminCompliancePage />, {
    path: "/admin/compliance",
    route: "/admin/compliance",
    routes: {
      [AUDITS]: {
        body: list(
          [
            makePersonAudit({ id: 1, flagged: true, keyName: "Production", query: '{"name":"John Smith","city":"Austin","state_code":""}' }),
            makePersonAudit({ id: 2, outcome: "hit", result: "found", credits: 5, accountEmail: "bob@example.com", accountId: 43 }),
            makePersonAudit({ id: 3, outcome: "miss", result: "rate_limited" }),
          ],
          1,
          3,
          60,
        ),
      },
      [OPT_OUTS]: {
        body: list([
          { id: 1, createdAt: "2026-02-01T10:00:00Z", query: '{"name":"John Smith","address":"1 Main St"}', outcome: "sent", listingId: "L-77", expiresAt: "2026-02-02T10:00:00Z", confirmedAt: "2026-02-01T11:00:00Z" },
          { id: 2, createdAt: "2026-02-02T10:00:00Z", query: '{"name":"No Body"}', outcome: "no_match", listingId: null, expiresAt: null, confirmedAt: null },
        ]),
      },
      ...extra,
    },
  });
  await screen.findByTestId("person-audits-table");
  return view;
}

describe("Compliance", () => {
  it("shows the person-lookup audit across accounts with the flagged ones marked, and the opt-out log", async () => {
    await renderCompliance();
    const rows = within(screen.getByTestId("person-audits-table")).getAllByRole("row");
    expect(rows).toHaveLength(4);
    expect(rows[3]).toHaveTextContent("Miss (rate limited)");
    expect(rows[1]).toHaveTextContent("Flagged");
    expect(rows[1]).toHaveTextContent("Production");
    expect(rows[1]).toHaveTextContent("name: John Smith, city: Austin");
    expect(rows[1]).toHaveTextContent("Identity verification");
    expect(rows[1]).toHaveTextContent("Miss");
    expect(rows[2]).toHaveTextContent("Not flagged");
    expect(rows[2]).toHaveTextContent("Dashboard");
    expect(within(rows[2]!).getByRole("link", { name: "bob@example.com" })).toHaveAttribute("href", "/admin/accounts/43");
    expect(screen.getByText("Page 1 of 3 (60 in all)")).toBeInTheDocument();

    const optOuts = await screen.findByTestId("opt-outs-table");
    const o = within(optOuts).getAllByRole("row");
    expect(o[1]).toHaveTextContent("name: John Smith, address: 1 Main St");
    expect(o[1]).toHaveTextContent("Link sent");
    expect(o[1]).toHaveTextContent("L-77");
    expect(o[2]).toHaveTextContent("No matching listing");
    expect(o[2]).toHaveTextContent("Not yet");
  });

  it("sends the filters to the server and pages", async () => {
    const FILTERED = "GET /api/admin/person-audits?accountId=42&purpose=fraud_prevention&outcome=miss&flagged=true&from=2026-02-01&to=2026-02-03&page=1";
    const { user, requests } = await renderCompliance({
      [FILTERED]: { body: list([makePersonAudit({ id: 9, requestId: "req-filtered" })]) },
      "GET /api/admin/person-audits?page=2": { body: list([makePersonAudit({ id: 10, requestId: "req-page-2" })], 2, 3, 60) },
    });
    await user.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByText("req-page-2")).toBeInTheDocument();

    await user.type(screen.getByLabelText("Account id"), "42");
    await user.selectOptions(screen.getByLabelText("Purpose"), "fraud_prevention");
    await user.selectOptions(screen.getByLabelText("Outcome"), "miss");
    await user.click(screen.getByLabelText("Flagged only"));
    await user.type(screen.getByLabelText("From"), "2026-02-01");
    await user.type(screen.getByLabelText("To"), "2026-02-03");
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    expect(await screen.findByText("req-filtered")).toBeInTheDocument();
    expect(adminCalls(requests)).toContain(FILTERED);

    await user.click(screen.getByRole("button", { name: "Reset" }));
    expect(screen.getByLabelText("Account id")).toHaveValue("");
    expect(screen.getByLabelText("Flagged only")).not.toBeChecked();
  });

  it("refuses a date range that ends before it starts, naming the field", async () => {
    const { user, requests } = await renderCompliance();
    const before = adminCalls(requests).length;
    await user.type(screen.getByLabelText("From"), "2026-02-05");
    await user.type(screen.getByLabelText("To"), "2026-02-01");
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    expect(screen.getByText("To must be on or after From.")).toBeInTheDocument();
    expect(screen.getByLabelText("To")).toHaveFocus();
    expect(adminCalls(requests)).toHaveLength(before);
  });
});
