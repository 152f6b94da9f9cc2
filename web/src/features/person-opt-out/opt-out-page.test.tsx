import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter } from "react-router";
import { createQueryClient } from "@/lib/query-client";
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
}

describe("OptOutPage", () => {
  it("explains the opt-out", () => {
    renderOptOut();
    expect(screen.getByRole("heading", { level: 1, name: "Opt out of person lookup" })).toBeInTheDocument();
    expect(screen.getByText(/directory of people that its operator loads/)).toBeInTheDocument();
    expect(screen.getByText(/kept out of future imports/)).toBeInTheDocument();
    expect(screen.getByText(/same way whether or not a record existed/)).toBeInTheDocument();
  });

  it("shows the required-field errors and sends nothing", async () => {
    const user = renderOptOut();
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));

    expect(await screen.findByText("Full name is required")).toBeInTheDocument();
    expect(screen.getByText("Street address is required")).toBeInTheDocument();
    expect(screen.getByText("City is required")).toBeInTheDocument();
    expect(screen.getByText("State is required")).toBeInTheDocument();
    expect(screen.getByLabelText("Full Name")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText(/Zip Code/)).not.toHaveAttribute("aria-invalid");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends the request with the state uppercased and shows the server's message in place of the form", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { message: "Your request has been recorded." }));
    const user = renderOptOut();
    await fillValidForm(user);
    expect(screen.getByLabelText("State")).toHaveValue("WA");
    await user.click(screen.getByRole("button", { name: "Request Opt-Out" }));

    expect(await screen.findByText("Your request has been recorded.")).toBeInTheDocument();
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
    });
    expect(screen.queryByRole("button", { name: "Request Opt-Out" })).not.toBeInTheDocument();
    expect(screen.queryByLabelText("Full Name")).not.toBeInTheDocument();
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
