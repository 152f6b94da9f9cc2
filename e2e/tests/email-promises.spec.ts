import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { alignClock, expect, registerThroughUI, test, uniqueEmail } from "./fixtures";

// Only what exists is promised (issue 25): the Contact page names the channels that reach a person (email to the
// configured support address, and the form), Settings says what each email switch sends, and an email's
// unsubscribe link turns its switch off without signing in.

/**
 * The unsubscribe token the server puts in an account's emails (internal/notify/token.go), made with the secret a
 * development server keeps in its data folder: the e2e server cannot show the test an email, and the product has
 * no route that hands tokens out.
 */
function unsubscribeToken(userId: number, topic: string): string {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const secret = readFileSync(path.join(dataDir, "secret"), "utf8").trim();
  const key = createHash("sha256").update(`valuator:unsubscribe:${secret}`).digest();
  const body = `u1.${userId}.${topic}`;
  return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
}

test("the contact page names only channels that exist: the configured address, the form and the dashboard's chat", async ({ page, request }) => {
  const site = await request.get("/api/site");
  expect(site.ok()).toBe(true);
  const { supportEmail, supportHours } = (await site.json()) as { supportEmail: string; supportHours: string };
  expect(supportEmail).toMatch(/@/);
  expect(supportHours).toBe("Mon–Fri 9 AM–6 PM PT"); // VALUATOR_SUPPORT_HOURS' default

  await page.goto("/contact-us");
  await expect(page.getByRole("heading", { level: 1, name: "Contact Us" })).toBeVisible();
  await expect(page.getByRole("link", { name: supportEmail })).toHaveAttribute("href", `mailto:${supportEmail}`);
  await expect(page.getByRole("heading", { name: "Email Support" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Contact Form" })).toBeVisible();
  // The live chat is the signed-in dashboard's Support panel (issue 27), with the configured office hours.
  await expect(page.getByRole("heading", { name: "Live Chat" })).toBeVisible();
  await expect(page.getByText(`Office hours: ${supportHours}`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign in to chat" })).toHaveAttribute("href", "/login");
  await expect(page.locator("main")).not.toContainText(/phone/i);
  await expect(page.locator('a[href^="tel:"]')).toHaveCount(0);

  await page.getByRole("link", { name: "Send us a message" }).click();
  await expect(page).toHaveURL(/#send-us-a-message$/);
  await expect(page.getByLabel("First Name")).toBeInViewport();
});

test("Settings says what each email switch sends, and that product news is not sent", async ({ page }) => {
  await registerThroughUI(page, { fullName: "Sam Switches", email: uniqueEmail("switches"), password: "switch-password-1" });
  await page.goto("/settings");
  const news = page.getByRole("switch", { name: "Product news" });
  await expect(news).toBeVisible();
  await expect(page.getByText("We don't send any yet; this only records whether you'd like them.")).toBeVisible();
  await expect(page.getByText(/signed in to from a new browser or network/)).toBeVisible();
  await expect(page.getByText(/Every Monday, last week's calls/)).toBeVisible();
});

test("an unsubscribe link turns the weekly report off without signing in", async ({ browser, request }) => {
  const email = uniqueEmail("unsub");
  const reg = await request.post("/api/auth/register", {
    data: { email, password: "unsubscribe-password-1", fullName: "Una Subscriber" },
  });
  expect(reg.status()).toBe(201);
  const { token: session, user } = (await reg.json()) as { token: string; user: { id: number } };
  const auth = { Authorization: `Bearer ${session}` };
  const on = await request.put("/api/user/notifications", {
    headers: auth,
    data: { emailNotifications: true, usageAlerts: true, weeklyReports: true, marketingEmails: false },
  });
  expect(on.ok()).toBe(true);

  // A fresh browser context: no session at all, as when the link is opened from a mail program.
  const context = await browser.newContext();
  await alignClock(context, test.info().project.use.baseURL!);
  const page = await context.newPage();
  await page.goto(`/unsubscribe?token=${encodeURIComponent(unsubscribeToken(user.id, "weeklyReports"))}`);
  await expect(page.getByRole("heading", { level: 2, name: "Stop weekly usage report" })).toBeVisible();
  await expect(page.getByTestId("unsubscribe-what")).toContainText("the weekly usage report sent on Mondays");
  // Opening the link changed nothing (mail scanners open links).
  let me = (await (await request.get("/api/user/profile", { headers: auth })).json()) as {
    notifications: Record<string, boolean>;
  };
  expect(me.notifications.weeklyReports).toBe(true);

  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByTestId("unsubscribe-done")).toContainText("You will no longer receive the weekly usage report");
  me = (await (await request.get("/api/user/profile", { headers: auth })).json()) as typeof me;
  expect(me.notifications).toEqual({ emailNotifications: true, usageAlerts: true, weeklyReports: false, marketingEmails: false });
  await context.close();
});

test("an altered unsubscribe link is refused with a clear message", async ({ page, request }) => {
  const bad = "u1.1.weeklyReports.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const api = await request.post("/api/unsubscribe", { data: { token: bad } });
  expect(api.status()).toBe(400);
  expect(((await api.json()) as { field: string }).field).toBe("token");

  await page.goto(`/unsubscribe?token=${bad}`);
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByTestId("unsubscribe-bad-link")).toContainText("This unsubscribe link is not valid.");
  await expect(page.getByRole("link", { name: "Go to Settings" })).toBeVisible();

  await page.goto("/unsubscribe?token=not-a-link");
  await expect(page.getByTestId("unsubscribe-bad-link")).toContainText("This unsubscribe link is not valid.");
  await expect(page.getByRole("button", { name: "Unsubscribe" })).toHaveCount(0);
});
