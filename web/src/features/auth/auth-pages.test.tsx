import { afterEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders } from "@/test/utils";
import { ForgotPasswordPage } from "./forgot-password-page";
import { LoginPage } from "./login-page";
import { RegisterPage } from "./register-page";
import { ResetPasswordPage } from "./reset-password-page";
import { prefetchedDemoAccount } from "@/app/route-chunks";

afterEach(() => {
  vi.unstubAllGlobals();
  dismissToasts();
});

function renderAuthRoutes(route: string) {
  return renderWithProviders(
    <Routes>
      <Route path="/" element={<h1>Landing</h1>} />
      <Route path="/login" element={<LoginPage />} />
      <Route path="/register" element={<RegisterPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/reset-password" element={<ResetPasswordPage />} />
      <Route path="/dashboard" element={<h1>Dashboard</h1>} />
    </Routes>,
    { route },
  );
}

/** A reply the test releases by hand, to look at the screen while a request is pending. */
function deferred() {
  let release!: (reply: { status?: number; body?: unknown }) => void;
  const promise = new Promise<{ status?: number; body?: unknown }>((resolve) => (release = resolve));
  return { route: () => promise, release };
}

const location = () => screen.getByTestId("location").textContent;

describe("LoginPage", () => {
  it("shows the validation messages and sends nothing", async () => {
    const { requests } = mockFetch({});
    renderAuthRoutes("/login");
    await userEvent.type(screen.getByLabelText("Email"), "not-an-email");
    await userEvent.type(screen.getByLabelText("Password"), "12345");
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));

    expect(await screen.findByText("Invalid email address")).toBeInTheDocument();
    expect(screen.getByText("Password must be at least 6 characters")).toBeInTheDocument();
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
    // Only the question whether there is a demo account to offer was asked.
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/auth/demo"]);
  });

  it("reads 'Signing in...' while submitting and shows the server's message on failure", async () => {
    const reply = deferred();
    mockFetch({ "POST /api/auth/login": reply.route });
    renderAuthRoutes("/login");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "wrong-password");
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));

    expect(await screen.findByRole("button", { name: "Signing in..." })).toBeDisabled();
    reply.release({ status: 401, body: errorBody("Invalid email or password", { code: "unauthorized" }) });

    expect(await screen.findByText("Invalid email or password")).toBeInTheDocument();
    expect(screen.getByText("Error")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Sign In" })).toBeEnabled();
    expect(location()).toBe("/login");
  });

  it("falls back to 'Login failed' when the server gives no message", async () => {
    mockFetch({ "POST /api/auth/login": { status: 502, body: "<html>Bad gateway</html>" } });
    renderAuthRoutes("/login");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText("Login failed")).toBeInTheDocument();
  });

  it("signs in and goes to the dashboard", async () => {
    const { requests } = mockFetch({
      "POST /api/auth/login": { body: { token: "t-1", user: makeUser() } },
    });
    renderAuthRoutes("/login");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.click(screen.getByRole("button", { name: "Sign In" }));

    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
    expect(requests.find((r) => r.method === "POST")!.body).toEqual({ email: "jane@example.com", password: "secret-password" });
    expect(localStorage.getItem("token")).toBe("t-1");
  });

  it("offers no demo account when the server has none (production, or no demo seeded)", async () => {
    const { requests } = mockFetch({ "GET /api/auth/demo": { status: 204 } });
    renderAuthRoutes("/login");
    await waitFor(() => expect(requests.map((r) => r.url)).toContain("/api/auth/demo"));
    // The 204 has been read: the page settles without the offer.
    await screen.findByRole("button", { name: "Sign In" });
    await waitFor(() => expect(screen.queryByTestId("demo-account")).not.toBeInTheDocument());
    expect(screen.queryByRole("button", { name: "Use the demo account" })).not.toBeInTheDocument();
  });

  it("signs in as the demo account a development server offers", async () => {
    const demo = { email: "demo@valuator.dev", password: "valuator-demo" };
    const { requests } = mockFetch({
      "GET /api/auth/demo": { body: demo },
      "POST /api/auth/login": { body: { token: "t-demo", user: makeUser({ email: demo.email, fullName: "Demo User" }) } },
    });
    renderAuthRoutes("/login");
    const button = await screen.findByRole("button", { name: "Use the demo account" });
    expect(screen.getByTestId("demo-account")).toHaveTextContent("signs in as demo@valuator.dev");
    await userEvent.click(button);

    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
    expect(requests.filter((r) => r.method === "POST").map((r) => r.body)).toEqual([demo]);
    expect(localStorage.getItem("token")).toBe("t-demo");
  });

  it("shows the demo account in its first paint when it came with the page's code", () => {
    prefetchedDemoAccount.module = { email: "demo@valuator.dev", password: "valuator-demo" };
    try {
      const { requests } = mockFetch({});
      renderAuthRoutes("/login");
      expect(screen.getByTestId("demo-account")).toHaveTextContent("signs in as demo@valuator.dev");
      expect(requests).toEqual([]);
    } finally {
      prefetchedDemoAccount.module = undefined;
    }
  });

  it("shows the server's message when the demo account cannot sign in", async () => {
    const demo = { email: "demo@valuator.dev", password: "valuator-demo" };
    mockFetch({
      "GET /api/auth/demo": { body: demo },
      "POST /api/auth/login": { status: 401, body: errorBody("Invalid email or password", { code: "unauthorized" }) },
    });
    renderAuthRoutes("/login");
    await userEvent.click(await screen.findByRole("button", { name: "Use the demo account" }));
    expect(await screen.findByText("Invalid email or password")).toBeInTheDocument();
    // The form shows what was tried.
    expect(screen.getByLabelText("Email")).toHaveValue(demo.email);
    expect(location()).toBe("/login");
  });

  it("links to password recovery, registration and home", async () => {
    mockFetch({});
    renderAuthRoutes("/login");
    expect(screen.getByRole("link", { name: "Forgot password?" })).toHaveAttribute("href", "/forgot-password");
    expect(screen.getByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/register");
    expect(screen.getByRole("link", { name: "Valuator home" })).toHaveAttribute("href", "/");
  });

  it("sends a signed-in visitor to the dashboard", async () => {
    localStorage.setItem("token", "t-1");
    mockFetch({ "GET /api/user/profile": { body: makeUser() } });
    renderAuthRoutes("/login");
    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
  });
});

describe("RegisterPage", () => {
  it("says under the password why the server refused it", async () => {
    const why = "This password repeats one character; choose one that is harder to guess";
    mockFetch({
      "POST /api/auth/register": { status: 400, body: errorBody(why, { field: "password", fields: { password: why } }) },
    });
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "aaaaaaaa");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "aaaaaaaa");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));
    const message = await screen.findByText(why, { selector: "#register-password-error" });
    expect(message).toBeInTheDocument();
    expect(screen.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    // The spec's toast says it too.
    expect(await screen.findByText("Error", { selector: "li *" })).toBeInTheDocument();
  });

  it("shows each field's validation message", async () => {
    const { fetchMock } = mockFetch({});
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "J");
    await userEvent.type(screen.getByLabelText("Email"), "jane@");
    await userEvent.type(screen.getByLabelText("Password"), "short");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));

    expect(await screen.findByText("Full name must be at least 2 characters")).toBeInTheDocument();
    expect(screen.getByText("Invalid email address")).toBeInTheDocument();
    expect(screen.getByText("Password must be at least 8 characters")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows \"Passwords don't match\" on the confirmation field", async () => {
    const { fetchMock } = mockFetch({});
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "secret-passw0rd");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));

    const message = await screen.findByText("Passwords don't match");
    expect(screen.getByLabelText("Confirm Password")).toHaveAttribute("aria-describedby", message.id);
    expect(screen.getByLabelText("Password")).not.toHaveAttribute("aria-invalid");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("creates the account without sending the confirmation, then toasts and goes to the dashboard", async () => {
    const reply = deferred();
    const { requests } = mockFetch({
      "POST /api/auth/register": reply.route,
      "GET /api/user/profile": { body: makeUser() },
    });
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "secret-password");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));

    expect(await screen.findByRole("button", { name: "Creating account..." })).toBeDisabled();
    reply.release({
      status: 201,
      body: { token: "t-new", user: makeUser(), welcome: { credits: 100, message: null } },
    });

    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
    expect(requests[0]!.body).toEqual({ email: "jane@example.com", password: "secret-password", fullName: "Jane Doe" });
    expect(screen.getByText("Account created successfully")).toBeInTheDocument();
    expect(screen.queryByText("No welcome credits")).not.toBeInTheDocument();
    expect(localStorage.getItem("token")).toBe("t-new");
  });

  it("says why when the mailbox already had its welcome credits, and keeps saying it on the dashboard", async () => {
    const why =
      "No welcome credits: this mailbox (jane@gmail.com) already received them. " +
      "Choose a plan on the Billing page for more credits.";
    const user = makeUser({ email: "j.ane+2@gmail.com", credits: 0, totalCreditsEarned: 0 });
    mockFetch({
      "POST /api/auth/register": {
        status: 201,
        body: { token: "t-alias", user, welcome: { credits: 0, message: why } },
      },
      "GET /api/user/profile": { body: user },
    });
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "j.ane+2@gmail.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "secret-password");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));

    // The sign-up succeeded: the dashboard shows, with the reason in a toast over it.
    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
    expect(location()).toBe("/dashboard");
    expect(screen.getByText("No welcome credits")).toBeInTheDocument();
    expect(screen.getByText(why)).toBeInTheDocument();
    expect(screen.queryByText("Account created successfully")).not.toBeInTheDocument();
  });

  it("keeps the reason up long enough to read once the dashboard has loaded", async () => {
    const why =
      "No welcome credits: this email address belonged to a closed account. " +
      "Choose a plan on the Billing page for more credits.";
    const user = makeUser({ credits: 0, totalCreditsEarned: 0 });
    mockFetch({
      "POST /api/auth/register": {
        status: 201,
        body: { token: "t-again", user, welcome: { credits: 0, message: why } },
      },
      "GET /api/user/profile": { body: user },
    });
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "secret-password");
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await userEvent.click(screen.getByRole("button", { name: "Create Account" }));
      expect(await screen.findByText(why)).toBeInTheDocument();
      // Past the usual 5 seconds of a toast, the reason is still on the dashboard.
      await act(() => vi.advanceTimersByTimeAsync(10000));
      expect(screen.getByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
      expect(screen.getByText(why)).toBeVisible();
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows the server's message when the email is taken", async () => {
    mockFetch({
      "POST /api/auth/register": {
        status: 409,
        body: errorBody("An account with this email already exists", { code: "email_taken", field: "email" }),
      },
    });
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "secret-password");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "secret-password");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));

    // Under the field, and in the spec's 'Error' toast.
    expect(
      await screen.findByText("An account with this email already exists", { selector: "#register-email-error" }),
    ).toBeInTheDocument();
    expect(await screen.findByText("An account with this email already exists", { selector: "li *" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Create Account" })).toBeEnabled();
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/login");
  });
});

describe("the server's password rules", () => {
  // The common-password list is the server's; the forms show its reason as they show any server message.
  const tooCommon = errorBody("This password is too common; choose one that is harder to guess", { field: "password" });

  it("are shown on the registration form", async () => {
    mockFetch({ "POST /api/auth/register": { status: 400, body: tooCommon } });
    renderAuthRoutes("/register");
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Doe");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "baseball");
    await userEvent.type(screen.getByLabelText("Confirm Password"), "baseball");
    await userEvent.click(screen.getByRole("button", { name: "Create Account" }));

    expect(
      await screen.findByText("This password is too common; choose one that is harder to guess", {
        selector: "#register-password-error",
      }),
    ).toBeInTheDocument();
    expect(location()).toBe("/register");
  });

  it("are shown on the reset form", async () => {
    mockFetch({ "POST /api/auth/reset-password": { status: 400, body: tooCommon } });
    renderAuthRoutes("/reset-password?token=vr_abc");
    await userEvent.type(screen.getByLabelText("New Password"), "baseball");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "baseball");
    await userEvent.click(screen.getByRole("button", { name: "Reset Password" }));

    expect(await screen.findByText("Password Reset Failed")).toBeInTheDocument();
    expect(screen.getByText("This password is too common; choose one that is harder to guess")).toBeInTheDocument();
    expect(location()).toBe("/reset-password?token=vr_abc");
  });
});

describe("ForgotPasswordPage", () => {
  it("requires an email", async () => {
    const { fetchMock } = mockFetch({});
    renderAuthRoutes("/forgot-password");
    await userEvent.click(screen.getByRole("button", { name: "Send Reset Link" }));
    expect(await screen.findByText("Email is required")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("confirms the request, and can return to the form or to sign in", async () => {
    const { requests } = mockFetch({
      "POST /api/auth/request-password-reset": { body: { message: "If the account exists, a link was sent." } },
    });
    renderAuthRoutes("/forgot-password");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Send Reset Link" }));

    expect(await screen.findByRole("heading", { name: "Check Your Email" })).toBeInTheDocument();
    expect(requests[0]!.body).toEqual({ email: "jane@example.com" });
    expect(screen.getByText("Reset Link Sent")).toBeInTheDocument();
    expect(
      screen.getByText("If an account with that email exists, a password reset link has been sent."),
    ).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Try Again" }));
    // Back on the form, with the address kept so a typo can be fixed.
    expect(screen.getByLabelText("Email")).toHaveValue("jane@example.com");
    expect(screen.queryByRole("heading", { name: "Check Your Email" })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Send Reset Link" }));
    await userEvent.click(await screen.findByRole("button", { name: "Back to Login" }));
    expect(location()).toBe("/login");
  });

  it("in development mode replaces the toast with one carrying the token and a reset link", async () => {
    mockFetch({
      "POST /api/auth/request-password-reset": { body: { message: "sent", resetToken: "dev-token-123" } },
    });
    renderAuthRoutes("/forgot-password");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Send Reset Link" }));

    const title = await screen.findByText("Development Mode");
    const toastEl = title.closest("li")!;
    expect(within(toastEl).getByText("dev-token-123")).toBeInTheDocument();
    expect(within(toastEl).getByRole("link", { name: "Open reset link" })).toHaveAttribute(
      "href",
      "/reset-password?token=dev-token-123",
    );
    // The toast limit is one: the development toast replaced 'Reset Link Sent'.
    expect(screen.queryByText("Reset Link Sent")).not.toBeInTheDocument();
  });

  it("stays on the form with the default message when the request fails without one", async () => {
    mockFetch({ "POST /api/auth/request-password-reset": { status: 500, body: "oops" } });
    renderAuthRoutes("/forgot-password");
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Send Reset Link" }));

    expect(await screen.findByText("Failed to send reset email. Please try again.")).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Check Your Email" })).not.toBeInTheDocument();
  });
});

describe("ResetPasswordPage", () => {
  it("without a token shows the invalid-link state", () => {
    mockFetch({});
    renderAuthRoutes("/reset-password");
    expect(screen.getByRole("heading", { name: "Invalid Reset Link" })).toBeInTheDocument();
    expect(screen.getByText("The password reset link is invalid or missing.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Request New Reset Link" })).toHaveAttribute("href", "/forgot-password");
    expect(screen.queryByLabelText("New Password")).not.toBeInTheDocument();
  });

  it("reports a mismatch before a short password, and sends nothing", async () => {
    const { fetchMock } = mockFetch({});
    renderAuthRoutes("/reset-password?token=abc");
    // Both too short and different: the mismatch wins.
    await userEvent.type(screen.getByLabelText("New Password"), "abc");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "abd");
    await userEvent.click(screen.getByRole("button", { name: "Reset Password" }));
    expect(await screen.findByText("Passwords Do Not Match")).toBeInTheDocument();
    expect(screen.getByText("Please ensure both password fields match.")).toBeInTheDocument();
    expect(screen.queryByText("Password Too Short")).not.toBeInTheDocument();

    await userEvent.clear(screen.getByLabelText("Confirm New Password"));
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "abc");
    await userEvent.click(screen.getByRole("button", { name: "Reset Password" }));
    expect(await screen.findByText("Password Too Short")).toBeInTheDocument();
    expect(screen.getByText("Password must be at least 8 characters long.")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sets the password with the token and goes to sign in", async () => {
    const reply = deferred();
    const { requests } = mockFetch({ "POST /api/auth/reset-password": reply.route });
    renderAuthRoutes("/reset-password?token=abc");
    await userEvent.type(screen.getByLabelText("New Password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "new-password-1");
    await userEvent.click(screen.getByRole("button", { name: "Reset Password" }));

    expect(await screen.findByRole("button", { name: "Resetting Password..." })).toBeDisabled();
    reply.release({ body: { message: "Password set" } });

    await waitFor(() => expect(location()).toBe("/login"));
    expect(requests[0]).toMatchObject({
      method: "POST",
      url: "/api/auth/reset-password",
      body: { token: "abc", password: "new-password-1" },
    });
    expect(screen.getByText("Password Reset Successfully")).toBeInTheDocument();
    expect(
      screen.getByText("Your password has been updated. You can now sign in with your new password."),
    ).toBeInTheDocument();
  });

  it("signs this browser out when the link is opened while signed in", async () => {
    // The server revokes every session on a reset, so the old one must not be kept (the sign-in screen would
    // otherwise bounce to the dashboard with a dead token).
    localStorage.setItem("token", "vs_old-session");
    mockFetch({
      "GET /api/user/profile": { body: makeUser() },
      "POST /api/auth/reset-password": { body: { message: "ok" } },
    });
    renderAuthRoutes("/reset-password?token=abc");
    await userEvent.type(screen.getByLabelText("New Password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "new-password-1");
    await userEvent.click(screen.getByRole("button", { name: "Reset Password" }));

    await waitFor(() => expect(location()).toBe("/login"));
    expect(localStorage.getItem("token")).toBeNull();
    expect(screen.getByRole("button", { name: "Sign In" })).toBeInTheDocument();
  });

  it("shows the server's reason when the reset fails", async () => {
    mockFetch({
      "POST /api/auth/reset-password": {
        status: 400,
        body: errorBody("This reset link has expired or was already used", { field: "token" }),
      },
    });
    renderAuthRoutes("/reset-password?token=abc");
    await userEvent.type(screen.getByLabelText("New Password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "new-password-1");
    await userEvent.click(screen.getByRole("button", { name: "Reset Password" }));

    expect(await screen.findByText("Password Reset Failed")).toBeInTheDocument();
    expect(screen.getByText("This reset link has expired or was already used")).toBeInTheDocument();
    expect(location()).toBe("/reset-password?token=abc");
  });
});
