import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { HistoryPage } from "./history-page";
import { formatTimestamp } from "./history-helpers";
import { makeEntry, makeHistory, makeKey, requestData } from "./test-fixtures";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const PAGE1 = "GET /api/usage/history?page=1&limit=50";
const KEYS = "GET /api/api-keys";
const LOOKUP = "POST /api/property/lookup";
const PROFILE = "GET /api/user/profile";

const ROWS = [
  makeEntry({ id: 1 }),
  makeEntry({
    id: 2,
    createdAt: "2026-02-02T08:00:00Z",
    propertyAddress: "1 Main St, Austin, TX 78701",
    valuation: null,
    responseStatus: 404,
    responseTimeMs: 1234,
    apiKeyName: "Production",
    endpoint: "GET /api/v1/property/valuation",
    creditsUsed: 0,
    requestData: requestData({ address: "1 Main St", city: "Austin", state: "TX", zip: "78701" }),
    requestId: "req-2",
  }),
  makeEntry({
    id: 3,
    propertyAddress: null,
    valuation: null,
    responseStatus: 500,
    apiKeyName: "Staging",
    apiService: "person_lookup",
    endpoint: "POST /api/find-person",
    requestData: requestData({ name: "Jane Doe" }),
    requestId: "req-3",
  }),
  makeEntry({ id: 4, responseStatus: 204, propertyAddress: "9 Elm St, Reno, NV", requestId: "req-4" }),
  makeEntry({ id: 5, responseStatus: 302, propertyAddress: "7 Oak Ave, Boise, ID", requestId: "req-5" }),
];

function renderHistory(routes: Record<string, FakeRoute> = {}) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({
    [PROFILE]: { body: makeUser() },
    [KEYS]: { body: [makeKey(1, "Production"), makeKey(2, "Staging")] },
    [PAGE1]: { body: makeHistory(ROWS) },
    ...routes,
  });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/history" element={<HistoryPage />} />
    </Routes>,
    { route: "/history" },
  );
  const calls = (key: string) => server.requests.filter((r) => `${r.method} ${r.url}` === key);
  return { ...server, user, calls };
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

function cellsOf(row: HTMLElement): string[] {
  return within(row)
    .getAllByRole("cell")
    .map((c) => c.textContent ?? "");
}

describe("HistoryPage", () => {
  it("loads the first page of 50 and shows every column", async () => {
    const { calls } = renderHistory();
    const table = await screen.findByTestId("history-table");
    expect(screen.getByRole("heading", { name: "Request History" })).toBeInTheDocument();
    expect(calls(PAGE1)).toHaveLength(1);

    const headers = within(table)
      .getAllByRole("columnheader")
      .map((h) => h.textContent);
    expect(headers).toEqual(["Property", "Valuation", "Status", "Response Time", "API Key", "Timestamp", "Actions"]);

    const rows = screen.getAllByTestId("history-row");
    expect(rows).toHaveLength(5);
    const [first, second, third] = rows.map(cellsOf);
    expect(first?.slice(0, 6)).toEqual([
      "2114 Bigelow Ave N, Seattle, WA 98109",
      "$987,400",
      "Success200",
      "142 ms",
      "Dashboard",
      formatTimestamp("2026-02-03T10:04:05Z"),
    ]);
    expect(second?.slice(0, 5)).toEqual(["1 Main St, Austin, TX 78701", "—", "Error404", "1,234 ms", "Production"]);
    // No address: a dash, and the service says what the call was.
    expect(third?.[0]).toBe("—Person lookup");
    expect(third?.[4]).toBe("Staging");
  });

  it("shows a response time under a millisecond as '<1 ms' in the table and the details, never '0 ms'", async () => {
    const fast = makeEntry({ id: 7, responseTimeMs: 0, requestId: "req-7" });
    const { user } = renderHistory({ [PAGE1]: { body: makeHistory([fast]) } });
    const [row] = await screen.findAllByTestId("history-row");
    expect(cellsOf(row!)[3]).toBe("<1 ms");
    await user.click(within(row!).getByRole("button", { name: "View details" }));
    const dialog = await screen.findByTestId("history-details");
    expect(within(dialog).getByText("Response Time").nextElementSibling).toHaveTextContent("<1 ms");
    expect(screen.queryByText("0 ms")).not.toBeInTheDocument();
  });

  it("labels a row Success for 200-299 and Error otherwise", async () => {
    renderHistory();
    const rows = await screen.findAllByTestId("history-row");
    const badges = rows.map((r) => within(r).getAllByRole("cell")[2]?.textContent);
    expect(badges).toEqual(["Success200", "Error404", "Error500", "Success204", "Error302"]);
  });

  it("lists All Keys, Dashboard and every key name, and sends the filters to the server on Search", async () => {
    const filtered = "GET /api/usage/history?page=1&limit=50&search=Main+St&apiKey=Production&status=error";
    const { user, calls } = renderHistory({ [filtered]: { body: makeHistory([ROWS[1]!]) } });
    await screen.findByTestId("history-table");

    await user.type(screen.getByLabelText("Search Address"), "Main St");
    await user.click(screen.getByLabelText("API Key"));
    const options = (await screen.findAllByRole("option")).map((o) => o.textContent);
    expect(options).toEqual(["All Keys", "Dashboard", "Production", "Staging"]);
    await user.click(screen.getByRole("option", { name: "Production" }));
    await user.click(screen.getByLabelText("Status"));
    await user.click(await screen.findByRole("option", { name: "Error" }));

    // Nothing is sent before Search.
    expect(calls(filtered)).toHaveLength(0);
    await user.click(screen.getByRole("button", { name: "Search" }));

    await waitFor(() => expect(calls(filtered)).toHaveLength(1));
    await waitFor(() => expect(screen.getAllByTestId("history-row")).toHaveLength(1));
    expect(screen.getByTestId("history-row")).toHaveTextContent("1 Main St, Austin, TX 78701");
  });

  it("still offers All Keys and Dashboard when the key list cannot be read", async () => {
    const { user } = renderHistory({ [KEYS]: { status: 500, body: errorBody("Internal error", { code: "internal" }) } });
    await screen.findByTestId("history-table");
    expect(await screen.findByText("Failed to fetch API keys")).toBeInTheDocument();
    await user.click(screen.getByLabelText("API Key"));
    const options = (await screen.findAllByRole("option")).map((o) => o.textContent);
    expect(options).toEqual(["All Keys", "Dashboard"]);
  });

  it("filters the loaded page on the client too, with the same rule", async () => {
    // A server that ignores the filters: the screen still shows only the matching rows.
    const dashboardOnly = "GET /api/usage/history?page=1&limit=50&apiKey=dashboard&status=success";
    const { user } = renderHistory({ [dashboardOnly]: { body: makeHistory(ROWS) } });
    await screen.findByTestId("history-table");

    await user.click(screen.getByLabelText("API Key"));
    await user.click(await screen.findByRole("option", { name: "Dashboard" }));
    await user.click(screen.getByLabelText("Status"));
    await user.click(await screen.findByRole("option", { name: "Success" }));
    await user.click(screen.getByRole("button", { name: "Search" }));

    await waitFor(() => expect(screen.getAllByTestId("history-row")).toHaveLength(2));
    const addresses = screen.getAllByTestId("history-row").map((r) => cellsOf(r)[0]);
    expect(addresses).toEqual(["2114 Bigelow Ave N, Seattle, WA 98109", "9 Elm St, Reno, NV"]);
  });

  it("says so when nothing matches the filters and clears them", async () => {
    const none = "GET /api/usage/history?page=1&limit=50&search=nowhere";
    const { user, calls } = renderHistory({ [none]: { body: makeHistory([]) } });
    await screen.findByTestId("history-table");
    await user.type(screen.getByLabelText("Search Address"), "nowhere");
    await user.click(screen.getByRole("button", { name: "Search" }));
    expect(await screen.findByText("No matching requests")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Clear filters" }));
    await screen.findByTestId("history-table");
    expect(screen.getByLabelText("Search Address")).toHaveValue("");
    expect(calls(PAGE1).length).toBeGreaterThanOrEqual(1);
  });

  it("shows up to five page buttons around the current page and fetches the chosen page", async () => {
    const many = Array.from({ length: 50 }, (_, i) => makeEntry({ id: 1000 + i, requestId: `p1-${i}` }));
    const page3 = Array.from({ length: 50 }, (_, i) =>
      makeEntry({ id: 3000 + i, propertyAddress: `${i} Page Three Rd`, requestId: `p3-${i}` }),
    );
    const page4 = [makeEntry({ id: 4000, propertyAddress: "Last page Ln" })];
    const { user, calls } = renderHistory({
      [PAGE1]: { body: makeHistory(many, { page: 1, total: 230 }) },
      "GET /api/usage/history?page=3&limit=50": { body: makeHistory(page3, { page: 3, total: 230 }) },
      "GET /api/usage/history?page=4&limit=50": { body: makeHistory(page4, { page: 4, total: 230 }) },
    });
    const nav = await screen.findByTestId("history-pagination");
    const pageButtons = () =>
      within(screen.getByTestId("history-pagination"))
        .getAllByRole("button", { name: /^Page \d+$/ })
        .map((b) => b.textContent);

    expect(nav).toHaveTextContent("Showing 1–50 of 230");
    expect(pageButtons()).toEqual(["1", "2", "3", "4", "5"]);
    expect(within(nav).getByRole("button", { name: "Previous page" })).toBeDisabled();
    expect(within(nav).getByRole("button", { name: "Page 1" })).toHaveAttribute("aria-current", "page");

    await user.click(within(nav).getByRole("button", { name: "Page 3" }));
    await waitFor(() => expect(screen.getByTestId("history-pagination")).toHaveTextContent("Showing 101–150 of 230"));
    expect(calls("GET /api/usage/history?page=3&limit=50")).toHaveLength(1);
    expect(screen.getAllByTestId("history-row")[0]).toHaveTextContent("0 Page Three Rd");
    expect(pageButtons()).toEqual(["1", "2", "3", "4", "5"]);

    await user.click(screen.getByRole("button", { name: "Next page" }));
    await waitFor(() => expect(screen.getByTestId("history-pagination")).toHaveTextContent("Showing 151–200 of 230"));
    expect(pageButtons()).toEqual(["1", "2", "3", "4", "5"]);
    expect(screen.getByRole("button", { name: "Page 4" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("button", { name: "Previous page" })).toBeEnabled();
  });

  it("shows every field of a call in the details dialog", async () => {
    const { user } = renderHistory();
    const rows = await screen.findAllByTestId("history-row");
    await user.click(within(rows[1]!).getByRole("button", { name: "View details" }));

    const dialog = await screen.findByTestId("history-details");
    const text = dialog.textContent ?? "";
    for (const want of [
      "1 Main St, Austin, TX 78701",
      "GET /api/v1/property/valuation",
      "Property valuation",
      "req-2",
      "Error404",
      "1,234 ms",
      "Production",
      formatTimestamp("2026-02-02T08:00:00Z"),
    ]) {
      expect(text).toContain(want);
    }
    expect(within(dialog).getByText("Credits Used").nextElementSibling).toHaveTextContent("0");
    expect(within(dialog).getByText("Valuation").nextElementSibling).toHaveTextContent("—");
    expect(within(dialog).getByTestId("history-request-data").textContent).toBe(
      JSON.stringify({ address: "1 Main St", city: "Austin", state: "TX", zip: "78701" }, null, 2),
    );

    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByTestId("history-details")).not.toBeInTheDocument());
  });

  it.each(["Escape", "the X"])("names the details dialog and gives focus back to the row's button on %s", async (way) => {
    const { user } = renderHistory();
    const rows = await screen.findAllByTestId("history-row");
    const opener = within(rows[1]!).getByRole("button", { name: "View details" });
    await user.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Request details" });
    expect(dialog).toHaveAccessibleDescription("1 Main St, Austin, TX 78701");
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    if (way === "Escape") await user.keyboard("{Escape}");
    else await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("exports the rows shown as CSV, protected against formulas", async () => {
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return "blob:history";
    });
    // jsdom has no object URLs: stand them in for this test only.
    const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = vi.fn();
    onTestFinished(() => {
      URL.createObjectURL = original.create;
      URL.revokeObjectURL = original.revoke;
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const evil = makeEntry({ id: 9, propertyAddress: "=HYPERLINK(\"http://x\")", apiKeyName: "+cmd", requestId: "req-9" });
    const { user } = renderHistory({ [PAGE1]: { body: makeHistory([ROWS[0]!, evil]) } });
    await screen.findByTestId("history-table");

    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(await screen.findByText("Export Started")).toBeInTheDocument();
    expect(click).toHaveBeenCalledTimes(1);
    const link = click.mock.contexts[0] as HTMLAnchorElement;
    expect(link.download).toMatch(/^usage-history-\d+\.csv$/);
    expect(blobs).toHaveLength(1);
    expect(blobs[0]!.type).toBe("text/csv;charset=utf-8");
    const lines = (await readBlob(blobs[0]!)).split("\r\n");
    expect(lines[0]).toMatch(/^Timestamp,Property,Valuation,Status/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('"2114 Bigelow Ave N, Seattle, WA 98109",987400,Success,200');
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(lines[2]).toContain(",'+cmd,");
  });

  it("says there is nothing to export when no rows are shown", async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const none = "GET /api/usage/history?page=1&limit=50&status=error";
    const { user } = renderHistory({ [none]: { body: makeHistory([]) } });
    await screen.findByTestId("history-table");
    await user.click(screen.getByLabelText("Status"));
    await user.click(await screen.findByRole("option", { name: "Error" }));
    await user.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("No matching requests");

    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(await screen.findByText("No Data")).toBeInTheDocument();
    expect(screen.getByText("No usage history available to export")).toBeInTheDocument();
    expect(click).not.toHaveBeenCalled();
  });

  it("offers Retry on every failed row that can be retried, and says why on one that cannot", async () => {
    renderHistory();
    const rows = await screen.findAllByTestId("history-row");
    const retryable = rows.map((r) => within(r).queryByRole("button", { name: "Retry" }) !== null);
    // Success, failed valuation, failed person lookup recorded without city and state, success (204), failed
    // valuation (302).
    expect(retryable).toEqual([false, true, false, false, true]);
    // The person lookup is a failed row: it is not left blank, it says why it cannot be retried.
    const why = within(rows[2]!).getByTestId("retry-unavailable");
    expect(why).toHaveAccessibleName(expect.stringMatching(/^Cannot retry: .*Person Lookup/));
    expect(why).toHaveAttribute("title", expect.stringContaining("name, city and state"));
    // Every failed row has either a Retry or a reason; a successful row has neither.
    for (const [i, row] of rows.entries()) {
      const failed = [1, 2, 4].includes(i);
      const marks =
        within(row).queryAllByRole("button", { name: "Retry" }).length + within(row).queryAllByTestId("retry-unavailable").length;
      expect(marks).toBe(failed ? 1 : 0);
    }
  });

  it("offers Retry on failed person lookups and batch jobs too, not only on valuations", async () => {
    const person = makeEntry({
      id: 11,
      propertyAddress: "Jane Doe, Seattle, WA",
      valuation: null,
      responseStatus: 503,
      apiService: "person_lookup",
      endpoint: "POST /api/find-person",
      requestData: requestData({ name: "Jane Doe", city: "Seattle", state_code: "WA", purpose: "identity_verification" }),
      requestId: "req-11",
    });
    const job = makeEntry({
      id: 12,
      propertyAddress: "Batch #7 (homes.csv): 40 of 100 valued",
      valuation: null,
      responseStatus: 402,
      apiService: "batch",
      endpoint: "POST /api/jobs",
      requestData: requestData({ jobId: 7, fileName: "homes.csv", status: "failed" }),
      requestId: "batch-7",
    });
    const { user, calls } = renderHistory({
      [PAGE1]: { body: makeHistory([person, job]) },
      "POST /api/find-person": { body: { data: { name: "Jane Q. Doe" } } },
      "POST /api/jobs/7/retry": { body: { id: 7, fileName: "homes.csv", status: "pending" } },
    });
    const rows = await screen.findAllByTestId("history-row");
    expect(rows[0]).toHaveTextContent("Person lookup");
    expect(rows[1]).toHaveTextContent("Batch upload");

    await user.click(within(rows[0]!).getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Person Found")).toBeInTheDocument();
    expect(calls("POST /api/find-person")[0]?.body).toEqual({
      name: "Jane Doe",
      city: "Seattle",
      state_code: "WA",
      purpose: "identity_verification",
    });
    await waitFor(() => expect(within(rows[1]!).getByRole("button", { name: "Retry" })).toBeEnabled());

    await user.click(within(rows[1]!).getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Job Restarted")).toBeInTheDocument();
    expect(screen.getByText("homes.csv is queued again.")).toBeInTheDocument();
    expect(calls("POST /api/jobs/7/retry")).toHaveLength(1);
  });

  it("tells the server's reason when a batch job cannot be retried", async () => {
    const job = makeEntry({
      id: 12,
      responseStatus: 500,
      apiService: "batch",
      endpoint: "POST /api/jobs",
      requestData: requestData({ jobId: 7, fileName: "homes.csv", status: "failed" }),
    });
    const { user } = renderHistory({
      [PAGE1]: { body: makeHistory([job]) },
      "POST /api/jobs/7/retry": { status: 409, body: errorBody("This job's rows were deleted; upload the file again", { code: "conflict" }) },
    });
    const [row] = await screen.findAllByTestId("history-row");
    await user.click(within(row!).getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Retry Failed")).toBeInTheDocument();
    expect(screen.getByText("This job's rows were deleted; upload the file again")).toBeInTheDocument();
  });

  it("says in the details why a failed row cannot be retried", async () => {
    const { user } = renderHistory();
    const rows = await screen.findAllByTestId("history-row");
    await user.click(within(rows[2]!).getByRole("button", { name: "View details" }));
    const dialog = await screen.findByTestId("history-details");
    expect(within(dialog).getByTestId("history-retry-reason")).toHaveTextContent(/name, city and state/);
  });

  it("retries a failed lookup, tells the value, refreshes the balance and refetches the history", async () => {
    const { user, calls } = renderHistory({
      [LOOKUP]: {
        body: {
          data: {
            property: { formattedAddress: "1 Main St, Austin, TX 78701" },
            valuation: { estimatedValue: 512_300 },
          },
        },
      },
    });
    const rows = await screen.findAllByTestId("history-row");
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(1));
    expect(calls(PAGE1)).toHaveLength(1);

    await user.click(within(rows[1]!).getByRole("button", { name: "Retry" }));

    expect(await screen.findByText("Lookup Succeeded")).toBeInTheDocument();
    expect(screen.getByText("1 Main St, Austin, TX 78701: $512,300")).toBeInTheDocument();
    expect(calls(LOOKUP)).toHaveLength(1);
    expect(calls(LOOKUP)[0]?.body).toEqual({ address: "1 Main St", city: "Austin", state: "TX", zip: "78701" });
    await waitFor(() => expect(calls(PAGE1)).toHaveLength(2));
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(2));
  });

  it("tells the server's reason when a retried lookup fails, and still refetches", async () => {
    const { user, calls } = renderHistory({
      [LOOKUP]: { status: 402, body: errorBody("Not enough credits: balance 0", { code: "insufficient_credits" }) },
    });
    const rows = await screen.findAllByTestId("history-row");
    await user.click(within(rows[4]!).getByRole("button", { name: "Retry" }));

    expect(await screen.findByText("Lookup Failed")).toBeInTheDocument();
    expect(screen.getByText("Not enough credits: balance 0")).toBeInTheDocument();
    expect(calls(LOOKUP)[0]?.body).toEqual({ address: "2114 Bigelow Ave N", city: "Seattle", state: "WA", zip: "98109" });
    await waitFor(() => expect(calls(PAGE1)).toHaveLength(2));
  });

  it("shows a spinner, then the error with a Retry that fetches again", async () => {
    let fail = true;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { user, calls } = renderHistory({
      [PAGE1]: async () => {
        await held;
        return fail ? { status: 500, body: errorBody("Internal error", { code: "internal" }) } : { body: makeHistory(ROWS) };
      },
    });
    expect(await screen.findByRole("status", { name: "Loading request history" })).toBeInTheDocument();
    release();

    expect(await screen.findByRole("alert")).toHaveTextContent("Failed to fetch usage history");
    // The toast says it too.
    await waitFor(() => expect(screen.getAllByText("Failed to fetch usage history")).toHaveLength(2));

    fail = false;
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByTestId("history-table")).toBeInTheDocument();
    expect(calls(PAGE1)).toHaveLength(2);
  });

  it("shows the empty state with links to Property Lookup and API Keys", async () => {
    renderHistory({ [PAGE1]: { body: makeHistory([]) } });
    expect(await screen.findByText("No requests yet")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Look up a property" })).toHaveAttribute("href", "/property-lookup");
    expect(screen.getByRole("link", { name: "Create an API key" })).toHaveAttribute("href", "/api-keys");
    expect(screen.queryByTestId("history-table")).not.toBeInTheDocument();
    expect(screen.queryByTestId("history-pagination")).not.toBeInTheDocument();
  });
});
