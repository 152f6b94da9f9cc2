import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { PLANS, planRateLimitLine } from "./api-key-helpers";
import { LIVE_EXAMPLE } from "@/test/example-fixture";
import type { ApiKey, User } from "@/lib/types";
import {
  dismissToasts,
  errorBody,
  makeUser,
  mockFetch,
  renderWithProviders,
  type FakeReply,
  type FakeRoute,
} from "@/test/utils";
import { SDK_CATALOG } from "@/test/sdk-fixture";
import { ApiKeysPage } from "./api-keys-page";

// The screen carries a large documentation section; the limit is for a stuck test, not a speed requirement.
vi.setConfig({ testTimeout: 20_000 });

const LIST = "GET /api/api-keys";
const CREATE = "POST /api/api-keys";

function makeKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: 7,
    name: "Production server",
    keyPreview: "vk_live_7Qm2…x9Ka",
    keyValue: "vk_live_7Qm2AbCdEfGhIjKlMnOpQrStUvWx9Ka",
    rateLimit: 100,
    effectiveRateLimit: 60,
    createdAt: "2026-01-21T10:00:00Z",
    lastUsedAt: "2026-02-03T18:30:00Z",
    ...overrides,
  };
}

const PROD = makeKey();
const STAGING = makeKey({
  id: 9,
  name: "Staging",
  keyPreview: "vk_live_Zz90…Lm3Q",
  keyValue: "vk_live_Zz90QwErTyUiOpAsDfGhJkLzXcVbLm3Q",
  rateLimit: 30,
  effectiveRateLimit: 30,
  createdAt: "2025-12-05T08:00:00Z",
  lastUsedAt: null,
});

let writeText: Mock<(text: string) => Promise<void>>;

beforeEach(() => {
  writeText = vi.fn(async () => {});
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
});

afterEach(() => {
  vi.unstubAllGlobals();
  dismissToasts();
});

/**
 * Renders the screen for a signed-in user. The list answers `state.keys`, which tests change to play the server;
 * extra routes override or add to it.
 */
async function renderPage(routes: Record<string, FakeRoute> = {}, { keys = [PROD, STAGING], user = makeUser() }: { keys?: ApiKey[]; user?: User } = {}) {
  localStorage.setItem("token", "tok-1");
  const state = { keys };
  const server = mockFetch({
    "GET /api/user/profile": { body: user },
    "GET /api/example": { body: LIVE_EXAMPLE },
    [LIST]: () => ({ body: state.keys }),
    ...routes,
  });
  renderWithProviders(<ApiKeysPage />, { route: "/api-keys" });
  await screen.findByRole("heading", { name: "API Keys", level: 1 });
  return { ...server, state };
}

const listReads = (requests: { method: string; url: string }[]) =>
  requests.filter((r) => r.method === "GET" && r.url === "/api/api-keys").length;

const rows = () => within(screen.getByTestId("api-keys-table")).getAllByTestId("api-key-row");
const toastItem = (title: string) => screen.getByText(title).closest("li")!;

async function openGenerate() {
  await userEvent.click(screen.getByRole("button", { name: "Generate New Key" }));
  return screen.findByRole("dialog", { name: "Generate New Key" });
}

async function fillAndSubmit(name: string, rateLimit?: string) {
  const dialog = await openGenerate();
  if (name) await userEvent.type(within(dialog).getByLabelText("Key Name"), name);
  if (rateLimit !== undefined) {
    const input = within(dialog).getByLabelText("Rate Limit (requests per minute)");
    await userEvent.clear(input);
    if (rateLimit) await userEvent.type(input, rateLimit);
  }
  await userEvent.click(within(dialog).getByRole("button", { name: "Generate Key" }));
  return dialog;
}

describe("the client libraries", () => {
  it("shows the install lines of the clients this server hosts, from GET /api/sdks", async () => {
    await renderPage({ "GET /api/sdks": { body: SDK_CATALOG } });
    const section = await screen.findByTestId("sdk-install");
    expect(await within(section).findByText(SDK_CATALOG.go.install)).toBeInTheDocument();
    expect(within(section).getByText(SDK_CATALOG.typescript.install)).toBeInTheDocument();
    expect(within(section).getByText(SDK_CATALOG.python!.install)).toBeInTheDocument();
  });
});

describe("the list of keys", () => {
  it("shows each key's name, masked key, limit, dates and 'Never', never the full key", async () => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    const [prod, staging] = rows() as [HTMLElement, HTMLElement];
    expect(rows()).toHaveLength(2);

    expect(within(prod).getByRole("rowheader")).toHaveTextContent("Production server");
    expect(within(prod).getByText("vk_live_7Qm2…x9Ka")).toBeInTheDocument();
    // The plan holds the key below its own limit: both are shown.
    expect(within(prod).getByText("100/min (60/min on your plan)")).toBeInTheDocument();
    expect(within(prod).getByText("Jan 21, 2026")).toBeInTheDocument();
    expect(within(prod).getByText("Feb 3, 2026")).toBeInTheDocument();

    expect(within(staging).getByText("vk_live_Zz90…Lm3Q")).toBeInTheDocument();
    expect(within(staging).getByText("30/min")).toBeInTheDocument();
    expect(within(staging).getByText("Dec 5, 2025")).toBeInTheDocument();
    expect(within(staging).getByText("Never")).toBeInTheDocument();

    const table = screen.getByTestId("api-keys-table");
    expect(table).not.toHaveTextContent(PROD.keyValue);
    expect(table).not.toHaveTextContent(STAGING.keyValue);
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "Name",
      "Key",
      "Rate Limit",
      "Created",
      "Last Used",
      "Actions",
    ]);
  });

  it("sends the session token when it reads the list", async () => {
    const { requests } = await renderPage();
    await screen.findByTestId("api-keys-table");
    const read = requests.find((r) => r.method === "GET" && r.url === "/api/api-keys");
    expect(read?.headers.Authorization).toBe("Bearer tok-1");
  });

  it("copies the full key, not the preview, and toasts 'Copied'", async () => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    await userEvent.click(screen.getByRole("button", { name: "Copy key Staging" }));

    expect(writeText).toHaveBeenCalledExactlyOnceWith(STAGING.keyValue);
    expect(await screen.findByText("Copied")).toBeInTheDocument();
    expect(within(toastItem("Copied")).getByText("API key copied to clipboard")).toBeInTheDocument();
  });

  it("says so when the browser refuses the clipboard", async () => {
    writeText.mockRejectedValueOnce(new Error("denied"));
    await renderPage();
    await screen.findByTestId("api-keys-table");
    await userEvent.click(screen.getByRole("button", { name: "Copy key Production server" }));
    expect(await screen.findByText("Copy Failed")).toBeInTheDocument();
    expect(screen.queryByText("Copied")).not.toBeInTheDocument();
  });

  it("shows the empty state, whose button opens the dialog", async () => {
    await renderPage({}, { keys: [] });
    expect(await screen.findByText("No API keys yet")).toBeInTheDocument();
    expect(screen.queryByTestId("api-keys-table")).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Generate Your First Key" }));
    expect(await screen.findByRole("dialog", { name: "Generate New Key" })).toBeInTheDocument();
  });

  it("at 20 keys, the most an account may have, disables Generate New Key and says why", async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => makeKey({ id: i + 1, name: `Key ${i + 1}` }));
    await renderPage({}, { keys: twenty });
    expect(await screen.findByTestId("api-keys-max")).toHaveTextContent("the most it can have");
    expect(screen.getByRole("button", { name: "Generate New Key" })).toBeDisabled();
  });

  it("below 20 keys, Generate New Key stays enabled without the note", async () => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    expect(screen.getByRole("button", { name: "Generate New Key" })).toBeEnabled();
    expect(screen.queryByTestId("api-keys-max")).not.toBeInTheDocument();
  });

  it("shows a spinner while the list loads", async () => {
    let answer!: (r: FakeReply) => void;
    await renderPage({ [LIST]: () => new Promise<FakeReply>((resolve) => (answer = resolve)) });
    expect(screen.getByRole("status", { name: "Loading API keys" })).toBeInTheDocument();

    answer({ body: [PROD] });
    expect(await screen.findByTestId("api-keys-table")).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Loading API keys" })).not.toBeInTheDocument();
  });

  it("shows 'Failed to fetch API keys' with a Retry that reads the list again", async () => {
    let fail = true;
    const { requests } = await renderPage({
      [LIST]: () => (fail ? { status: 500, body: { error: "Internal error", code: "internal", requestId: "r" } } : { body: [PROD] }),
    });
    const panel = await screen.findByTestId("api-keys-error");
    expect(panel).toHaveTextContent("Failed to fetch API keys");
    expect(panel).toHaveTextContent("Internal error");
    // The spec's toast, too.
    await waitFor(() => expect(screen.getAllByText("Failed to fetch API keys")).toHaveLength(2));

    fail = false;
    await userEvent.click(within(panel).getByRole("button", { name: "Retry" }));
    expect(await screen.findByTestId("api-keys-table")).toBeInTheDocument();
    expect(rows()).toHaveLength(1);
    expect(listReads(requests)).toBe(2);
  });
});

describe("Generate New Key", () => {
  it("asks for a key name, also when only spaces were typed", async () => {
    const { requests } = await renderPage();
    const dialog = await fillAndSubmit("");
    expect(await within(dialog).findByText("Please enter a key name")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Key Name")).toHaveAttribute("aria-invalid", "true");

    await userEvent.type(within(dialog).getByLabelText("Key Name"), "   ");
    await userEvent.click(within(dialog).getByRole("button", { name: "Generate Key" }));
    expect(await within(dialog).findByText("Please enter a key name")).toBeInTheDocument();
    expect(requests.some((r) => r.method === "POST")).toBe(false);
  });

  it.each(["0", "1001", "1.5", ""])("refuses the rate limit %j", async (value) => {
    const { requests } = await renderPage();
    const dialog = await fillAndSubmit("Production server", value);
    expect(await within(dialog).findByText("Rate limit must be a whole number from 1 to 1000")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Rate Limit (requests per minute)")).toHaveAttribute("aria-invalid", "true");
    expect(requests.some((r) => r.method === "POST")).toBe(false);
  });

  it("starts at the Free plan's cap of 60 requests a minute and explains the cap", async () => {
    await renderPage();
    const dialog = await openGenerate();
    expect(within(dialog).getByLabelText("Rate Limit (requests per minute)")).toHaveValue(60);
    expect(dialog).toHaveTextContent("Your Free plan caps every key at 60 requests a minute");
  });

  it.each([
    ["basic", 60, "Your Basic plan caps every key at 60 requests a minute"],
    ["professional", 120, "Your Professional plan caps every key at 120 requests a minute"],
    ["enterprise", 100, "Your Enterprise plan has no cap"],
  ] as const)("on the %s plan starts at %i a minute and explains the cap", async (plan, limit, text) => {
    await renderPage({}, { user: makeUser({ plan }) });
    // The note and the default follow the signed-in user's plan once the profile is read.
    const dialog = await openGenerate();
    await waitFor(() => expect(dialog).toHaveTextContent(text));
    expect(within(dialog).getByLabelText("Rate Limit (requests per minute)")).toHaveValue(limit);
  });

  it("sends the trimmed name and an integer rate limit, then shows the new full key once", async () => {
    const created = makeKey({
      id: 11,
      name: "Mobile backend",
      keyPreview: "vk_live_N3w0…Ke4y",
      keyValue: "vk_live_N3w0AaBbCcDdEeFfGgHhIiJjKkLlKe4y",
      rateLimit: 250,
      effectiveRateLimit: 60,
      lastUsedAt: null,
    });
    let answer!: (r: FakeReply) => void;
    const { requests, state } = await renderPage({
      [CREATE]: () =>
        new Promise<FakeReply>((resolve) => {
          answer = resolve;
        }),
    });
    await screen.findByTestId("api-keys-table");
    const readsBefore = listReads(requests);

    const dialog = await fillAndSubmit("  Mobile backend  ", "250");
    // Unavailable while the key is made, but not disabled: focus stays on it instead of falling to the body.
    const generating = await within(dialog).findByRole("button", { name: "Generating..." });
    expect(generating).toHaveAttribute("aria-disabled", "true");
    expect(generating).toHaveFocus();

    const post = requests.find((r) => r.method === "POST" && r.url === "/api/api-keys");
    expect(post?.body).toEqual({ name: "Mobile backend", rateLimit: 250 });
    expect(typeof (post?.body as { rateLimit: unknown }).rateLimit).toBe("number");
    expect(post?.headers["Content-Type"]).toBe("application/json");
    expect(post?.headers.Authorization).toBe("Bearer tok-1");

    state.keys = [created, PROD, STAGING];
    answer({ status: 201, body: created });

    expect(await within(dialog).findByTestId("new-key-value")).toHaveTextContent(created.keyValue);
    // The form made way for the key: its title takes focus, and names the dialog.
    await waitFor(() => expect(within(dialog).getByRole("heading", { name: "Your new API key" })).toHaveFocus());
    expect(screen.getByRole("dialog", { name: "Your new API key" })).toBe(dialog);
    expect(dialog).toHaveTextContent("Store this key safely");
    expect(dialog).toHaveTextContent("copy it again later from the keys table");
    expect(await screen.findByText("API Key Created")).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole("button", { name: "Copy Key" }));
    expect(writeText).toHaveBeenCalledExactlyOnceWith(created.keyValue);
    expect(await screen.findByText("Copied")).toBeInTheDocument();

    // The list is read again and holds the new key.
    await waitFor(() => expect(listReads(requests)).toBe(readsBefore + 1));
    await userEvent.click(within(dialog).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    // Done gives focus back to the button that opened the dialog.
    await waitFor(() => expect(screen.getByRole("button", { name: "Generate New Key" })).toHaveFocus());
    expect(rows()).toHaveLength(3);
    expect(within(rows()[0]!).getByText("Mobile backend")).toBeInTheDocument();

    // Opened again, the dialog is a fresh form, not the old key.
    const again = await openGenerate();
    expect(within(again).queryByTestId("new-key-value")).not.toBeInTheDocument();
    expect(within(again).getByLabelText("Key Name")).toHaveValue("");
    expect(within(again).getByLabelText("Rate Limit (requests per minute)")).toHaveValue(60);
  });

  it.each([
    ["Escape", async () => userEvent.keyboard("{Escape}")],
    ["Cancel", async (dialog: HTMLElement) => userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }))],
    ["the X", async (dialog: HTMLElement) => userEvent.click(within(dialog).getByRole("button", { name: "Close" }))],
  ])("is named and described, keeps focus inside, and gives focus back to its button on %s", async (_, close) => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    const opener = screen.getByRole("button", { name: "Generate New Key" });
    const dialog = await openGenerate();
    expect(dialog).toHaveAccessibleDescription(/Name the key after the app or environment/);
    // Focus went into the dialog, and Tab does not leave it.
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    for (let i = 0; i < 8; i++) {
      await userEvent.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
    await close(dialog);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("sends the plan's cap when the rate limit is left alone", async () => {
    const { requests } = await renderPage({
      [CREATE]: { status: 201, body: makeKey({ id: 12, name: "Default", rateLimit: 60, effectiveRateLimit: 60 }) },
    });
    const dialog = await fillAndSubmit("Default");
    await within(dialog).findByTestId("new-key-value");
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({ name: "Default", rateLimit: 60 });
    // The key gets the limit it shows: no "(60/min on your plan)" note.
    expect(dialog).toHaveTextContent('"Default" is ready, limited to 60/min.');
  });

  it("puts the server's field errors on the fields and toasts 'Failed to create API key'", async () => {
    await renderPage({
      [CREATE]: {
        status: 400,
        body: errorBody("Key name must be at most 100 characters", {
          field: "name",
          fields: { name: "Key name must be at most 100 characters", rateLimit: "Rate limit must be a whole number from 1 to 1000" },
        }),
      },
    });
    const dialog = await fillAndSubmit("Production server", "500");

    expect(await screen.findByText("Failed to create API key")).toBeInTheDocument();
    const nameError = within(dialog).getByText("Key name must be at most 100 characters");
    expect(nameError.id).toBe("key-name-error");
    expect(within(dialog).getByText("Rate limit must be a whole number from 1 to 1000").id).toBe("key-rate-limit-error");
    expect(within(dialog).getByLabelText("Key Name")).toHaveAttribute("aria-invalid", "true");
    expect(within(dialog).queryByTestId("new-key-value")).not.toBeInTheDocument();
  });

  it("toasts 'Failed to create API key' when the server fails without a message", async () => {
    await renderPage({ [CREATE]: { status: 500, body: "boom" } });
    const dialog = await fillAndSubmit("Production server");
    expect(await screen.findByText("Failed to create API key")).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Generate Key" })).toBeEnabled();
    expect(screen.queryByText("API Key Created")).not.toBeInTheDocument();
  });
});

describe("deleting a key", () => {
  it("asks first, and Cancel deletes nothing", async () => {
    const { requests } = await renderPage();
    await screen.findByTestId("api-keys-table");
    await userEvent.click(screen.getByRole("button", { name: "Delete key Production server" }));

    const confirm = await screen.findByRole("alertdialog", { name: "Delete API key?" });
    expect(confirm).toHaveTextContent("Production server");
    expect(confirm).toHaveTextContent("will fail at once");
    await userEvent.click(within(confirm).getByRole("button", { name: "Cancel" }));

    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(requests.some((r) => r.method === "DELETE")).toBe(false);
    expect(rows()).toHaveLength(2);
    // Focus is back on the row's Delete button.
    await waitFor(() => expect(screen.getByRole("button", { name: "Delete key Production server" })).toHaveFocus());
  });

  it("is an alert dialog named and described by its text, and Escape gives focus back to the row's button", async () => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    const opener = screen.getByRole("button", { name: "Delete key Staging" });
    await userEvent.click(opener);
    const confirm = await screen.findByRole("alertdialog", { name: "Delete API key?" });
    expect(confirm).toHaveAccessibleDescription(/"Staging" will be deleted/);
    expect(within(confirm).getByRole("button", { name: "Cancel" })).toHaveFocus();
    await userEvent.tab();
    expect(within(confirm).getByRole("button", { name: "Delete Key" })).toHaveFocus();
    await userEvent.tab();
    expect(within(confirm).getByRole("button", { name: "Cancel" })).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("sends DELETE /api/api-keys/{id}, toasts and reads the list again", async () => {
    const { requests, state } = await renderPage({
      "DELETE /api/api-keys/7": () => {
        state.keys = [STAGING];
        return { status: 204 };
      },
    });
    await screen.findByTestId("api-keys-table");
    const readsBefore = listReads(requests);

    await userEvent.click(screen.getByRole("button", { name: "Delete key Production server" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete API key?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete Key" }));

    expect(await screen.findByText("API Key Deleted")).toBeInTheDocument();
    const del = requests.filter((r) => r.method === "DELETE");
    expect(del.map((r) => r.url)).toEqual(["/api/api-keys/7"]);
    expect(del[0]?.headers.Authorization).toBe("Bearer tok-1");
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    await waitFor(() => expect(listReads(requests)).toBe(readsBefore + 1));
    expect(rows()).toHaveLength(1);
    expect(screen.queryByText("Production server")).not.toBeInTheDocument();
    // The row whose button opened the dialog is gone: focus goes to the page's heading, not to the body.
    await waitFor(() => expect(screen.getByRole("heading", { level: 1, name: "API Keys" })).toHaveFocus());
  });

  it("keeps focus on Delete Key while the key is deleted", async () => {
    let answer!: (r: FakeReply) => void;
    await renderPage({ "DELETE /api/api-keys/7": () => new Promise<FakeReply>((resolve) => (answer = resolve)) });
    await screen.findByTestId("api-keys-table");
    await userEvent.click(screen.getByRole("button", { name: "Delete key Production server" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete API key?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete Key" }));
    const deleting = await within(confirm).findByRole("button", { name: "Deleting..." });
    expect(deleting).toHaveAttribute("aria-disabled", "true");
    expect(deleting).toHaveFocus();
    answer({ status: 204 });
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
  });

  it("toasts 'Failed to delete API key' with the server's reason and keeps the key", async () => {
    await renderPage({
      "DELETE /api/api-keys/9": { status: 404, body: errorBody("API key not found", { code: "not_found" }) },
    });
    await screen.findByTestId("api-keys-table");
    await userEvent.click(screen.getByRole("button", { name: "Delete key Staging" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete API key?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete Key" }));

    expect(await screen.findByText("Failed to delete API key")).toBeInTheDocument();
    expect(within(toastItem("Failed to delete API key")).getByText("API key not found")).toBeInTheDocument();
    expect(screen.queryByText("API Key Deleted")).not.toBeInTheDocument();
    expect(rows()).toHaveLength(2);
  });
});

describe("the built-in documentation", () => {
  it("uses this site's base URL and the user's newest key in the curl example", async () => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    const docs = screen.getByTestId("api-docs");
    const origin = window.location.origin;

    expect(within(docs).getByTestId("api-base-url")).toHaveTextContent(origin);
    const curl = within(docs).getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith("curl -G"));
    expect(curl.textContent).toContain(`"${origin}/api/v1/property/valuation"`);
    expect(curl.textContent).toContain(`-H "x-api-key: ${PROD.keyValue}"`);
    // The samples value the home of the generated example, so the response shown below is the answer they get.
    expect(curl.textContent).toContain(`--data-urlencode "address=${EXAMPLE_REQUEST.address}"`);
    expect(curl.textContent).toContain(`--data-urlencode "zip=${EXAMPLE_REQUEST.zip}"`);
    expect(curl.textContent).not.toContain("YOUR_API_KEY");
    // The JavaScript sample is a GET with the key from the environment and no body.
    const js = within(docs).getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").includes("new URLSearchParams"));
    expect(js.textContent).toContain(`${origin}/api/v1/property/valuation?`);
    expect(js.textContent).toContain('"x-api-key": process.env.VALUATOR_API_KEY');
    expect(js.textContent).not.toMatch(/body:/);
  });

  it("uses a placeholder key when the user has none", async () => {
    await renderPage({}, { keys: [] });
    await screen.findByText("No API keys yet");
    const docs = screen.getByTestId("api-docs");
    expect(within(docs).getByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith("curl -G")).textContent).toContain(
      '-H "x-api-key: YOUR_API_KEY"',
    );
  });

  it("documents the endpoint, the batch endpoints, errors, headers and guidelines", async () => {
    await renderPage();
    await screen.findByTestId("api-keys-table");
    const docs = screen.getByTestId("api-docs");

    expect(docs).toHaveTextContent("/api/v1/property/valuation");
    expect(within(docs).getByRole("note")).toHaveTextContent("Do not send a JSON body");
    for (const param of ["address", "city", "state", "zip", "propertyType"]) {
      expect(within(docs).getAllByText(param, { selector: "code" }).length).toBeGreaterThan(0);
    }
    // The example response follows the contract's shape: it is this server's own answer for the sample address.
    const response = await within(docs).findByText((_, el) => el?.tagName === "CODE" && (el.textContent ?? "").startsWith('{\n  "data"'));
    const parsed = JSON.parse(response.textContent ?? "") as {
      data: { valuation: Record<string, unknown>; marketData: { comparables: unknown[]; priceHistory: unknown[] } };
    };
    expect(Object.keys(parsed.data)).toEqual(["property", "valuation", "details", "marketData", "valueHistory", "meta"]);
    expect(parsed.data.valuation).toMatchObject({ low: expect.any(Number), high: expect.any(Number), confidence: expect.any(Number) });
    expect(parsed).toEqual(LIVE_EXAMPLE.response);
    expect(parsed.data.marketData.comparables).toHaveLength(LIVE_EXAMPLE.comparables.kept);
    expect(within(docs).getByTestId("example-note")).toHaveTextContent("This server's own answer today");
    expect(parsed.data.marketData.priceHistory.length).toBeGreaterThan(0);

    for (const path of ["/api/batch/upload", "/api/batch/status/{jobId}", "/api/batch/download/{jobId}"]) {
      expect(docs).toHaveTextContent(path);
    }
    expect(within(docs).queryByText("Coming soon")).not.toBeInTheDocument();
    expect(docs).toHaveTextContent('-F "file=@homes.csv"');

    const errors = within(docs).getByTestId("api-error-codes");
    for (const status of ["400", "401", "402", "404", "429", "503"]) {
      expect(errors).toHaveTextContent(status);
    }
    expect(errors).toHaveTextContent("overageRateCents");
    expect(errors).toHaveTextContent("Retry-After");
    for (const header of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
      expect(within(docs).getAllByText(header, { selector: "code" }).length).toBeGreaterThan(0);
    }
    expect(docs).toHaveTextContent("Seconds until the full budget is available again");
    // The rate limits are the plan table's, one line a plan; no default written by hand.
    const limits = within(docs).getByTestId("plan-rate-limits");
    expect(within(limits).getAllByRole("listitem").map((li) => li.textContent)).toEqual(
      PLANS.map((plan) => planRateLimitLine(plan)),
    );
    expect(limits).toHaveTextContent("Free: at most 60 requests a minute per key");
    expect(limits).toHaveTextContent("Enterprise: no cap; a new key starts at 100");
    expect(docs).not.toHaveTextContent("100 by default");
    expect(docs).toHaveTextContent("capped by your plan (Free and Basic 60, Professional 120, Enterprise uncapped)");
    expect(docs).toHaveTextContent("Security guidelines");
    expect(docs).toHaveTextContent("Rate-limit guidelines");
    expect(docs).toHaveTextContent("a valuation changes at most once a day");
    expect(within(docs).getByRole("link", { name: "Interactive API reference" })).toHaveAttribute("href", "/docs");
  });
});
