import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter } from "react-router";
import { createQueryClient } from "@/lib/query-client";
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { OptOutPage } from "./opt-out-page";

let fetchMock: ReturnType<typeof vi.fn>;

beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function renderOptOut() {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <OptOutPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return user;
}

async function fillValidForm(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText("Full Name"), "Jane Q. Public");
  await user.type(screen.getByLabelText("Street Address"), "2114 Bigelow Ave N");
  await user.type(screen.getByLabelText("City"), "Seattle");
  await user.type(screen.getByLabelText("State"), "wa");
  await user.type(screen.getByLabelText(/Zip Code/), "98109");
  await user.type(screen.getByLabelText("Email for the confirmation link"), "jane@example.com");
}

describe("OptOutPage", () => {
  it("explains the opt-out", () => {
    renderOptOut();
    expect(screen.getByRole("heading", { level: 1, name: "Opt out of person lookup" })).toBeInTheDocument();
    expect(screen.getByText(/directory of people that its operator loads/)).toBeInTheDocument();
    expect(screen.getByText(/kept out of future imports/)).toBeInTheDocument();
    expect(screen.getByText(/we email you a link/)).toBeInTheDocument();
    expect(screen.getByText(/same way whether or not a listing exists/)).toBeInTheDocument();
  });

  it("shows the required-field errors and sends nothing", async () => {
    const user = renderOptOut();
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));

    expect(await screen.findByText("Full name is required")).toBeInTheDocument();
    expect(screen.getByText("Street address is required")).toBeInTheDocument();
    expect(screen.getByText("City is required")).toBeInTheDocument();
    expect(screen.getByText("State is required")).toBeInTheDocument();
    expect(screen.getByText("Email is required")).toBeInTheDocument();
    expect(screen.getByLabelText("Full Name")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText(/Zip Code/)).not.toHaveAttribute("aria-invalid");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("has example placeholders, not values", () => {
    renderOptOut();
    expect(screen.getByLabelText("Full Name")).toHaveAttribute("placeholder", "e.g. Jennifer Northcott");
    expect(screen.getByLabelText("Full Name")).toHaveValue("");
    expect(screen.getByLabelText("State")).toHaveAttribute("placeholder", `e.g. ${EXAMPLE_REQUEST.state}`);
    // The state is upper-cased as typed; its placeholder must not be ("E.G. WA").
    expect(screen.getByLabelText("State")).toHaveClass("placeholder:normal-case");
    expect(screen.getByLabelText("Email for the confirmation link")).toHaveAttribute("type", "email");
  });

  it("refuses an email that is not one", async () => {
    const user = renderOptOut();
    await fillValidForm(user);
    await user.clear(screen.getByLabelText("Email for the confirmation link"));
    await user.type(screen.getByLabelText("Email for the confirmation link"), "jane-at-example");
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));
    expect(await screen.findByText("Invalid email address")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends the request with the state uppercased and shows the server's message in place of the form", async () => {
    const message = "If we hold a listing that matches, we have sent a confirmation link to jane@example.com.";
    fetchMock.mockResolvedValue(jsonResponse(200, { message }));
    const user = renderOptOut();
    await fillValidForm(user);
    expect(screen.getByLabelText("State")).toHaveValue("WA");
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));

    expect(await screen.findByText(message)).toBeInTheDocument();
    // The answer takes the focus (the form is gone) and is a live region.
    const sent = screen.getByTestId("opt-out-sent");
    expect(sent).toHaveFocus();
    expect(sent).toHaveAttribute("role", "status");
    expect(sent).toHaveTextContent("Nothing is removed until the link sent to jane@example.com is opened and confirmed");
    // No development link unless the server sends one.
    expect(screen.queryByRole("link", { name: /confirmation link/ })).not.toBeInTheDocument();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe("/api/person/opt-out");
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body as string)).toEqual({
      name: "Jane Q. Public",
      street_line_1: "2114 Bigelow Ave N",
      city: "Seattle",
      state_code: "WA",
      postal_code: "98109",
      email: "jane@example.com",
    });
    expect(screen.queryByRole("button", { name: "Request Opt-Out" })).not.toBeInTheDocument();
    expect(screen.queryByLabelText("Full Name")).not.toBeInTheDocument();
  });

  it("leaves out a blank zip code", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { message: "Sent." }));
    const user = renderOptOut();
    await fillValidForm(user);
    await user.clear(screen.getByLabelText(/Zip Code/));
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));
    await screen.findByText("Sent.");
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(JSON.parse(init.body as string)).not.toHaveProperty("postal_code");
  });

  it("shows the development confirmation link when the server sends one", async () => {
    const confirmUrl = "http://localhost:8080/opt-out/confirm?token=oot_abc";
    fetchMock.mockResolvedValue(
      jsonResponse(200, { message: "If we hold a listing that matches, we have sent a confirmation link.", confirmUrl }),
    );
    const user = renderOptOut();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));

    const link = await screen.findByRole("link", { name: "Open the confirmation link (development only)" });
    expect(link).toHaveAttribute("href", confirmUrl);
    expect(screen.getByTestId("opt-out-dev-link")).toHaveTextContent("Development mode");
  });

  it("goes back to an empty form to ask again", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { message: "Sent." }));
    const user = renderOptOut();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));
    await user.click(await screen.findByRole("button", { name: "Ask for another listing" }));
    expect(screen.getByLabelText("Full Name")).toHaveValue("");
  });

  it("shows a 400 field error at its field and keeps the form", async () => {
    fetchMock.mockResolvedValue(
      jsonResponse(400, {
        error: "Zip code must be 5 digits",
        code: "invalid_request",
        requestId: "r1",
        field: "postal_code",
        fields: { postal_code: "Zip code must be 5 digits" },
      }),
    );
    const user = renderOptOut();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));

    await waitFor(() => expect(screen.getByLabelText(/Zip Code/)).toHaveAttribute("aria-invalid", "true"));
    expect(screen.getByLabelText(/Zip Code/)).toHaveAccessibleDescription("Zip code must be 5 digits");
    expect(screen.getByLabelText("Full Name")).toHaveValue("Jane Q. Public");
  });

  it("shows the server's sentence when it answers 429", async () => {
    fetchMock.mockResolvedValue(
      jsonResponse(429, { error: "Too many requests. Try again later.", code: "rate_limited", requestId: "r2" }),
    );
    const user = renderOptOut();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));
    expect(await screen.findByText("Too many requests. Try again later.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Request Opt-Out" })).toBeEnabled();
  });
});
