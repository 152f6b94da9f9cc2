import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter } from "react-router";
import { Toaster } from "@/components/ui/toaster";
import { toast } from "@/components/ui/use-toast";
import { createQueryClient } from "@/lib/query-client";
import { ContactPage } from "./contact-page";

// The toast function is wrapped in a spy that still shows the toast, so both the call and the text on screen can
// be checked.
vi.mock("@/components/ui/use-toast", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/components/ui/use-toast")>();
  return { ...actual, toast: vi.fn(actual.toast) };
});

// fetchMock answers the form's POST /api/contact; GET /api/site (the configured support address) is answered by
// siteReply, so that the form's calls are counted alone.
let fetchMock: ReturnType<typeof vi.fn<(url: string, init?: RequestInit) => Promise<Response>>>;
let siteReply: () => Promise<Response>;

beforeEach(() => {
  fetchMock = vi.fn();
  siteReply = async () =>
    jsonResponse(200, { supportEmail: "help@valuator.example.com", supportHours: "Mon–Thu 8 AM–4 PM ET" });
  vi.stubGlobal("fetch", (url: string, init?: RequestInit) => (url === "/api/site" ? siteReply() : fetchMock(url, init)));
  vi.mocked(toast).mockClear();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function renderContact() {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <ContactPage />
        <Toaster />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return user;
}

async function fillValidForm(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText("First Name"), "Jane");
  await user.type(screen.getByLabelText("Last Name"), "Doe");
  await user.type(screen.getByLabelText("Email"), "jane@example.com");
  await user.type(screen.getByLabelText(/Company/), "Acme Realty");
  await user.click(screen.getByLabelText("Subject"));
  await user.click(await screen.findByRole("option", { name: "Technical Support" }));
  await user.type(screen.getByLabelText("Message"), "My batch job is stuck at 40%.");
}

describe("ContactPage", () => {
  it("shows the header, the contact channels, the offices and the Help Center button", async () => {
    renderContact();
    expect(screen.getByRole("heading", { level: 1, name: "Contact Us" })).toBeInTheDocument();
    expect(screen.getByText("Get in touch with our team")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
    expect(screen.getByRole("heading", { name: "Send us a message" })).toBeInTheDocument();
    expect(screen.getByText(/will get back to you within 24 hours/)).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Get in touch" })).toBeInTheDocument();
    expect(screen.getByText("Available 24/7; we reply within 24 hours.")).toBeInTheDocument();
    // The address is the server's (VALUATOR_SUPPORT_EMAIL), not one the page makes up.
    expect(await screen.findByRole("link", { name: "help@valuator.example.com" })).toHaveAttribute(
      "href",
      "mailto:help@valuator.example.com",
    );
    const sf = screen.getByRole("heading", { name: /San Francisco/ });
    expect(within(sf).getByText("HQ")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "New York" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Quick answers" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Visit Help Center" })).toHaveAttribute("href", "/help-center");
    expect(screen.getByLabelText("Message")).toHaveAttribute("rows", "6");
  });

  it("names only the channels that exist: email to the configured address, the form and the dashboard's chat", async () => {
    renderContact();
    await screen.findByRole("link", { name: "help@valuator.example.com" });
    const titles = screen.getAllByRole("heading", { level: 3 }).map((h) => h.textContent);
    expect(titles.slice(0, 3)).toEqual(["Email Support", "Contact Form", "Live Chat"]);
    // The chat lives in the signed-in dashboard (issue 27): a visitor is sent to sign in, not promised a chat here.
    expect(screen.getByText(/For customers with an account: open Support in the dashboard/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in to chat" })).toHaveAttribute("href", "/login");
    // Its hours are the installation's, as the server says them, not the page's own.
    expect(screen.getByText("Office hours: Mon–Thu 8 AM–4 PM ET")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Send us a message" })).toHaveAttribute("href", "#send-us-a-message");
    expect(document.getElementById("send-us-a-message")).toHaveTextContent("Send us a message");
    const text = document.body.textContent ?? "";
    expect(text).not.toMatch(/phone/i);
    expect(document.querySelector('a[href^="tel:"]')).toBeNull();
    expect(screen.queryByText("support@valuator.dev")).not.toBeInTheDocument();
  });

  it("gives no address until the server has named one, and points to the form if it cannot", async () => {
    let fail: (r: Response) => void = () => {};
    siteReply = () => new Promise<Response>((r) => (fail = r));
    renderContact();
    expect(screen.getByTestId("support-email-pending")).toHaveTextContent("Loading the address...");
    expect(document.querySelector('a[href^="mailto:"]')).toBeNull();
    fail(jsonResponse(500, { error: "Internal error", code: "internal", requestId: "r" }));
    await waitFor(() =>
      expect(screen.getByTestId("support-email-pending")).toHaveTextContent("use the form on this page"),
    );
    expect(document.querySelector('a[href^="mailto:"]')).toBeNull();
  });

  it("offers the six subjects with their labels", async () => {
    const user = renderContact();
    await user.click(screen.getByLabelText("Subject"));
    const options = await screen.findAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual([
      "General Inquiry",
      "Technical Support",
      "Billing Question",
      "Partnership",
      "Product Feedback",
      "Other",
    ]);
  });

  it("shows the required-field errors and sends nothing", async () => {
    const user = renderContact();
    await user.click(screen.getByRole("button", { name: "Send Message" }));

    expect(await screen.findByText("First name is required")).toBeInTheDocument();
    expect(screen.getByText("Last name is required")).toBeInTheDocument();
    expect(screen.getByText("Email is required")).toBeInTheDocument();
    expect(screen.getByText("Please select a subject")).toBeInTheDocument();
    expect(screen.getByText("Message is required")).toBeInTheDocument();
    expect(screen.getByLabelText("First Name")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText(/Company/)).not.toHaveAttribute("aria-invalid");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("rejects an invalid email address", async () => {
    const user = renderContact();
    await user.type(screen.getByLabelText("Email"), "not-an-email");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Please enter a valid email address")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends the message, shows the success toast and resets the form", async () => {
    let resolve: (r: Response) => void = () => {};
    fetchMock.mockReturnValue(new Promise<Response>((r) => (resolve = r)));
    const user = renderContact();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));

    // While the request is in flight the button says so and cannot be pressed again.
    const pending = await screen.findByRole("button", { name: "Sending..." });
    expect(pending).toBeDisabled();

    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe("/api/contact");
    expect(init.method).toBe("POST");
    expect(JSON.parse(init.body as string)).toEqual({
      firstName: "Jane",
      lastName: "Doe",
      email: "jane@example.com",
      company: "Acme Realty",
      subject: "technical",
      message: "My batch job is stuck at 40%.",
    });

    resolve(jsonResponse(201, { id: 7, message: "Message received" }));

    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Message Sent",
        description: "Thanks for reaching out. We'll reply within 24 hours.",
      }),
    );
    expect(await screen.findByText("Message Sent")).toBeInTheDocument();
    expect(screen.getByText("Thanks for reaching out. We'll reply within 24 hours.")).toBeInTheDocument();

    await waitFor(() => expect(screen.getByLabelText("First Name")).toHaveValue(""));
    expect(screen.getByLabelText("Last Name")).toHaveValue("");
    expect(screen.getByLabelText("Email")).toHaveValue("");
    expect(screen.getByLabelText(/Company/)).toHaveValue("");
    expect(screen.getByLabelText("Message")).toHaveValue("");
    expect(screen.getByLabelText("Subject")).toHaveTextContent("Select a subject");
    expect(screen.getByRole("button", { name: "Send Message" })).toBeEnabled();
  });

  it("sends a blank company as null", async () => {
    fetchMock.mockResolvedValue(jsonResponse(201, { id: 8, message: "Message received" }));
    const user = renderContact();
    await fillValidForm(user);
    await user.clear(screen.getByLabelText(/Company/));
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(JSON.parse(init.body as string)).toMatchObject({ company: null });
  });

  it("shows the server's field errors from a 400 and an error toast, and keeps the input", async () => {
    fetchMock.mockResolvedValue(
      jsonResponse(400, {
        error: "Invalid email address",
        code: "invalid_input",
        requestId: "req-1",
        field: "email",
        fields: { email: "Invalid email address", message: "Message is too short" },
      }),
    );
    const user = renderContact();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));

    const emailError = await screen.findByText("Invalid email address", { selector: "#contact-email-error" });
    expect(emailError).toBeInTheDocument();
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByText("Message is too short")).toBeInTheDocument();
    expect(toast).toHaveBeenCalledWith({ variant: "destructive", title: "Error", description: "Invalid email address" });
    expect(screen.getByLabelText("First Name")).toHaveValue("Jane");
  });

  it("falls back to the default error text when the server gives none", async () => {
    fetchMock.mockResolvedValue(new Response("", { status: 502, statusText: "Bad Gateway" }));
    const user = renderContact();
    await fillValidForm(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        variant: "destructive",
        title: "Error",
        description: "Failed to send message. Please try again.",
      }),
    );
    expect(await screen.findByText("Failed to send message. Please try again.")).toBeInTheDocument();
  });
});
