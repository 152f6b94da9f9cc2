import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import type { User } from "@/lib/types";
import { dismissToasts, errorBody, makeUser, mockFetch, renderWithProviders, type FakeRoute } from "@/test/utils";
import { SettingsPage } from "./settings-page";

afterEach(() => {
  vi.unstubAllGlobals();
  dismissToasts();
});

/** Renders Settings for a signed-in user, with the profile reads answered by `profile` (which tests may change). */
async function renderSettings(routes: Record<string, FakeRoute> = {}, user: User = makeUser()) {
  localStorage.setItem("token", "tok-1");
  const state = { profile: user };
  const server = mockFetch({ "GET /api/user/profile": () => ({ body: state.profile }), ...routes });
  renderWithProviders(
    <Routes>
      <Route path="/settings" element={<SettingsPage />} />
      <Route path="/" element={<h1>Landing</h1>} />
      <Route path="/login" element={<h1>Sign in screen</h1>} />
    </Routes>,
    { route: "/settings" },
  );
  await screen.findByRole("heading", { name: "Settings" });
  return { ...server, state };
}

const profileReads = (requests: { method: string; url: string }[]) =>
  requests.filter((r) => r.method === "GET" && r.url === "/api/user/profile").length;

describe("Profile Information", () => {
  it("is prefilled from the user and validates on submit", async () => {
    const { requests } = await renderSettings();
    expect(screen.getByLabelText("Full Name")).toHaveValue("Jane Doe");
    expect(screen.getByLabelText("Company")).toHaveValue("Acme Realty");
    expect(screen.getByLabelText("Email")).toHaveValue("jane@example.com");

    await userEvent.clear(screen.getByLabelText("Full Name"));
    await userEvent.type(screen.getByLabelText("Full Name"), "J");
    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "jane.example.com");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));

    expect(await screen.findByText("Full name must be at least 2 characters")).toBeInTheDocument();
    expect(screen.getByText("Please enter a valid email address")).toBeInTheDocument();
    expect(requests.some((r) => r.method === "PUT")).toBe(false);
  });

  it("saves fullName, company and email, toasts and refreshes the user", async () => {
    const { requests, state } = await renderSettings({
      "PUT /api/user/profile": (req) => {
        const { currentPassword: _password, ...body } = req.body as {
          fullName: string;
          company: string;
          email: string;
          currentPassword?: string;
        };
        state.profile = makeUser(body);
        return { body: state.profile };
      },
    });
    const readsBefore = profileReads(requests);

    await userEvent.clear(screen.getByLabelText("Full Name"));
    await userEvent.type(screen.getByLabelText("Full Name"), "Jane Q. Doe");
    await userEvent.clear(screen.getByLabelText("Company"));
    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "jane.doe@example.com");
    // A new email needs the current password.
    await userEvent.type(screen.getByLabelText("Current password"), "correct-horse");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));

    expect(await screen.findByText("Profile Updated")).toBeInTheDocument();
    expect(screen.getByText("Your profile has been saved.")).toBeInTheDocument();
    const put = requests.find((r) => r.method === "PUT" && r.url === "/api/user/profile");
    expect(put?.body).toEqual({
      fullName: "Jane Q. Doe",
      company: "",
      email: "jane.doe@example.com",
      currentPassword: "correct-horse",
    });
    expect(put?.headers.Authorization).toBe("Bearer tok-1");
    await waitFor(() => expect(profileReads(requests)).toBe(readsBefore + 1));
    // Saved: the new email is the account's, so the password field goes away (and its value with it).
    expect(screen.queryByLabelText("Current password")).not.toBeInTheDocument();
  });

  it("asks for the current password only when the email changes", async () => {
    const { requests } = await renderSettings({
      "PUT /api/user/profile": (req) => ({ body: makeUser(req.body as Partial<User>) }),
    });
    expect(screen.queryByLabelText("Current password")).not.toBeInTheDocument();

    // The same address in another case is not a change.
    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "Jane@Example.com");
    expect(screen.queryByLabelText("Current password")).not.toBeInTheDocument();

    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "jane@work.example");
    const password = screen.getByLabelText("Current password");
    expect(password).toHaveAttribute("type", "password");
    expect(password).toBeRequired();
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    const message = await screen.findByText("Enter your current password to change your email");
    expect(message).toHaveAttribute("id", "profile-currentPassword-error");
    expect(password).toHaveAttribute("aria-invalid", "true");
    expect(requests.some((r) => r.method === "PUT")).toBe(false);

    // Back to the saved address: no password needed, and none is sent.
    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "jane@example.com");
    expect(screen.queryByLabelText("Current password")).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    expect(await screen.findByText("Profile Updated")).toBeInTheDocument();
    const put = requests.find((r) => r.method === "PUT" && r.url === "/api/user/profile");
    expect(put?.body).toEqual({ fullName: "Jane Doe", company: "Acme Realty", email: "jane@example.com" });
  });

  it("puts a wrong current password under its field", async () => {
    await renderSettings({
      "PUT /api/user/profile": {
        status: 400,
        body: errorBody("Current password is incorrect", { field: "currentPassword" }),
      },
    });
    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "jane@work.example");
    await userEvent.type(screen.getByLabelText("Current password"), "not-my-password");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));

    const fieldError = (await screen.findAllByText("Current password is incorrect")).find(
      (el) => el.id === "profile-currentPassword-error",
    );
    expect(fieldError).toBeDefined();
    expect(screen.getByLabelText("Current password")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Current password")).toHaveValue("not-my-password");
    expect(screen.queryByText("Profile Updated")).not.toBeInTheDocument();
  });

  it("shows the server's message when the email is taken", async () => {
    await renderSettings({
      "PUT /api/user/profile": {
        status: 409,
        body: errorBody("An account with this email already exists", { code: "email_taken", field: "email" }),
      },
    });
    await userEvent.clear(screen.getByLabelText("Email"));
    await userEvent.type(screen.getByLabelText("Email"), "taken@example.com");
    await userEvent.type(screen.getByLabelText("Current password"), "correct-horse");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));

    const toastTitle = await screen.findByText("Error");
    expect(within(toastTitle.closest("li")!).getByText("An account with this email already exists")).toBeInTheDocument();
    // The same sentence also sits on the field it is about.
    const fieldError = screen
      .getAllByText("An account with this email already exists")
      .find((el) => el.id === "profile-email-error");
    expect(fieldError).toBeDefined();
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
  });

  it("falls back to 'Failed to update profile' without a server message", async () => {
    await renderSettings({ "PUT /api/user/profile": { status: 500, body: "boom" } });
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    expect(await screen.findByText("Failed to update profile")).toBeInTheDocument();
  });
});

describe("Security", () => {
  it("validates the three fields", async () => {
    const { requests } = await renderSettings();
    await userEvent.type(screen.getByLabelText("New Password"), "short");
    await userEvent.click(screen.getByRole("button", { name: "Update Password" }));
    expect(await screen.findByText("Current password is required")).toBeInTheDocument();
    expect(screen.getByText("New password must be at least 8 characters")).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText("Current Password"), "old-password");
    await userEvent.clear(screen.getByLabelText("New Password"));
    await userEvent.type(screen.getByLabelText("New Password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "new-password-2");
    await userEvent.click(screen.getByRole("button", { name: "Update Password" }));
    expect(await screen.findByText("Passwords don't match")).toBeInTheDocument();
    expect(requests.some((r) => r.url === "/api/auth/change-password")).toBe(false);
  });

  async function fillPasswordForm() {
    await userEvent.type(screen.getByLabelText("Current Password"), "old-password");
    await userEvent.type(screen.getByLabelText("New Password"), "new-password-1");
    await userEvent.type(screen.getByLabelText("Confirm New Password"), "new-password-1");
    await userEvent.click(screen.getByRole("button", { name: "Update Password" }));
  }

  it("sends currentPassword and newPassword, toasts and clears the form", async () => {
    const { requests } = await renderSettings({
      "POST /api/auth/change-password": { body: { message: "Password changed" } },
    });
    await fillPasswordForm();

    expect(await screen.findByText("Password Updated")).toBeInTheDocument();
    expect(screen.getByText("Your password has been changed. Other sessions were signed out.")).toBeInTheDocument();
    const call = requests.find((r) => r.url === "/api/auth/change-password");
    expect(call?.method).toBe("POST");
    expect(call?.body).toEqual({ currentPassword: "old-password", newPassword: "new-password-1" });
    expect(screen.getByLabelText("Current Password")).toHaveValue("");
    expect(screen.getByLabelText("New Password")).toHaveValue("");
    expect(screen.getByLabelText("Confirm New Password")).toHaveValue("");
  });

  it("puts a wrong current password on its field", async () => {
    await renderSettings({
      "POST /api/auth/change-password": {
        status: 400,
        body: errorBody("Current password is incorrect", { field: "currentPassword" }),
      },
    });
    await fillPasswordForm();

    const message = await screen.findByText("Current password is incorrect");
    expect(message).toHaveAttribute("id", "security-currentPassword-error");
    expect(screen.getByLabelText("Current Password")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Current Password")).toHaveValue("old-password");
    expect(screen.queryByText("Password Updated")).not.toBeInTheDocument();
  });

  it("toasts other failures", async () => {
    await renderSettings({
      "POST /api/auth/change-password": {
        status: 429,
        body: errorBody("Too many attempts. Try again in 60 seconds.", { code: "rate_limited" }),
      },
    });
    await fillPasswordForm();
    const message = await screen.findByText("Too many attempts. Try again in 60 seconds.");
    expect(message.closest("li")).not.toBeNull();
  });
});

describe("Notifications", () => {
  it("shows the saved preferences", async () => {
    await renderSettings();
    expect(screen.getByRole("switch", { name: "Email notifications" })).toBeChecked();
    expect(screen.getByRole("switch", { name: "Low balance alerts" })).toBeChecked();
    expect(screen.getByRole("switch", { name: "Weekly usage report" })).not.toBeChecked();
    expect(screen.getByRole("switch", { name: "Product news" })).not.toBeChecked();
  });

  it("says what each switch sends, and that product news is only a wish for now", async () => {
    await renderSettings();
    const described = (name: string) => screen.getByRole("switch", { name }).getAttribute("aria-describedby") ?? "";
    const text = (name: string) => document.getElementById(described(name))?.textContent ?? "";
    expect(text("Email notifications")).toMatch(/signed in to from a new browser or network \(a security notice\), are\s+always sent/);
    expect(text("Email notifications")).toMatch(/batch job finishes, fails or stops for lack of credits/);
    expect(text("Low balance alerts")).toMatch(/under 50 credits/);
    expect(text("Weekly usage report")).toMatch(/Every Monday/);
    expect(text("Product news")).toBe("We don't send any yet; this only records whether you'd like them.");
  });

  it("saves the whole set at once when a switch is toggled and refreshes the user", async () => {
    const { requests, state } = await renderSettings({
      "PUT /api/user/notifications": (req) => {
        state.profile = makeUser({ notifications: req.body as User["notifications"] });
        return { body: state.profile };
      },
    });
    const readsBefore = profileReads(requests);
    await userEvent.click(screen.getByRole("switch", { name: "Weekly usage report" }));

    expect(await screen.findByText("Preferences Saved")).toBeInTheDocument();
    const put = requests.find((r) => r.method === "PUT" && r.url === "/api/user/notifications");
    expect(put?.body).toEqual({
      emailNotifications: true,
      usageAlerts: true,
      weeklyReports: true,
      marketingEmails: false,
    });
    await waitFor(() => expect(profileReads(requests)).toBe(readsBefore + 1));
    expect(screen.getByRole("switch", { name: "Weekly usage report" })).toBeChecked();
  });

  it("puts the switch back and shows an error when saving fails", async () => {
    await renderSettings({
      "PUT /api/user/notifications": { status: 500, body: errorBody("Internal error", { code: "internal" }) },
    });
    const sw = screen.getByRole("switch", { name: "Email notifications" });
    await userEvent.click(sw);

    expect(await screen.findByText("Internal error")).toBeInTheDocument();
    await waitFor(() => expect(sw).toBeChecked());
    expect(sw).toBeEnabled();
  });
});

describe("Danger Zone", () => {
  it.each(["Cancel", "Escape"])("gives focus back to Delete Account on %s", async (way) => {
    await renderSettings();
    const opener = screen.getByRole("button", { name: "Delete Account" });
    await userEvent.click(opener);
    const dialog = await screen.findByRole("alertdialog", { name: "Delete your account?" });
    expect(dialog).toHaveAccessibleDescription(/account will be closed/i);
    if (way === "Escape") await userEvent.keyboard("{Escape}");
    else await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    await waitFor(() => expect(opener).toHaveFocus());
  });

  it("explains the consequences and asks for the password", async () => {
    const { requests } = await renderSettings();
    await userEvent.click(screen.getByRole("button", { name: "Delete Account" }));
    const dialog = await screen.findByRole("alertdialog");
    expect(dialog).toHaveTextContent(/account will be closed/i);
    expect(dialog).toHaveTextContent(/remaining credits are forfeited/i);
    expect(dialog).toHaveTextContent(/up to 2 years/i);

    await userEvent.click(within(dialog).getByRole("button", { name: "Delete my account" }));
    expect(await within(dialog).findByText("Password is required")).toBeInTheDocument();
    expect(requests.some((r) => r.method === "DELETE")).toBe(false);
  });

  it("closes the account with the password, signs out here and goes home", async () => {
    const { requests } = await renderSettings({ "DELETE /api/user": { status: 204 } });
    await userEvent.click(screen.getByRole("button", { name: "Delete Account" }));
    const dialog = await screen.findByRole("alertdialog");
    await userEvent.type(within(dialog).getByLabelText("Password"), "my-password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete my account" }));

    expect(await screen.findByRole("heading", { name: "Landing" })).toBeInTheDocument();
    expect(screen.getByTestId("location")).toHaveTextContent(/^\/$/);
    const call = requests.find((r) => r.method === "DELETE");
    expect(call).toMatchObject({ url: "/api/user", body: { password: "my-password" } });
    expect(call?.headers.Authorization).toBe("Bearer tok-1");
    expect(localStorage.getItem("token")).toBeNull();
    expect(screen.getByText("Account Closed")).toBeInTheDocument();
    expect(screen.getByText("Your account has been closed.")).toBeInTheDocument();
  });

  it("keeps the session and shows the server's message when the password is wrong", async () => {
    await renderSettings({
      "DELETE /api/user": { status: 400, body: errorBody("Password is incorrect", { field: "password" }) },
    });
    await userEvent.click(screen.getByRole("button", { name: "Delete Account" }));
    const dialog = await screen.findByRole("alertdialog");
    await userEvent.type(within(dialog).getByLabelText("Password"), "wrong-password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete my account" }));

    expect(await within(dialog).findByText("Password is incorrect")).toBeInTheDocument();
    expect(screen.getAllByText("Password is incorrect")).toHaveLength(2); // the field and the toast
    expect(localStorage.getItem("token")).toBe("tok-1");
    expect(screen.getByTestId("location")).toHaveTextContent("/settings");
  });
});
