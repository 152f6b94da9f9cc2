import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import type { User } from "@/lib/types";
import { BatchUploadPage } from "./batch-upload-page";
import type { BatchJob } from "./batch-types";
import { formatDateTime, MAX_FILE_BYTES } from "./batch-helpers";
import { makeJob, makePreview, makeResult, makeResultsPage } from "./test-fixtures";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  dismissToasts();
});

const PROFILE = "GET /api/user/profile";
const JOBS = "GET /api/jobs";
const PREVIEW = "POST /api/jobs/preview";
const CREATE = "POST /api/jobs";
const EXAMPLE = "GET /api/batch/example.csv";

interface RenderOptions {
  routes?: Record<string, FakeRoute>;
  user?: Partial<User>;
}

function renderBatch({ routes = {}, user: userOverrides = {} }: RenderOptions = {}) {
  localStorage.setItem("token", "tok-1");
  const server = mockFetch({
    [PROFILE]: { body: makeUser({ plan: "basic", credits: 500, ...userOverrides }) },
    [JOBS]: { body: [] },
    ...routes,
  });
  const user = userEvent.setup();
  renderWithProviders(
    <Routes>
      <Route path="/batch-upload" element={<BatchUploadPage />} />
    </Routes>,
    { route: "/batch-upload" },
  );
  const calls = (key: string) => server.requests.filter((r) => `${r.method} ${r.url}` === key);
  return { ...server, user, calls };
}

function csvFile(name = "portfolio.csv", content = "address,city,state,zip\n1 Main St,Austin,TX,78701\n"): File {
  return new File([content], name, { type: "text/csv" });
}

/** Drops files on the zone as a browser would. */
function dropFile(file: File) {
  fireEvent.drop(screen.getByTestId("drop-zone"), { dataTransfer: { files: [file], types: ["Files"] } });
}

/** Stands in object URLs (jsdom has none) and catches the download link's click. */
function catchDownloads() {
  const blobs: Blob[] = [];
  const original = { create: URL.createObjectURL, revoke: URL.revokeObjectURL };
  URL.createObjectURL = vi.fn((b: Blob) => {
    blobs.push(b);
    return "blob:batch";
  });
  URL.revokeObjectURL = vi.fn();
  onTestFinished(() => {
    URL.createObjectURL = original.create;
    URL.revokeObjectURL = original.revoke;
  });
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
  const names = () => click.mock.contexts.map((a) => (a as HTMLAnchorElement).download);
  return { blobs, click, names };
}

/** The mapping select of a column (its trigger is named "Type of column <header>"). */
function typeSelect(column: string) {
  return screen.getByRole("combobox", { name: `Type of column ${column}` });
}

async function chooseType(user: ReturnType<typeof userEvent.setup>, column: string, label: string) {
  await user.click(typeSelect(column));
  await user.click(await screen.findByRole("option", { name: label }));
}

function rowOf(fileName: string): HTMLElement {
  const row = screen.getAllByTestId("job-row").find((r) => within(r).queryByText(fileName) !== null);
  if (!row) throw new Error(`no row for ${fileName}`);
  return row;
}

async function toMapping(routes: Record<string, FakeRoute> = {}, options: Omit<RenderOptions, "routes"> = {}) {
  const ctx = renderBatch({ routes: { [PREVIEW]: { body: makePreview() }, ...routes }, ...options });
  await screen.findByTestId("drop-zone");
  await ctx.user.upload(screen.getByTestId("file-input"), csvFile());
  await screen.findByRole("heading", { name: "Address Field Mapping" });
  return ctx;
}

describe("BatchUploadPage: upload", () => {
  it("shows the zone with the plan's limits, Download Examples and an empty queue", async () => {
    renderBatch();
    expect(screen.getByRole("heading", { name: "Batch Upload" })).toBeInTheDocument();
    const zone = screen.getByTestId("drop-zone");
    expect(zone).toHaveAccessibleName("Drag and drop your file here, or click to browse");
    // The limit comes from the plan (basic) once the profile is read, with the next plan's beside it.
    await waitFor(() =>
      expect(zone).toHaveAccessibleDescription(
        "CSV or Excel files (.csv, .xlsx, .xls), up to 50MB. Your Basic plan: up to 1,000 properties per upload (Professional: 10,000).",
      ),
    );
    expect(screen.getByRole("button", { name: "Download Examples" })).toBeInTheDocument();
    expect(screen.getByTestId("file-input")).toHaveAttribute("accept", expect.stringContaining(".csv,.xlsx,.xls"));
    expect(await screen.findByText("No batch jobs yet")).toBeInTheDocument();
  });

  it.each([
    ["free", "Your Free plan: up to 100 properties per upload (Basic: 1,000)."],
    ["professional", "Your Professional plan: up to 10,000 properties per upload (Enterprise: 50,000)."],
    ["enterprise", "Your Enterprise plan: up to 50,000 properties per upload."],
  ] as const)("states the %s plan's limit and the next plan's", async (plan, line) => {
    renderBatch({ user: { plan } });
    await waitFor(() => expect(screen.getByTestId("batch-plan-limit")).toHaveTextContent(line));
    expect(screen.getByTestId("drop-zone")).toHaveAccessibleDescription(expect.stringContaining(line));
  });

  it("opens the file chooser from the keyboard", async () => {
    const { user } = renderBatch();
    const click = vi.spyOn(screen.getByTestId("file-input"), "click");
    // Download Examples, then the zone: it is in the tab order.
    await user.tab();
    expect(screen.getByRole("button", { name: "Download Examples" })).toHaveFocus();
    await user.tab();
    expect(screen.getByTestId("drop-zone")).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(click).toHaveBeenCalledTimes(1);
    await user.keyboard(" ");
    expect(click).toHaveBeenCalledTimes(2);
  });

  it("refuses a file of another type before sending it", async () => {
    const { calls } = renderBatch();
    dropFile(new File(["%PDF"], "portfolio.pdf", { type: "application/pdf" }));
    expect(await screen.findByText("Invalid File Type")).toBeInTheDocument();
    expect(screen.getByText("Please upload a CSV or Excel file")).toBeInTheDocument();
    expect(calls(PREVIEW)).toHaveLength(0);
  });

  it("refuses a file over 50MB before sending it", async () => {
    const { user, calls } = renderBatch();
    const big = csvFile("big.xlsx");
    Object.defineProperty(big, "size", { value: MAX_FILE_BYTES + 1 });
    await user.upload(screen.getByTestId("file-input"), big);
    expect(await screen.findByText("File Too Large")).toBeInTheDocument();
    expect(screen.getByText("Please upload a file smaller than 50MB")).toBeInTheDocument();
    expect(calls(PREVIEW)).toHaveLength(0);
  });

  it("sends the file as multipart, says it is reading, then shows the detected mapping", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { user, fetchMock } = renderBatch({
      routes: {
        [PREVIEW]: async () => {
          await held;
          return { body: makePreview() };
        },
      },
    });
    const file = csvFile();
    dropFile(file);
    expect(await screen.findByText("Reading file…")).toBeInTheDocument();
    // Unavailable while the file is read, but not disabled: focus stays on it instead of falling to the body.
    expect(screen.getByTestId("drop-zone")).toHaveAttribute("aria-disabled", "true");

    const call = fetchMock.mock.calls.find(([url]) => url === "/api/jobs/preview");
    const init = call?.[1];
    expect(init?.method).toBe("POST");
    expect(init?.headers).toEqual({ Authorization: "Bearer tok-1" });
    expect(init?.body).toBeInstanceOf(FormData);
    const sent = (init?.body as FormData).get("file");
    expect(sent).toBeInstanceOf(File);
    expect((sent as File).name).toBe("portfolio.csv");

    release();
    const heading = await screen.findByRole("heading", { name: "Address Field Mapping" });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(screen.queryByTestId("drop-zone")).not.toBeInTheDocument();
    expect(screen.getByTestId("mapping-file-name")).toHaveTextContent("portfolio.csv");
    expect(screen.getByTestId("mapping-row-count")).toHaveTextContent("250 properties");

    const rows = screen.getAllByTestId("mapping-row");
    expect(rows.map((r) => within(r).getByRole("rowheader").textContent)).toEqual([
      "Property Address",
      "City",
      "ST",
      "Zip",
      "List Price",
    ]);
    expect(typeSelect("Property Address")).toHaveTextContent("Street Address");
    expect(typeSelect("City")).toHaveTextContent("City");
    expect(typeSelect("ST")).toHaveTextContent("State");
    expect(typeSelect("Zip")).toHaveTextContent("ZIP Code");
    expect(typeSelect("List Price")).toHaveTextContent("Ignore");
    expect(within(rows[0]!).getByTestId("mapping-detected")).toHaveTextContent("Street Address90%");
    expect(within(rows[4]!).getByTestId("mapping-detected")).toHaveTextContent("Unknown10%");
    // Up to three sample values, blanks skipped.
    expect(within(rows[0]!).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "2114 Bigelow Ave N",
      "1 Main St",
      "9 Elm St",
    ]);
    expect(screen.getByRole("button", { name: "Confirm Mapping & Process" })).toBeEnabled();
    expect(screen.getByTestId("credits-note")).toHaveTextContent(
      "Each property valued costs 1 credit, up to 250 credits for this file. You have 500 credits.",
    );

    // Back to Upload returns to the zone, which takes the focus.
    await user.click(screen.getByRole("button", { name: "Back to Upload" }));
    expect(await screen.findByTestId("drop-zone")).toHaveFocus();
  });

  it("shows the server's own title and message when it cannot read the file", async () => {
    renderBatch({
      routes: {
        [PREVIEW]: {
          status: 400,
          body: errorBody("The uploaded file contains no data rows", { code: "empty_file", title: "Empty File" }),
        },
      },
    });
    dropFile(csvFile());
    expect(await screen.findByText("Empty File")).toBeInTheDocument();
    expect(screen.getByText("The uploaded file contains no data rows")).toBeInTheDocument();
    expect(screen.getByTestId("drop-zone")).toBeEnabled();
    expect(screen.queryByText("Address Field Mapping")).not.toBeInTheDocument();
  });

  it("shows the server's 'Invalid File Type' when the content is not a spreadsheet (415)", async () => {
    const message = "This file does not look like a CSV text file. Please upload a CSV or Excel file.";
    const { calls } = renderBatch({
      routes: {
        [PREVIEW]: {
          status: 415,
          body: errorBody(message, { code: "invalid_file_type", field: "file", fields: { file: message }, title: "Invalid File Type" }),
        },
      },
    });
    dropFile(csvFile("renamed-binary.csv"));
    expect(await screen.findByText("Invalid File Type")).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    expect(calls(PREVIEW)).toHaveLength(1);
    expect(screen.getByTestId("drop-zone")).toBeEnabled();
    expect(screen.queryByText("Address Field Mapping")).not.toBeInTheDocument();
  });

  it("falls back to a generic title when the server gives none", async () => {
    renderBatch({ routes: { [PREVIEW]: { status: 500 } } });
    dropFile(csvFile());
    expect(await screen.findByText("Upload Failed")).toBeInTheDocument();
    expect(screen.getByText("The file could not be read. Please try again.")).toBeInTheDocument();
  });

  it("uses the plan limit the server stated once a file was read", async () => {
    const { user } = await toMapping({ [PREVIEW]: { body: makePreview({ planLimit: 2_500 }) } });
    await user.click(screen.getByRole("button", { name: "Back to Upload" }));
    expect(await screen.findByTestId("drop-zone")).toHaveAccessibleDescription(
      expect.stringContaining("Your Basic plan: up to 2,500 properties per upload (Professional: 10,000)"),
    );
  });

  it("downloads the example file", async () => {
    const downloads = catchDownloads();
    const { user, calls } = renderBatch({ routes: { [EXAMPLE]: { body: "address,city\n" } } });
    await user.click(screen.getByRole("button", { name: "Download Examples" }));
    expect(await screen.findByText("Download Started")).toBeInTheDocument();
    expect(calls(EXAMPLE)).toHaveLength(1);
    expect(downloads.names()).toEqual(["valuator-batch-example.csv"]);
    expect(downloads.blobs[0]?.type).toBe("text/csv;charset=utf-8");
  });

  it("says so when the example cannot be downloaded", async () => {
    const downloads = catchDownloads();
    const { user } = renderBatch({ routes: { [EXAMPLE]: { status: 500 } } });
    await user.click(screen.getByRole("button", { name: "Download Examples" }));
    expect(await screen.findByText("Download Failed")).toBeInTheDocument();
    expect(downloads.click).not.toHaveBeenCalled();
  });
});

describe("BatchUploadPage: mapping", () => {
  it("offers a portfolio of the file's homes instead of a job, with the mapping as confirmed", async () => {
    const { user } = await toMapping();
    await chooseType(user, "List Price", "Square Feet");
    await user.click(screen.getByRole("button", { name: "Create Portfolio Instead" }));
    expect(screen.getByTestId("location")).toHaveTextContent(/^\/portfolios\?fromUpload=\d+$/);
  });

  it("clears a type from the column that had it when another column takes it", async () => {
    const { user } = await toMapping();
    await chooseType(user, "List Price", "City");
    expect(typeSelect("List Price")).toHaveTextContent("City");
    expect(typeSelect("City")).toHaveTextContent("Ignore");
    // Still valid: City moved, nothing went missing.
    expect(screen.getByRole("button", { name: "Confirm Mapping & Process" })).toBeEnabled();

    await chooseType(user, "List Price", "Ignore");
    expect(typeSelect("List Price")).toHaveTextContent("Ignore");
    expect(typeSelect("City")).toHaveTextContent("Ignore");
    const confirm = screen.getByRole("button", { name: "Confirm Mapping & Process" });
    expect(confirm).toBeDisabled();
    expect(screen.getByTestId("mapping-hint")).toHaveTextContent("Still missing: City.");
    expect(confirm).toHaveAccessibleDescription(expect.stringContaining("Still missing: City."));
  });

  it("keeps Confirm disabled with a hint until the mapping is valid", async () => {
    const preview = makePreview({
      mapping: { "Property Address": "ignore", City: "ignore", ST: "ignore", Zip: "ignore", "List Price": "ignore" },
      mappingValid: false,
    });
    const { user } = await toMapping({ [PREVIEW]: { body: preview } });
    const confirm = () => screen.getByRole("button", { name: "Confirm Mapping & Process" });
    expect(confirm()).toBeDisabled();
    expect(screen.getByTestId("mapping-hint")).toHaveTextContent(
      "Still missing: Street Address (or Street), City, State, ZIP Code.",
    );

    await chooseType(user, "Property Address", "Street");
    await chooseType(user, "City", "City");
    await chooseType(user, "ST", "State");
    expect(confirm()).toBeDisabled();
    expect(screen.getByTestId("mapping-hint")).toHaveTextContent("Still missing: ZIP Code.");

    await chooseType(user, "Zip", "ZIP Code");
    expect(confirm()).toBeEnabled();

    // A full address alone is enough too.
    await chooseType(user, "Zip", "Ignore");
    expect(confirm()).toBeDisabled();
    await chooseType(user, "List Price", "Full Address");
    expect(confirm()).toBeEnabled();
  });

  it("warns and keeps Confirm disabled when the file holds more rows than the plan allows", async () => {
    await toMapping({ [PREVIEW]: { body: makePreview({ rowCount: 1_200, planLimit: 1_000 }) } });
    expect(screen.getByTestId("plan-limit-warning")).toHaveTextContent(
      "This file has 1,200 properties, more than the 1,000 your plan allows per upload.",
    );
    expect(screen.getByRole("link", { name: "See plans" })).toHaveAttribute("href", "/billing");
    expect(screen.getByRole("button", { name: "Confirm Mapping & Process" })).toBeDisabled();
  });

  it("creates the job with the upload and the mapping, then goes back to the upload step", async () => {
    const created = makeJob({ id: 31, status: "pending", fileName: "portfolio.csv", totalProperties: 250, processedProperties: 0, successfulProperties: 0, failedProperties: 0, creditsUsed: 0, completedAt: null, startedAt: null });
    let listed: BatchJob[] = [];
    const { user, calls } = await toMapping({
      [CREATE]: () => {
        listed = [created];
        return { status: 201, body: created };
      },
      [JOBS]: () => ({ body: listed }),
    });
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(1));
    await chooseType(user, "List Price", "City");

    await user.click(screen.getByRole("button", { name: "Confirm Mapping & Process" }));

    expect(await screen.findByText("Upload Successful")).toBeInTheDocument();
    expect(screen.getByText("portfolio.csv: 250 properties queued for processing.")).toBeInTheDocument();
    expect(calls(CREATE)).toHaveLength(1);
    expect(calls(CREATE)[0]?.body).toEqual({
      uploadId: 77,
      mapping: { "Property Address": "address", City: "ignore", ST: "state", Zip: "zip", "List Price": "city" },
    });
    expect(await screen.findByTestId("drop-zone")).toBeInTheDocument();
    expect(screen.queryByText("Address Field Mapping")).not.toBeInTheDocument();
    // The new job shows in the queue, and the balance is read again.
    expect(await screen.findByTestId("job-row")).toHaveTextContent("portfolio.csv");
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(2));
  });

  it("tells the server's reason when the job cannot be created, and stays on the mapping", async () => {
    const { user, calls } = await toMapping(
      { [CREATE]: { status: 404, body: errorBody("This upload expired; please upload the file again", { code: "not_found" }) } },
      { user: { plan: "free", credits: 20 } },
    );
    await waitFor(() =>
      expect(screen.getByTestId("credits-note")).toHaveTextContent(
        "You have 20 credits; if they run out the job stops, and you can retry it after adding credits.",
      ),
    );
    await user.click(screen.getByRole("button", { name: "Confirm Mapping & Process" }));
    expect(await screen.findByText("Upload Failed")).toBeInTheDocument();
    expect(screen.getByText("This upload expired; please upload the file again")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Address Field Mapping" })).toBeInTheDocument();
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(2));
  });

  it("says 'Failed to create job' when the server gives no reason", async () => {
    const { user } = await toMapping({ [CREATE]: { status: 502 } });
    await user.click(screen.getByRole("button", { name: "Confirm Mapping & Process" }));
    expect(await screen.findByText("Upload Failed")).toBeInTheDocument();
    expect(screen.getByText("Failed to create job")).toBeInTheDocument();
  });
});

const QUEUE: BatchJob[] = [
  makeJob({ id: 1, fileName: "pending.csv", status: "pending", processedProperties: 0, successfulProperties: 0, failedProperties: 0, totalProperties: 40, startedAt: null, completedAt: null }),
  makeJob({ id: 2, fileName: "running.csv", status: "processing", processedProperties: 50, successfulProperties: 48, failedProperties: 2, totalProperties: 200, completedAt: null }),
  makeJob({ id: 3, fileName: "done.csv", status: "completed" }),
  makeJob({
    id: 4,
    fileName: "broke.csv",
    status: "failed",
    processedProperties: 30,
    successfulProperties: 30,
    failedProperties: 0,
    totalProperties: 120,
    statusMessage: "Out of credits: 30 of 120 properties valued. Add credits, then retry.",
    completedAt: null,
  }),
  makeJob({ id: 5, fileName: "stopped.csv", status: "cancelled", processedProperties: 0, successfulProperties: 0, failedProperties: 0, totalProperties: 10, completedAt: null }),
];

describe("BatchUploadPage: queue", () => {
  it("lists every job with its status, progress and actions", async () => {
    renderBatch({ routes: { [JOBS]: { body: QUEUE } } });
    const rows = await screen.findAllByTestId("job-row");
    expect(rows).toHaveLength(5);
    const table = screen.getByTestId("jobs-table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "File",
      "Started",
      "Properties",
      "Status",
      "Progress",
      "Actions",
    ]);

    const cells = within(rowOf("running.csv")).getAllByRole("cell");
    expect(cells[1]).toHaveTextContent(formatDateTime("2026-02-03T10:04:05Z"));
    expect(cells[2]).toHaveTextContent("200");

    const badges = rows.map((r) => within(r).getAllByRole("cell")[3]?.textContent);
    expect(badges).toEqual(["Pending", "Processing", "Completed", "Failed", "Cancelled"]);
    // Distinct colours per status.
    const classes = rows.map((r) => within(r).getAllByRole("cell")[3]?.firstElementChild?.className ?? "");
    expect(new Set(classes).size).toBe(5);

    // The bar shows for processing (rounded processed/total) and completed (100) jobs only.
    const bar = (name: string) => within(rowOf(name)).queryByRole("progressbar");
    expect(bar("running.csv")).toHaveAttribute("aria-valuenow", "25");
    expect(bar("running.csv")).toHaveAccessibleName("Progress of running.csv");
    expect(bar("done.csv")).toHaveAttribute("aria-valuenow", "100");
    expect(bar("pending.csv")).toBeNull();
    expect(bar("broke.csv")).toBeNull();
    expect(bar("stopped.csv")).toBeNull();
    expect(within(rowOf("running.csv")).getByTestId("job-processed")).toHaveTextContent("50 / 200");
    expect(within(rowOf("broke.csv")).getByTestId("job-processed")).toHaveTextContent("30 / 120");
    expect(within(rowOf("broke.csv")).getByTestId("job-status-message")).toHaveTextContent("Out of credits");

    const actions = (name: string) =>
      within(rowOf(name))
        .getAllByRole("button")
        .map((b) => b.getAttribute("aria-label") ?? b.textContent);
    expect(actions("pending.csv")).toEqual(["Cancel", "View details"]);
    expect(actions("running.csv")).toEqual(["Cancel", "Download CSV", "Download XLSX", "View details"]);
    expect(actions("done.csv")).toEqual(["Download CSV", "Download XLSX", "View details"]);
    expect(actions("broke.csv")).toEqual(["Retry", "Download CSV", "Download XLSX", "View details"]);
    expect(actions("stopped.csv")).toEqual(["Retry", "View details"]);
  });

  it("reads the queue again every 3 seconds", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let reads = 0;
    const { calls } = renderBatch({
      routes: {
        [JOBS]: () => {
          reads += 1;
          return reads === 1
            ? { body: [QUEUE[1]!] }
            : { body: [{ ...QUEUE[1]!, processedProperties: 150, successfulProperties: 148 }] };
        },
      },
    });
    const bar = await screen.findByRole("progressbar");
    expect(bar).toHaveAttribute("aria-valuenow", "25");
    expect(calls(JOBS)).toHaveLength(1);

    await act(async () => {
      await vi.advanceTimersByTimeAsync(3000);
    });
    await waitFor(() => expect(screen.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "75"));
    expect(calls(JOBS)).toHaveLength(2);
    expect(screen.getByTestId("job-processed")).toHaveTextContent("150 / 200");
  });

  it("refreshes the balance when a running job stops", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let reads = 0;
    const { calls } = renderBatch({
      routes: {
        [JOBS]: () => {
          reads += 1;
          return { body: [reads === 1 ? QUEUE[1]! : { ...QUEUE[1]!, status: "completed" }] };
        },
      },
    });
    await screen.findByTestId("job-row");
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(1));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3000);
    });
    await waitFor(() => expect(within(screen.getByTestId("job-row")).getByText("Completed")).toBeInTheDocument());
    await waitFor(() => expect(calls(PROFILE)).toHaveLength(2));
  });

  it("says 'Failed to fetch jobs' and offers to try again", async () => {
    let fail = true;
    const { user, calls } = renderBatch({
      routes: { [JOBS]: () => (fail ? { status: 500, body: errorBody("Internal error", { code: "internal" }) } : { body: QUEUE }) },
    });
    expect(await screen.findByTestId("jobs-error")).toHaveTextContent("Failed to fetch jobs");
    // The toast says it too.
    await waitFor(() => expect(screen.getAllByText("Failed to fetch jobs")).toHaveLength(2));
    fail = false;
    await user.click(within(screen.getByTestId("jobs-error")).getByRole("button", { name: "Retry" }));
    expect(await screen.findAllByTestId("job-row")).toHaveLength(5);
    expect(calls(JOBS).length).toBeGreaterThanOrEqual(2);
  });

  it("cancels a job and shows it cancelled, with Retry", async () => {
    const cancelled = { ...QUEUE[1]!, status: "cancelled" as const };
    let listed = QUEUE;
    const { user, calls } = renderBatch({
      routes: {
        [JOBS]: () => ({ body: listed }),
        "POST /api/jobs/2/cancel": () => {
          listed = QUEUE.map((j) => (j.id === 2 ? cancelled : j));
          return { body: cancelled };
        },
      },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("running.csv")).getByRole("button", { name: "Cancel" }));
    expect(await screen.findByText("Job Cancelled")).toBeInTheDocument();
    expect(screen.getByText("running.csv was cancelled.")).toBeInTheDocument();
    expect(calls("POST /api/jobs/2/cancel")).toHaveLength(1);
    await waitFor(() => expect(within(rowOf("running.csv")).getAllByRole("cell")[3]).toHaveTextContent("Cancelled"));
    expect(within(rowOf("running.csv")).getByRole("button", { name: "Retry" })).toBeInTheDocument();
    expect(within(rowOf("running.csv")).queryByRole("button", { name: "Cancel" })).not.toBeInTheDocument();
    // The queue is read again after the change.
    await waitFor(() => expect(calls(JOBS).length).toBeGreaterThanOrEqual(2));
  });

  it("says 'Cancel Failed' when a job cannot be cancelled", async () => {
    const { user } = renderBatch({
      routes: { [JOBS]: { body: QUEUE }, "POST /api/jobs/1/cancel": { status: 500 } },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("pending.csv")).getByRole("button", { name: "Cancel" }));
    expect(await screen.findByText("Cancel Failed")).toBeInTheDocument();
    expect(screen.getByText("Failed to cancel job")).toBeInTheDocument();
  });

  it("retries a job", async () => {
    const { user, calls } = renderBatch({
      routes: { [JOBS]: { body: QUEUE }, "POST /api/jobs/5/retry": { body: { ...QUEUE[4]!, status: "pending" } } },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("stopped.csv")).getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Job Restarted")).toBeInTheDocument();
    expect(screen.getByText("stopped.csv is queued again.")).toBeInTheDocument();
    expect(calls("POST /api/jobs/5/retry")).toHaveLength(1);
  });

  it("says 'Retry Failed' with the server's reason when a job cannot be retried", async () => {
    const { user } = renderBatch({
      routes: {
        [JOBS]: { body: QUEUE },
        "POST /api/jobs/4/retry": {
          status: 402,
          body: errorBody("Insufficient credits: your balance is 0.", { code: "insufficient_credits" }),
        },
      },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("broke.csv")).getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Retry Failed")).toBeInTheDocument();
    expect(screen.getByText("Insufficient credits: your balance is 0.")).toBeInTheDocument();
  });

  it("says 'Failed to retry job' when the server gives no reason", async () => {
    const { user } = renderBatch({ routes: { [JOBS]: { body: QUEUE }, "POST /api/jobs/4/retry": { status: 500 } } });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("broke.csv")).getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Retry Failed")).toBeInTheDocument();
    expect(screen.getByText("Failed to retry job")).toBeInTheDocument();
  });

  it("downloads the results as CSV and XLSX", async () => {
    const downloads = catchDownloads();
    const { user, calls } = renderBatch({
      routes: {
        [JOBS]: { body: QUEUE },
        "GET /api/jobs/3/download?format=csv": { body: "Line,Address\r\n" },
        "GET /api/jobs/3/download?format=xlsx": { body: "PK" },
      },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("done.csv")).getByRole("button", { name: "Download CSV" }));
    expect(await screen.findByText("Download Started")).toBeInTheDocument();
    expect(screen.getByText("Saved as done-results.csv")).toBeInTheDocument();
    expect(calls("GET /api/jobs/3/download?format=csv")).toHaveLength(1);
    expect(calls("GET /api/jobs/3/download?format=csv")[0]?.headers).toEqual({ Authorization: "Bearer tok-1" });

    await user.click(within(rowOf("done.csv")).getByRole("button", { name: "Download XLSX" }));
    await waitFor(() => expect(downloads.names()).toEqual(["done-results.csv", "done-results.xlsx"]));
    expect(calls("GET /api/jobs/3/download?format=xlsx")).toHaveLength(1);
  });

  it("says 'Download Failed' when the download fails", async () => {
    const downloads = catchDownloads();
    const { user } = renderBatch({
      routes: { [JOBS]: { body: QUEUE }, "GET /api/jobs/3/download?format=csv": { status: 500 } },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("done.csv")).getByRole("button", { name: "Download CSV" }));
    expect(await screen.findByText("Download Failed")).toBeInTheDocument();
    expect(screen.getByText("Failed to download report. Please try again.")).toBeInTheDocument();
    expect(downloads.click).not.toHaveBeenCalled();
  });

  it("says 'No Data' when a job has nothing to download", async () => {
    const downloads = catchDownloads();
    const empty = makeJob({ id: 8, fileName: "empty.csv", totalProperties: 0, processedProperties: 0, successfulProperties: 0, failedProperties: 0 });
    const deleted = makeJob({ id: 9, fileName: "old.csv", resultsAvailable: false });
    const { user, calls } = renderBatch({
      routes: {
        [JOBS]: { body: [empty, deleted, QUEUE[2]!] },
        "GET /api/jobs/3/download?format=csv": {
          status: 410,
          body: errorBody("This job's results were deleted 24 hours after it finished", { code: "results_deleted" }),
        },
      },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("empty.csv")).getByRole("button", { name: "Download CSV" }));
    expect(await screen.findByText("No Data")).toBeInTheDocument();
    expect(screen.getByText("No results available for download")).toBeInTheDocument();
    dismissToasts();

    await user.click(within(rowOf("old.csv")).getByRole("button", { name: "Download XLSX" }));
    expect(await screen.findByText("No results available for download")).toBeInTheDocument();
    expect(calls("GET /api/jobs/8/download?format=csv")).toHaveLength(0);
    expect(calls("GET /api/jobs/9/download?format=xlsx")).toHaveLength(0);
    dismissToasts();

    // The server's 410 (deleted meanwhile) reads the same.
    await user.click(within(rowOf("done.csv")).getByRole("button", { name: "Download CSV" }));
    await waitFor(() => expect(calls("GET /api/jobs/3/download?format=csv")).toHaveLength(1));
    expect(await screen.findByText("No results available for download")).toBeInTheDocument();
    expect(downloads.click).not.toHaveBeenCalled();
  });
});

describe("BatchUploadPage: details", () => {
  const page1 = Array.from({ length: 50 }, (_, i) =>
    makeResult({ line: i + 2, fullAddress: `${i + 1} First Page Rd, Austin, TX 78701` }),
  );
  const page2 = [
    makeResult({ line: 52, fullAddress: "52 Second Page Rd, Austin, TX 78701" }),
    makeResult({
      line: 53,
      fullAddress: "",
      address: "Nowhere Ln",
      status: "failed",
      estimatedValue: null,
      pricePerSqFt: null,
      bedrooms: null,
      bathrooms: null,
      squareFeet: null,
      yearBuilt: null,
      propertyType: null,
      rentEstimate: null,
      confidence: null,
      matchCode: null,
      reason: "not_found",
      error:
        "No property on record at this address. To value it anyway, add its propertyType and squareFeet (optionally bedrooms, bathrooms, yearBuilt, lotSize).",
    }),
  ];
  const R1 = "GET /api/jobs/3/results?page=1&limit=50";
  const R2 = "GET /api/jobs/3/results?page=2&limit=50";
  const FAILED = "GET /api/jobs/3/results?page=1&limit=50&status=failed";

  it("shows the job's summary and its results, a page at a time, filtered by status", async () => {
    const { user, calls } = renderBatch({
      routes: {
        [JOBS]: { body: QUEUE },
        [R1]: { body: makeResultsPage(page1, { page: 1, total: 52 }) },
        [R2]: { body: makeResultsPage(page2, { page: 2, total: 52 }) },
        [FAILED]: { body: makeResultsPage([page2[1]!], { page: 1, total: 1 }) },
      },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("done.csv")).getByRole("button", { name: "View details" }));

    const dialog = await screen.findByRole("dialog", { name: "Job details" });
    const summary = within(dialog).getByTestId("job-summary");
    const item = (label: string) => within(summary).getByText(label, { selector: "dt" }).nextElementSibling?.textContent;
    expect(item("Status")).toBe("Completed");
    expect(item("Total Properties")).toBe("200");
    expect(item("Successful")).toBe("190");
    expect(item("Failed")).toBe("10");
    expect(item("Success Rate")).toBe("95%");
    expect(item("Credits Used")).toBe("190");
    expect(item("Started")).toBe(formatDateTime("2026-02-03T10:04:06Z"));
    expect(item("Completed")).toBe(formatDateTime("2026-02-03T10:09:00Z"));
    expect(item("Source")).toBe("Dashboard");

    const table = await within(dialog).findByTestId("results-table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "Line",
      "Address",
      "Status",
      "Estimated Value",
      "Price/Sq Ft",
      "Beds",
      "Baths",
      "Sq Ft",
      "Year Built",
      "Type",
      "Rent Estimate",
      "Confidence",
      "Match Code",
      "Error",
    ]);
    expect(within(dialog).getAllByTestId("result-row")).toHaveLength(50);
    expect(
      within(within(dialog).getAllByTestId("result-row")[0]!)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual([
      "2",
      "1 First Page Rd, Austin, TX 78701",
      "Success",
      "$987,400",
      "$512",
      "3",
      "2.5",
      "1,928",
      "1998",
      "Single Family",
      "$3,900",
      "92%",
      "exact",
      "—",
    ]);
    const nav = within(dialog).getByTestId("results-pagination");
    expect(nav).toHaveTextContent("Showing 1–50 of 52");
    expect(within(nav).getByRole("button", { name: "Previous page" })).toBeDisabled();

    await user.click(within(nav).getByRole("button", { name: "Next page" }));
    await waitFor(() => expect(within(dialog).getAllByTestId("result-row")).toHaveLength(2));
    expect(calls(R2)).toHaveLength(1);
    expect(within(dialog).getByTestId("results-page")).toHaveTextContent("Page 2 of 2");
    expect(within(dialog).getByTestId("results-pagination")).toHaveTextContent("Showing 51–52 of 52");
    const failedCells = within(within(dialog).getAllByTestId("result-row")[1]!)
      .getAllByRole("cell")
      .map((c) => c.textContent);
    expect(failedCells.slice(0, 4)).toEqual(["53", "Nowhere Ln", "Failed", "—"]);
    // Why the row was not valued (not charged), then the server's sentence: what to add.
    expect(failedCells[13]).toBe(
      "Not found: No property on record at this address. To value it anyway, add its propertyType and squareFeet (optionally bedrooms, bathrooms, yearBuilt, lotSize).",
    );

    // A status filter starts again at page 1.
    await user.click(within(dialog).getByLabelText("Status"));
    await user.click(await screen.findByRole("option", { name: "Failed" }));
    await waitFor(() => expect(calls(FAILED)).toHaveLength(1));
    await waitFor(() => expect(within(dialog).getAllByTestId("result-row")).toHaveLength(1));
    expect(within(dialog).getByTestId("results-pagination")).toHaveTextContent("Showing 1–1 of 1");

    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("names the job details dialog and gives focus back to the row's button on Escape", async () => {
    const old = makeJob({ id: 9, fileName: "old.csv", resultsAvailable: false });
    const { user } = renderBatch({ routes: { [JOBS]: { body: [old] } } });
    await screen.findByTestId("job-row");
    const opener = screen.getByRole("button", { name: "View details" });
    await user.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Job details" });
    expect(dialog).toHaveAccessibleDescription("old.csv");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("says the results were deleted instead of reading them", async () => {
    const old = makeJob({ id: 9, fileName: "old.csv", resultsAvailable: false });
    const { user, calls } = renderBatch({ routes: { [JOBS]: { body: [old] } } });
    await screen.findByTestId("job-row");
    await user.click(screen.getByRole("button", { name: "View details" }));
    const dialog = await screen.findByRole("dialog", { name: "Job details" });
    expect(within(dialog).getByTestId("results-deleted")).toBeInTheDocument();
    expect(calls("GET /api/jobs/9/results?page=1&limit=50")).toHaveLength(0);
  });

  it("shows the owner the webhook's signing secret, hidden until shown, with a copy button", async () => {
    const secret = "whsec_0123456789abcdef0123456789abcdef01234567";
    const hooked = makeJob({ id: 5, fileName: "hooked.csv", webhookUrl: "https://hooks.example.com/valuator", webhookSecret: secret });
    const { user } = renderBatch({
      routes: {
        [JOBS]: { body: [hooked, makeJob({ id: 3, fileName: "done.csv" })] },
        "GET /api/jobs/5/results?page=1&limit=50": { body: makeResultsPage([]) },
        "GET /api/jobs/3/results?page=1&limit=50": { body: makeResultsPage([]) },
      },
    });
    // After userEvent.setup (in renderBatch), which puts a clipboard stub of its own in place.
    const writeText = vi.fn(async (_text: string) => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    await screen.findAllByTestId("job-row");
    // A job without a webhook has no such section.
    await user.click(within(rowOf("done.csv")).getByRole("button", { name: "View details" }));
    const plain = await screen.findByRole("dialog", { name: "Job details" });
    expect(within(plain).queryByTestId("job-webhook")).not.toBeInTheDocument();
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());

    await user.click(within(rowOf("hooked.csv")).getByRole("button", { name: "View details" }));
    const dialog = await screen.findByRole("dialog", { name: "Job details" });
    const webhook = within(dialog).getByTestId("job-webhook");
    expect(webhook).toHaveTextContent("https://hooks.example.com/valuator");
    expect(webhook).toHaveTextContent("X-Valuator-Signature");
    const shown = within(webhook).getByTestId("job-webhook-secret");
    expect(shown).not.toHaveTextContent(secret);
    expect(shown).toHaveTextContent(/^whsec_•+4567$/);

    await user.click(within(webhook).getByRole("button", { name: "Show webhook signing secret" }));
    expect(shown).toHaveTextContent(secret);
    await user.click(within(webhook).getByRole("button", { name: "Hide webhook signing secret" }));
    expect(shown).not.toHaveTextContent(secret);

    await user.click(within(webhook).getByRole("button", { name: "Copy webhook signing secret" }));
    expect(writeText).toHaveBeenCalledExactlyOnceWith(secret);
    expect(await screen.findByText("Webhook signing secret copied to clipboard")).toBeInTheDocument();
  });

  it("shows no success rate for a job that is not completed", async () => {
    const { user } = renderBatch({
      routes: {
        [JOBS]: { body: QUEUE },
        "GET /api/jobs/4/results?page=1&limit=50": { body: makeResultsPage([]) },
      },
    });
    await screen.findAllByTestId("job-row");
    await user.click(within(rowOf("broke.csv")).getByRole("button", { name: "View details" }));
    const dialog = await screen.findByRole("dialog", { name: "Job details" });
    expect(within(within(dialog).getByTestId("job-summary")).getByText("Success Rate").nextElementSibling).toHaveTextContent(
      "—",
    );
    expect(within(dialog).getByTestId("job-details-message")).toHaveTextContent("Out of credits");
    expect(await within(dialog).findByText("This job has no rows yet.")).toBeInTheDocument();
  });
});
