// The operators' side (issue 27) end to end, at a laptop's and a phone's size: a customer on Basic writes to the
// team from the dashboard's Support panel; the seeded operator finds the account in the ops, grants 50 credits
// with a reason, refunds the Basic payment (which ends the plan) and answers the chat; the customer sees the reply
// arrive in the open panel. Every action leaves an admin audit row, and each ops screen passes the screen walk's layout check.
import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { alignClock, expect, test } from "./fixtures";
import { creditsOf, openSignedIn, registerByApi } from "./public-api";
import { checkScreen, VIEWPORTS, type Viewport } from "./walk";

const OPERATOR = { email: "admin@valuator.dev", password: "valuator-admin" };

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

/** Buys Basic with the test card through the API, as the Billing screen does: a Paid payment to refund. */
async function subscribeBasic(request: APIRequestContext, token: string): Promise<void> {
  const card = await request.post("/api/billing/test-mode/payment-methods", {
    headers: bearer(token), data: { number: "4242424242424242", expMonth: 12, expYear: 2034, cvc: "123" },
  });
  expect(card.status(), await card.text()).toBe(200);
  const pm = ((await card.json()) as { id: string }).id;
  const sub = await request.post("/api/billing/subscribe", { headers: bearer(token), data: { planType: "basic", paymentMethodId: pm } });
  expect(sub.status(), await sub.text()).toBe(200);
  const { clientSecret } = (await sub.json()) as { clientSecret: string };
  const paid = await request.post("/api/billing/test-mode/confirm", { headers: bearer(token), data: { clientSecret, paymentMethodId: pm } });
  expect(paid.status(), await paid.text()).toBe(200);
}

async function operatorToken(request: APIRequestContext): Promise<string> {
  const res = await request.post("/api/auth/login", { data: OPERATOR });
  expect(res.status(), "the development seed makes admin@valuator.dev an operator").toBe(200);
  return ((await res.json()) as { token: string }).token;
}

/** A second browser window at the same size, signed in with `token`. */
async function windowFor(browser: Browser, viewport: Viewport, token: string, path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  await alignClock(context, test.info().project.use.baseURL!);
  const page = await context.newPage();
  await openSignedIn(page, token, path);
  return page;
}

/** Opens the Support panel: the header's button, or on a phone the menu's. */
async function openSupport(page: Page, viewport: Viewport): Promise<void> {
  if (viewport.width < 640) {
    await page.getByRole("button", { name: "Open menu" }).click();
    await page.getByTestId("menu-support-button").click();
  } else {
    await page.getByTestId("support-button").click();
  }
  await expect(page.getByRole("dialog", { name: "Support" })).toBeVisible();
}

function toast(page: Page, title: string) {
  return page.locator("li").getByText(title, { exact: true }).first();
}

for (const viewport of VIEWPORTS) {
  test(`an operator grants credits, refunds and answers a chat (${viewport.width}x${viewport.height})`, async ({ page, request, browser }) => {
    test.setTimeout(180_000);
    await page.setViewportSize(viewport);
    const customer = await registerByApi(request, `chat-${viewport.name}`, `Chat ${viewport.name === "phone" ? "Phone" : "Laptop"}`);
    await subscribeBasic(request, customer.token);
    expect(await creditsOf(request, customer.token)).toBe(1100);

    const question = `My export is missing a column (${viewport.name})`;
    await test.step("the customer writes to the team from the dashboard", async () => {
      await openSignedIn(page, customer.token, "/dashboard");
      await openSupport(page, viewport);
      const panel = page.getByRole("dialog", { name: "Support" });
      await panel.getByLabel("Your message").fill(question);
      await panel.getByRole("button", { name: "Send" }).click();
      await expect(panel.getByRole("log", { name: "Conversation with the Valuator team" }).getByText(question)).toBeVisible();
      await checkScreen(page, "support-panel", viewport);
    });

    const adminToken = await operatorToken(request);
    const ops = await windowFor(browser, viewport, adminToken, "/admin");
    let accountId = 0;

    await test.step("the operator finds the customer by email", async () => {
      await expect(ops.getByRole("heading", { level: 1 })).toBeVisible();
      await ops.getByLabel("Search accounts").fill(customer.email);
      await ops.getByRole("button", { name: "Search" }).click();
      const link = ops.getByRole("link", { name: customer.email });
      await expect(link).toBeVisible();
      accountId = Number(/\/admin\/accounts\/(\d+)/.exec((await link.getAttribute("href")) ?? "")?.[1]);
      expect(accountId).toBeGreaterThan(0);
      await checkScreen(ops, "admin-accounts", viewport);
      await link.click();
      await expect(ops.getByRole("heading", { level: 1, name: customer.email })).toBeVisible();
    });

    await test.step("grants 50 credits with a reason", async () => {
      await ops.getByRole("button", { name: "Grant credits" }).click();
      const dialog = ops.getByRole("dialog", { name: "Grant credits" });
      // A reason is required: the field says so and nothing is granted.
      await dialog.getByLabel("Amount (credits)").fill("50");
      await dialog.getByRole("button", { name: "Grant credits" }).click();
      await expect(dialog.getByLabel("Reason")).toHaveAttribute("aria-invalid", "true");
      expect(await creditsOf(request, customer.token)).toBe(1100);
      await dialog.getByLabel("Reason").fill("Outage on Nov 26: lookups failed for an hour");
      await dialog.getByRole("button", { name: "Grant credits" }).click();
      await expect(dialog).toHaveCount(0);
      await expect.poll(() => creditsOf(request, customer.token)).toBe(1150);
      await expect(ops.getByTestId("account-balance")).toContainText("1,150");
      await checkScreen(ops, "admin-account", viewport);
    });

    await test.step("refunds the Basic payment: its credits are taken back and the plan ends", async () => {
      await ops.getByRole("button", { name: "Refund Basic plan, first month" }).click();
      const dialog = ops.getByRole("dialog", { name: "Refund payment" });
      // What a refund does to the plan, before the operator confirms (issue 36, L-4).
      await expect(dialog).toContainText("A full refund also ends the plan at once; a partial refund keeps it.");
      await dialog.getByLabel("Reason").fill("Charged twice by mistake, per the customer's email");
      await dialog.getByRole("button", { name: "Refund" }).click();
      await expect(dialog).toHaveCount(0);
      await expect.poll(() => creditsOf(request, customer.token)).toBe(150);
      await expect(ops.getByRole("button", { name: "Refund Basic plan, first month" })).toHaveCount(0);
      const res = await request.get("/api/billing/payments?limit=10", { headers: bearer(customer.token) });
      const payments = ((await res.json()) as { data: { status: string; description: string }[] }).data;
      expect(payments.map((p) => p.status)).toEqual(["refunded"]);
      // The full refund of this period's payment ended the plan at once: Free, nothing renews.
      const sub = await request.get("/api/billing/subscription", { headers: bearer(customer.token) });
      expect((await sub.json()) as { planType: string; status: string }).toMatchObject({ planType: "free", status: "none" });
    });

    const answer = `Thanks for writing: the column is back in today's release (${viewport.name}).`;
    await test.step("answers the chat from the support inbox", async () => {
      await ops.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Support inbox" }).click();
      const item = ops.getByTestId("inbox-list").getByRole("button").filter({ hasText: question });
      await expect(item).toBeVisible();
      await item.click();
      const thread = ops.getByTestId("conversation");
      await expect(thread.getByText(question)).toBeVisible();
      await thread.getByRole("button", { name: "Assign to me" }).click();
      await expect(toast(ops, "Assigned to you")).toBeVisible();
      await thread.getByLabel("Reply").fill(answer);
      await thread.getByRole("button", { name: "Send reply" }).click();
      await expect(toast(ops, "Reply sent")).toBeVisible();
      await checkScreen(ops, "admin-support", viewport);
    });

    await test.step("the customer sees the reply arrive in the open panel", async () => {
      const log = page.getByRole("dialog", { name: "Support" }).getByRole("log", { name: "Conversation with the Valuator team" });
      await expect(log.getByText(answer)).toBeVisible({ timeout: 15_000 });
    });

    await test.step("every action is in the admin audit log", async () => {
      const res = await request.get(`/api/admin/audit?accountId=${accountId}&limit=50`, { headers: bearer(adminToken) });
      expect(res.status()).toBe(200);
      const rows = ((await res.json()) as {
        data: { action: string; adminEmail: string | null; reason: string; before: unknown; after: unknown; createdAt: string }[];
      }).data;
      const actions = rows.map((r) => r.action);
      for (const a of ["credit_adjustment", "refund", "support_assign", "support_reply"]) expect(actions).toContain(a);
      for (const r of rows) expect(r.adminEmail).toBe(OPERATOR.email);
      // For the closing note: the audit rows of this run.
      console.log(rows.map((r) => `${r.createdAt}\t${r.action}\t${r.adminEmail}\t${r.reason}\t${JSON.stringify(r.before)} -> ${JSON.stringify(r.after)}`).join("\n"));
      // The customer cannot read it.
      const refused = await request.get("/api/admin/audit", { headers: bearer(customer.token) });
      expect(refused.status()).toBe(403);
    });
    await ops.context().close();
  });
}

