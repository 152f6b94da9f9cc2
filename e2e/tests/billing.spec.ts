// Billing & Credits end to end in test mode (the default without Stripe), as a new customer and as an attacker would
// try it: a declining card is refused, Basic is bought, spending runs into overage
// (the header, the card and the banner say the same thing), an overage limit refuses past it, the card on file pays
// the upgrade to Professional in one click, a downgrade is scheduled, the subscription is cancelled (one upcoming
// figure, with the reason), and the payment history shows receipts only for money that moved.
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { DEMO_HOME, createKey, creditsOf, dashboardLookup, openSignedIn, registerByApi } from "./public-api";
import { checkAtBothSizes } from "./walk";

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

/** The account's payments, newest first, as the API shows them. */
async function payments(request: APIRequestContext, token: string) {
  const res = await request.get("/api/billing/payments?limit=100", { headers: bearer(token) });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { data: { id: number; kind: string; status: string; amountCents: number; description: string; receiptUrl: string | null; failureMessage: string }[] }).data;
}

/** The header's balance and the Available Credits card: the same words, from one function. */
async function sameBalanceEverywhere(page: Page, want: string) {
  await expect(page.getByTestId("credits-balance")).toHaveText(want);
  await expect(page.getByTestId("available-credits")).toHaveText(want);
}

test("a customer's whole money loop in test mode", async ({ page, request }) => {
  test.setTimeout(240_000);
  const session = await registerByApi(request, "billing", "Jane Doe");
  const token = session.token;
  await createKey(request, token, "Production", 1000);
  expect(await keyCap(request, token, "Production")).toBe(60);

  // An abandoned payment's expiry, a day later, is tests/later/payment-expiry.spec.ts: it moves the server's clock.
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
    await sameBalanceEverywhere(page, "1,100 credits");
    await expect(page.getByText("Basic plan: 1,000 credits", { exact: false }).first()).toBeVisible();
    expect(await creditsOf(request, token)).toBe(1100);
    expect(await keyCap(request, token, "Production")).toBe(60);
  });

  await test.step("spending past the plan's credits: the header, the card and the banner say the same overage", async () => {
    // A batch of 1,000 rows (Basic's largest) and 110 lookups: 1,110 credits, ten past the balance.
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
    for (let i = 0; i < 110; i++) expect((await dashboardLookup(request, token)).status()).toBe(200);
    expect(await creditsOf(request, token)).toBe(-10);
    await page.reload();
    await sameBalanceEverywhere(page, "0 credits · 10 overage ($0.30)");
    await expect(page.getByTestId("banner-balance")).toHaveText("0 credits · 10 overage ($0.30)");
    const banner = page.getByTestId("low-balance-warning");
    await expect(banner).toContainText("You are in overage at $0.03 a credit; raise your plan or set a limit.");
    await expect(banner).not.toContainText("keep working");
    await expect(page.getByTestId("overage-credits")).toHaveText("10");
    await checkAtBothSizes(page, "billing-overage");
  });

  await test.step("an overage limit: saved with Enter, then 402 past it, with the same balance in the answer", async () => {
    await page.getByRole("button", { name: "Set Usage Limit" }).click();
    const dialog = page.getByRole("dialog", { name: "Custom Usage Limit" });
    await dialog.getByLabel("Overage limit (USD)").fill("0.36");
    await dialog.getByLabel("Overage limit (USD)").press("Enter");
    await expect(toastTitle(page, "Limit Updated")).toBeVisible();
    expect((await dashboardLookup(request, token)).status()).toBe(200);
    expect((await dashboardLookup(request, token)).status()).toBe(200); // the twelfth overage credit: the limit
    const refused = await dashboardLookup(request, token);
    expect(refused.status()).toBe(402);
    const body = (await refused.json()) as { error: string; creditBalance: { state: string; overageCredits: number; overageCents: number } };
    expect(body.error).toContain("Overage limit reached");
    expect(body.creditBalance).toMatchObject({ state: "limit_reached", overageCredits: 12, overageCents: 36 });
    await page.reload();
    await sameBalanceEverywhere(page, "0 credits · 12 overage ($0.36)");
    await expect(page.getByTestId("low-balance-warning")).toContainText("overage limit is used up");
  });

  await test.step("upgrade to Professional in one click: the card on file pays, no card form", async () => {
    await page.getByRole("button", { name: "Choose Professional" }).click();
    const dialog = page.getByRole("dialog", { name: "Upgrade to Professional" });
    const charge = (await dialog.getByTestId("proration-charge").textContent()) ?? "";
    expect(charge).toMatch(/^\$\d[\d,]*(\.\d\d)?$/);
    await expect(dialog.getByTestId("proration-card")).toContainText("4242");
    await dialog.getByRole("button", { name: "Confirm Upgrade" }).click();
    await expect(toastTitle(page, "Plan Updated")).toBeVisible();
    await expect(page.getByRole("form", { name: "Card details" })).toHaveCount(0);
    await expect.poll(() => keyCap(request, token, "Production")).toBe(120);
    const sub = await (await request.get("/api/billing/subscription", { headers: bearer(token) })).json();
    expect(sub.planType).toBe("professional");
    const upgrade = (await payments(request, token)).find((p) => p.kind === "upgrade");
    expect(upgrade).toMatchObject({ status: "succeeded" });
    expect(charge).toBe(`$${(upgrade!.amountCents / 100).toFixed(upgrade!.amountCents % 100 === 0 ? 0 : 2)}`);
  });

  await test.step("update the card on file with the keyboard alone; focus comes back to the button", async () => {
    const open = page.getByRole("button", { name: "Update card" });
    await open.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Update card" });
    await expect(dialog).toBeVisible();
    // The first field has focus; the card is typed and the form submitted from the keyboard.
    await expect(dialog.getByLabel("Card number")).toBeFocused();
    await page.keyboard.type("5555 5555 5555 4444");
    await dialog.getByLabel("Expiry (MM/YY)").fill("12/34");
    await dialog.getByLabel("CVC").fill("123");
    await dialog.getByLabel("CVC").press("Enter");
    await expect(toastTitle(page, "Card Updated")).toBeVisible();
    await expect(dialog).toHaveCount(0);
    await expect(open).toBeFocused();
    await expect(page.getByText("Mastercard •••• 4444").first()).toBeVisible();
  });

  await test.step("schedule a downgrade to Basic for the period end", async () => {
    await page.getByRole("button", { name: "Switch to Basic" }).click();
    const dialog = page.getByRole("dialog", { name: "Switch to Basic" });
    await dialog.getByRole("button", { name: "Confirm Switch" }).click();
    await expect(toastTitle(page, "Plan Updated")).toBeVisible();
    await expect(page.getByText(/Switches to Basic on/)).toBeVisible();
  });

  await test.step("cancel at period end: one upcoming figure, with the reason", async () => {
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Cancel subscription" }).click();
    await expect(toastTitle(page, "Subscription Canceled")).toBeVisible();
    await expect(page.getByText("Cancels at period end")).toBeVisible();
    await expect(page.getByRole("button", { name: "Cancel subscription" })).toHaveCount(0);
    const usage = page.getByTestId("metered-usage-card");
    await expect(page.getByTestId("upcoming-charge")).toHaveText(/^\$0: your plan ends on [A-Z][a-z]{2} \d{1,2}, \d{4}$/);
    await expect(usage.getByText("Plan price")).toHaveCount(0);
    await checkAtBothSizes(page, "billing-cancelled");
  });

  await test.step("the payment history: receipts only for money that moved", async () => {
    const list = await payments(request, token);
    const byStatus = (status: string) => list.filter((p) => p.status === status);
    expect(byStatus("failed")).toHaveLength(1);
    expect(byStatus("succeeded")).toHaveLength(2); // Basic and the upgrade
    for (const p of list) expect(p.receiptUrl === null, `${p.status} ${p.description}`).toBe(p.status !== "succeeded");
    const rows = page.getByTestId("payment-row");
    await expect(rows).toHaveCount(3);
    for (const label of ["Declined"]) {
      const row = rows.filter({ hasText: label });
      await expect(row).toHaveCount(1);
      await expect(row.getByRole("link", { name: "Receipt" })).toHaveCount(0);
      await expect(row.getByText("No receipt")).toHaveCount(1);
    }
    await expect(rows.filter({ hasText: "Paid" }).getByRole("link", { name: "Receipt" })).toHaveCount(2);
    const receipt = await request.get(`/api/billing/payments/${byStatus("failed")[0]!.id}/receipt`, { headers: bearer(token) });
    expect(receipt.status()).toBe(404);
    // For the closing note: the customer's payments.
    console.log(list.map((p) => `#${p.id}\t${p.kind}\t${p.status}\t${p.amountCents}\t${p.receiptUrl ?? "-"}\t${p.description}\t${p.failureMessage}`).join("\n"));
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
