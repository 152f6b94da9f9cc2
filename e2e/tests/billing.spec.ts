// Billing & Credits end to end in test mode (the default without Stripe): a new user is declined, subscribes to
// Basic, spends into overage, sets an overage limit and is refused past it, upgrades to Professional with a
// prorated charge, schedules a downgrade, cancels, and finds every change in the credit history.
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { DEMO_HOME, createKey, creditsOf, dashboardLookup, openSignedIn, registerByApi } from "./public-api";

/** A toast's title. While a modal dialog is open the notifications region is hidden from the accessibility tree
 * (Radix marks the rest of the page aria-hidden), so the toast is found by its text. */
function toastTitle(page: Page, title: string) {
  return page.locator("li").getByText(title, { exact: true }).first();
}

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

interface LedgerRow {
  id: number;
  description: string;
  amount: number;
  balance: number;
  kind: string;
  createdAt: string;
}

/** The whole credit ledger, oldest first, read page by page. */
async function ledger(request: APIRequestContext, token: string): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = [];
  let path = "/api/billing/credits/history?limit=100";
  for (;;) {
    const res = await request.get(path, { headers: bearer(token) });
    expect(res.status()).toBe(200);
    const page = (await res.json()) as { data: LedgerRow[]; pagination: { hasMore: boolean; nextBefore: number | null } };
    rows.push(...page.data);
    if (!page.pagination.hasMore) break;
    path = `/api/billing/credits/history?limit=100&before=${page.pagination.nextBefore}`;
  }
  return rows.reverse();
}

/** Fills the test-mode card form and submits it with the button labelled `submit`. */
async function payWith(page: Page, number: string, submit: RegExp) {
  const form = page.getByRole("form", { name: "Card details" });
  await expect(form.getByText("Test mode")).toBeVisible();
  await form.getByLabel("Card number").fill(number);
  await form.getByLabel("Expiry (MM/YY)").fill("12/34");
  await form.getByLabel("CVC").fill("123");
  await form.getByLabel("Name on card").fill("Jane Doe");
  await form.getByRole("button", { name: submit }).click();
}

/** Effective rate limit of the account's key named `name`. */
async function keyCap(request: APIRequestContext, token: string, name: string): Promise<number> {
  const res = await request.get("/api/api-keys", { headers: bearer(token) });
  const keys = (await res.json()) as { name: string; effectiveRateLimit: number }[];
  return keys.find((k) => k.name === name)?.effectiveRateLimit ?? -1;
}

test("a customer's whole money loop in test mode", async ({ page, request }) => {
  test.setTimeout(180_000);
  const session = await registerByApi(request, "billing", "Jane Doe");
  const token = session.token;
  await createKey(request, token, "Production", 1000);
  expect(await keyCap(request, token, "Production")).toBe(60);
  await openSignedIn(page, token, "/billing");
  await expect(page.getByRole("heading", { name: "Billing & Credits" })).toBeVisible();

  await test.step("a declined card: 'Subscription Failed' with the provider's message", async () => {
    await page.getByRole("button", { name: "Get Started" }).first().click();
    await payWith(page, "4000 0000 0000 0002", /Subscribe for/);
    await expect(toastTitle(page, "Subscription Failed")).toBeVisible();
    await expect(page.getByText("Your card was declined.").first()).toBeVisible();
    expect(await creditsOf(request, token)).toBe(100);
  });

  await test.step("4242 4242 4242 4242 in the same form: Basic, 1,000 credits and a 60/min cap", async () => {
    await payWith(page, "4242 4242 4242 4242", /Subscribe for/);
    await expect(toastTitle(page, "Subscription Created")).toBeVisible();
    await expect(page.getByRole("button", { name: "Current Plan" })).toBeVisible();
    await expect(page.getByText("1,100").first()).toBeVisible();
    await expect(page.getByText("Basic plan: 1,000 credits", { exact: false }).first()).toBeVisible();
    expect(await creditsOf(request, token)).toBe(1100);
    expect(await keyCap(request, token, "Production")).toBe(60);
  });

  await test.step("spending past the balance goes into overage", async () => {
    // A batch of 1,000 rows (Basic's largest) and 101 lookups: 1,101 credits, one past the balance.
    const properties = Array.from({ length: 1000 }, () => ({
      address: DEMO_HOME.address, city: DEMO_HOME.city, state: DEMO_HOME.state, zip: DEMO_HOME.zip,
    }));
    const res = await request.post("/api/jobs", {
      headers: bearer(token),
      data: { type: "batch", fileName: "thousand.json", inputData: { properties } },
    });
    expect(res.status(), await res.text()).toBe(201);
    const job = (await res.json()) as { id: number };
    await expect
      .poll(async () => {
        const j = await request.get(`/api/jobs/${job.id}`, { headers: bearer(token) });
        return ((await j.json()) as { status: string }).status;
      }, { timeout: 90_000, intervals: [500, 1000] })
      .toBe("completed");
    expect(await creditsOf(request, token)).toBe(100);
    for (let i = 0; i < 101; i++) expect((await dashboardLookup(request, token)).status()).toBe(200);
    expect(await creditsOf(request, token)).toBe(-1);
    await page.reload();
    await expect(page.getByTestId("overage-credits")).toHaveText("1");
    await expect(page.getByTestId("estimated-overage")).toHaveText("$0.0300");
  });

  await test.step("an overage limit: saved with Enter, then 402 past it", async () => {
    await page.getByRole("button", { name: "Set Usage Limit" }).click();
    const dialog = page.getByRole("dialog", { name: "Custom Usage Limit" });
    await dialog.getByLabel("Overage limit (USD)").fill("0.06");
    await dialog.getByLabel("Overage limit (USD)").press("Enter");
    await expect(toastTitle(page, "Limit Updated")).toBeVisible();
    expect((await dashboardLookup(request, token)).status()).toBe(200); // the second overage credit
    const refused = await dashboardLookup(request, token);
    expect(refused.status()).toBe(402);
    const body = (await refused.json()) as { error: string; overageLimitCents: number; overageCredits: number };
    expect(body.overageLimitCents).toBe(6);
    expect(body.overageCredits).toBe(2);
    expect(body.error).toContain("Overage limit reached");
  });

  await test.step("upgrade to Professional: the prorated charge shown and paid, the key's cap 120", async () => {
    await page.reload();
    await page.getByRole("button", { name: "Choose Professional" }).click();
    const dialog = page.getByRole("dialog", { name: "Upgrade to Professional" });
    await expect(dialog.getByText(/You pay \$\d+\.\d\d now, prorated/)).toBeVisible();
    await dialog.getByRole("button", { name: "Confirm Upgrade" }).click();
    await payWith(page, "4242 4242 4242 4242", /^Pay \$/);
    await expect(toastTitle(page, "Plan Updated")).toBeVisible();
    await expect.poll(() => keyCap(request, token, "Production")).toBe(120);
    const sub = await (await request.get("/api/billing/subscription", { headers: bearer(token) })).json();
    expect(sub.planType).toBe("professional");
  });

  await test.step("schedule a downgrade to Basic for the period end", async () => {
    await page.getByRole("button", { name: "Switch to Basic" }).click();
    const dialog = page.getByRole("dialog", { name: "Switch to Basic" });
    await dialog.getByRole("button", { name: "Confirm Switch" }).click();
    await expect(toastTitle(page, "Plan Updated")).toBeVisible();
    await expect(page.getByText(/Switches to Basic on/)).toBeVisible();
  });

  await test.step("cancel at period end", async () => {
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Cancel subscription" }).click();
    await expect(toastTitle(page, "Subscription Canceled")).toBeVisible();
    await expect(page.getByText("Cancels at period end")).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel subscription" })).toHaveCount(0);
  });

  await test.step("every change is in the credit history, and the ledger adds up", async () => {
    const rows = await ledger(request, token);
    let balance = 0;
    for (const r of rows) {
      expect(r.balance, `${r.description}`).toBe(balance + r.amount);
      balance = r.balance;
    }
    expect(balance).toBe(await creditsOf(request, token));
    const kinds = rows.map((r) => r.kind);
    for (const k of ["signup_bonus", "plan_credits", "batch", "property_valuation", "proration_credits"]) expect(kinds).toContain(k);
    // The screen shows the first 10 and more on request.
    const history = page.getByRole("table", { name: "Credit history" });
    await expect(history.getByText(/Upgrade from Basic to Professional/)).toBeVisible();
    await expect(history.getByRole("row")).toHaveCount(11); // a header and the first 10
    await page.getByRole("button", { name: "Show more", exact: true }).click();
    await expect(history.getByRole("row")).toHaveCount(21);
    // For the closing note: the user's ledger, row by row (batch rows are charged in chunks).
    console.log(rows.map((r) => `${r.createdAt}\t${r.kind}\t${r.amount > 0 ? "+" : ""}${r.amount}\t${r.balance}\t${r.description}`).join("\n"));
  });
});
