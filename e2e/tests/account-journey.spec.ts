import { expect, registerThroughUI, signInThroughUI, test, toastTitle, toasts, uniqueEmail } from "./fixtures";

// Issue 2, "Done means" 1: a new user registers, lands on /dashboard inside the shell with their name and 100
// credits, logs out, logs back in, changes their profile and password, resets a forgotten password with the
// development token, and sends a contact message.
test("a new user's whole account journey", async ({ page }) => {
  const account = { fullName: "Jordan Appraiser", email: uniqueEmail("journey"), password: "first-password-1" };

  await test.step("register and land in the shell", async () => {
    await registerThroughUI(page, account);
    await expect(toastTitle(page, "Success")).toBeVisible();
    await expect(page.getByTestId("user-name")).toHaveText(account.fullName);
    await expect(page.getByTestId("user-email")).toHaveText(account.email);
    await expect(page.getByTestId("credits-balance")).toContainText("100 credits");
    await expect(page.getByTestId("api-status")).toHaveText("API Online");
    await expect(page.getByRole("heading", { level: 1, name: "Property Lookup" })).toBeVisible();
  });

  await test.step("log out and back in", async () => {
    await page.getByRole("button", { name: "Log out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    // The session is gone on the server too: a protected page sends the visitor back to sign in.
    await page.goto("/settings");
    await expect(page).toHaveURL(/\/login$/);
    await signInThroughUI(page, account.email, account.password);
    await expect(page.getByTestId("user-name")).toHaveText(account.fullName);
  });

  const newEmail = uniqueEmail("journey-renamed");
  await test.step("change the profile", async () => {
    await page.getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await page.getByLabel("Full Name").fill("Jordan Q. Appraiser");
    await page.getByLabel("Company").fill("Northwind Realty");
    await page.getByLabel("Email", { exact: true }).fill(newEmail);
    // A new email needs the current password (the Security card's field is "Current Password").
    await page.getByLabel("Current password", { exact: true }).fill(account.password);
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(toastTitle(page, "Profile Updated")).toBeVisible();
    await expect(page.getByTestId("user-name")).toHaveText("Jordan Q. Appraiser");
    await expect(page.getByTestId("user-email")).toHaveText(newEmail);
    // It is stored: a reload shows the saved values.
    await page.reload();
    await expect(page.getByLabel("Company")).toHaveValue("Northwind Realty");
  });

  await test.step("change the password (the server checks the current one)", async () => {
    await page.getByLabel("Current Password").fill("not-my-password");
    await page.getByLabel("New Password", { exact: true }).fill("second-password-2");
    await page.getByLabel("Confirm New Password").fill("second-password-2");
    await page.getByRole("button", { name: "Update Password" }).click();
    await expect(page.getByText("Current password is incorrect").first()).toBeVisible();

    await page.getByLabel("Current Password").fill(account.password);
    await page.getByRole("button", { name: "Update Password" }).click();
    await expect(toastTitle(page, "Password Updated")).toBeVisible();
  });

  await test.step("sign in with the new password only", async () => {
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("Email").fill(newEmail);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(toastTitle(page, "Error")).toBeVisible();
    await expect(toasts(page)).toContainText("Invalid email or password");
    await expect(page).toHaveURL(/\/login$/);
    await signInThroughUI(page, newEmail, "second-password-2");
    await page.getByRole("button", { name: "Log out" }).click();
  });

  await test.step("reset a forgotten password with the development token", async () => {
    await page.getByRole("link", { name: /forgot/i }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await page.getByLabel("Email").fill(newEmail);
    await page.getByRole("button", { name: "Send Reset Link" }).click();
    await expect(page.getByText("Check Your Email")).toBeVisible();
    // The development toast (it replaces 'Reset Link Sent': one toast at a time) carries the link.
    await expect(toastTitle(page, "Development Mode")).toBeVisible();
    await page.getByRole("link", { name: "Open reset link" }).click();
    await expect(page).toHaveURL(/\/reset-password\?token=vr_/);

    await page.getByLabel("New Password", { exact: true }).fill("third-password-3");
    await page.getByLabel("Confirm New Password").fill("third-password-3");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(toastTitle(page, "Password Reset Successfully")).toBeVisible();
    await signInThroughUI(page, newEmail, "third-password-3");
  });

  await test.step("send a contact message", async () => {
    await page.goto("/contact-us");
    await page.getByLabel("First Name").fill("Jordan");
    await page.getByLabel("Last Name").fill("Appraiser");
    await page.getByLabel("Email").fill(newEmail);
    await page.getByLabel("Company (optional)").fill("Northwind Realty");
    await page.getByLabel("Subject").click();
    await page.getByRole("option", { name: "Technical Support" }).click();
    await page.getByLabel("Message").fill("How do I map a column named 'Situs Address' in a batch upload?");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(toastTitle(page, "Message Sent")).toBeVisible();
    await expect(page.getByLabel("Message")).toHaveValue("");
  });
});

test("a used reset link cannot be used again", async ({ page, request }) => {
  const account = { fullName: "Riley Reset", email: uniqueEmail("reuse"), password: "first-password-1" };
  await registerThroughUI(page, account);
  const res = await request.post("/api/auth/request-password-reset", { data: { email: account.email } });
  const { resetToken } = (await res.json()) as { resetToken: string };
  expect(resetToken).toMatch(/^vr_/);

  for (const attempt of [1, 2]) {
    await page.goto(`/reset-password?token=${encodeURIComponent(resetToken)}`);
    await page.getByLabel("New Password", { exact: true }).fill(`password-try-${attempt}`);
    await page.getByLabel("Confirm New Password").fill(`password-try-${attempt}`);
    await page.getByRole("button", { name: "Reset Password" }).click();
    if (attempt === 1) {
      await expect(page).toHaveURL(/\/login$/);
    } else {
      await expect(toastTitle(page, "Password Reset Failed")).toBeVisible();
      await expect(toasts(page)).toContainText("invalid or has expired");
    }
  }
});

test("sign-up validation is shown in the form and the server refuses a taken email", async ({ page }) => {
  const email = uniqueEmail("taken");
  await registerThroughUI(page, { fullName: "First Owner", email, password: "password-123" });
  await page.getByRole("button", { name: "Log out" }).click();

  await page.goto("/register");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByText("Full name must be at least 2 characters")).toBeVisible();
  await expect(page.getByText("Invalid email address")).toBeVisible();
  await expect(page.getByText("Password must be at least 8 characters")).toBeVisible();

  await page.getByLabel("Full Name").fill("Second Owner");
  await page.getByLabel("Email").fill(email.toUpperCase());
  await page.getByLabel("Password", { exact: true }).fill("password-123");
  await page.getByLabel("Confirm Password").fill("password-124");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByText("Passwords don't match")).toBeVisible();

  await page.getByLabel("Confirm Password").fill("password-123");
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(toastTitle(page, "Error")).toBeVisible();
  await expect(toasts(page)).toContainText("An account with this email already exists");
  await expect(page).toHaveURL(/\/register$/);
});
