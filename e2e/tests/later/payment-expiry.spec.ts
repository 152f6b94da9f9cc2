// Time passing, simulated: these tests move the server's clock (POST /api/dev/clock, which a server started on
// VALUATOR_CLOCK has) instead of sleeping. The clock is the whole server's, so they run in the "later" project, after
// every other test has finished (playwright.config.ts): a day passing under another test's open payment would
// expire it.
import { alignClock, expect, test } from "../fixtures";
import { openSignedIn, registerByApi } from "../public-api";

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

test("a payment left unpaid for a day expires, charges nothing and has no receipt", async ({ page, request, baseURL }) => {
  const { token } = await registerByApi(request, "expiry", "Ida Expiry");
  const card = await request.post("/api/billing/test-mode/payment-methods", {
    headers: bearer(token),
    data: { number: "4242424242424242", expMonth: 12, expYear: 2034, cvc: "123" },
  });
  expect(card.status()).toBe(200);
  const pm = ((await card.json()) as { id: string }).id;
  const sub = await request.post("/api/billing/subscribe", { headers: bearer(token), data: { planType: "basic", paymentMethodId: pm } });
  expect(sub.status(), await sub.text()).toBe(200);

  const payments = async () => {
    const res = await request.get("/api/billing/payments?limit=10", { headers: bearer(token) });
    expect(res.status()).toBe(200);
    return ((await res.json()) as { data: { status: string; receiptUrl: string | null; expiresAt: string | null }[] }).data;
  };
  // Never confirmed: the customer closed the tab. Within the day it is pending.
  const [open] = await payments();
  expect(open).toMatchObject({ status: "pending", receiptUrl: null });
  const expiresAt = Date.parse(open!.expiresAt!);

  // A day passes (VALUATOR_PAYMENT_TTL is the default 24 hours here), on the server's clock only.
  const moved = await request.post("/api/dev/clock", { data: { advance: "24h1m" } });
  expect(moved.status(), await moved.text()).toBe(200);
  expect(Date.parse(((await moved.json()) as { now: string }).now)).toBeGreaterThan(expiresAt);

  expect(await payments()).toMatchObject([{ status: "expired", receiptUrl: null, expiresAt: null }]);
  const user = await request.get("/api/auth/user", { headers: bearer(token) });
  expect(((await user.json()) as { credits: number; plan: string })).toMatchObject({ credits: 100, plan: "free" });

  // The browser's clock follows the server's a day on.
  await alignClock(page.context(), baseURL!);
  await openSignedIn(page, token, "/billing");
  const row = page.getByTestId("payment-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Expired");
  await expect(row.getByText("No receipt")).toBeVisible();
  await expect(row.getByRole("link", { name: "Receipt" })).toHaveCount(0);
});

test("the clock only moves forward, by a bounded step, and says what is wrong", async ({ request }) => {
  for (const advance of ["-1h", "0s", "soon", "100000h", ""]) {
    const res = await request.post("/api/dev/clock", { data: { advance } });
    expect(res.status(), advance).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_input", field: "advance" });
  }
});
