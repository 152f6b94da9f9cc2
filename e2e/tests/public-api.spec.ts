import { expect, test, toastTitle } from "./fixtures";
import {
  callPublic,
  createKey,
  creditsOf,
  dashboardLookup,
  DEMO_HOME,
  NOWHERE_HOME,
  openSignedIn,
  rateLimitHeaders,
  registerByApi,
  valuationQuery,
} from "./public-api";

test("out of credits: the public API answers 402 with the balance and plan terms, and keeps its rate-limit headers", async ({
  page,
  request,
}) => {
  const session = await registerByApi(request, "broke", "Bo Broke");
  const key = await createKey(request, session.token, "Spender", 60);

  await test.step("spend the 100 free credits on dashboard lookups", async () => {
    // Ten at a time: enough parallelism to be quick, little enough for a loaded machine.
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => dashboardLookup(request, session.token)));
      expect(answers.map((r) => r.status())).toEqual(Array(10).fill(200));
    }
    expect(await creditsOf(request, session.token)).toBe(0);
  });

  await test.step("a public call answers 402 with the balance, the cost and the plan's overage terms", async () => {
    const res = await callPublic(request, key.keyValue, DEMO_HOME);
    expect(res.status()).toBe(402);
    expect(rateLimitHeaders(res)).toMatchObject({ limit: 60, remaining: 59 });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      code: "insufficient_credits",
      balance: 0,
      creditsRequired: 1,
      plan: "free",
      overageRateCents: 0,
      overageLimitCents: null,
    });
    expect(body.error).toContain("Insufficient credits");
    expect(body.requestId).toEqual(res.headers()["x-request-id"]);

    // A second refusal is the same, and the balance stays at zero (never negative).
    const again = await callPublic(request, key.keyValue, DEMO_HOME);
    expect(again.status()).toBe(402);
    const headers = rateLimitHeaders(again);
    expect(headers.limit).toBe(60);
    expect(headers.remaining).toBeLessThan(60);
    expect(await creditsOf(request, session.token)).toBe(0);

    // An address that cannot be valued is still a 404: the valuation comes before the charge.
    const nowhere = await callPublic(request, key.keyValue, NOWHERE_HOME);
    expect(nowhere.status()).toBe(404);
    expect(await nowhere.json()).toMatchObject({ code: "area_not_covered" });
  });

  await test.step("the browser shows the empty balance and the refused calls in the history", async () => {
    await openSignedIn(page, session.token, "/history");
    await expect(page.getByTestId("credits-balance")).toContainText("0 credits");
    const rows = page.getByTestId("history-row");
    await expect(page.getByTestId("history-pagination")).toContainText("of 103");
    // Newest first: the 404, then the two 402s of the key.
    await expect(rows.nth(0)).toContainText("Error404");
    for (const i of [1, 2]) {
      await expect(rows.nth(i)).toContainText("Error402");
      await expect(rows.nth(i)).toContainText("Spender");
      await expect(rows.nth(i)).toContainText("7006 Maple Rd");
    }
    // Retrying a refused lookup tells why it failed again.
    await rows.nth(1).getByRole("button", { name: "Retry" }).click();
    await expect(toastTitle(page, "Lookup Failed")).toBeVisible();
    await expect(page.getByRole("region", { name: /Notifications/ })).toContainText("Insufficient credits");
  });
});

test("the public API refuses missing, malformed and deleted keys with 401, with rate-limit headers", async ({ request }) => {
  const session = await registerByApi(request, "refused", "Ray Refused");

  const missing = await callPublic(request, null, DEMO_HOME);
  expect(missing.status()).toBe(401);
  expect(await missing.json()).toMatchObject({ code: "missing_api_key" });
  rateLimitHeaders(missing);

  const malformed = await callPublic(request, "vk_live_not-a-real-key", DEMO_HOME);
  expect(malformed.status()).toBe(401);
  expect(await malformed.json()).toMatchObject({ code: "invalid_api_key" });
  rateLimitHeaders(malformed);

  // A working key, also accepted as a Bearer token, then deleted: refused at once.
  const key = await createKey(request, session.token, "Short lived", 10);
  const ok = await request.get(valuationQuery(DEMO_HOME), { headers: { Authorization: `Bearer ${key.keyValue}` } });
  expect(ok.status()).toBe(200);
  expect(rateLimitHeaders(ok)).toMatchObject({ limit: 10, remaining: 9 });

  const del = await request.delete(`/api/api-keys/${key.id}`, { headers: { Authorization: `Bearer ${session.token}` } });
  expect(del.status()).toBe(204);
  const deleted = await callPublic(request, key.keyValue, DEMO_HOME);
  expect(deleted.status()).toBe(401);
  expect(await deleted.json()).toMatchObject({ code: "invalid_api_key" });
  rateLimitHeaders(deleted);

  // Only the one valuation was charged.
  expect(await creditsOf(request, session.token)).toBe(99);
});

test("the public API refuses a JSON body and does not charge a not-found address", async ({ request }) => {
  const session = await registerByApi(request, "badinput", "Bea Badinput");
  const key = await createKey(request, session.token, "Careful", 20);

  const withBody = await request.get(valuationQuery(DEMO_HOME), {
    headers: { "x-api-key": key.keyValue, "content-type": "application/json" },
    data: { address: DEMO_HOME.address },
  });
  expect(withBody.status()).toBe(400);
  expect(rateLimitHeaders(withBody)).toMatchObject({ limit: 20, remaining: 19 });

  const notFound = await callPublic(request, key.keyValue, NOWHERE_HOME);
  expect(notFound.status()).toBe(404);
  expect(await notFound.json()).toMatchObject({ error: "We have no sales near 33101", code: "area_not_covered" });
  const headers = rateLimitHeaders(notFound);
  expect(headers.limit).toBe(20);
  expect(headers.remaining).toBeLessThan(20);
  expect(await creditsOf(request, session.token)).toBe(100);
});
