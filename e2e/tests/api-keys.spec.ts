import { expect, registerThroughUI, test, toastTitle, uniqueEmail } from "./fixtures";
import { callPublic, DEMO_FORMATTED, DEMO_HOME, rateLimitHeaders } from "./public-api";

// Issue "public API", Done means: a new user creates a key in the browser, copies it, calls the public valuation
// endpoint with it (rate-limit headers, 429 past the limit), sees the calls in Request History and Reporting and in
// the credit balance, then deletes the key, after which it is refused.
test("a new user's public-API journey: generate, copy, call, rate limit, history, reporting, delete", async ({
  page,
  context,
  request,
}) => {
  const keyName = "Journey server";
  let fullKey = "";

  await test.step("sign up and open API Keys: no keys yet", async () => {
    await registerThroughUI(page, { fullName: "Avery Api", email: uniqueEmail("apijourney"), password: "password-123" });
    await expect(page.getByTestId("credits-balance")).toContainText("100 credits");
    await page.getByRole("navigation", { name: /main/i }).getByRole("link", { name: "API Keys", exact: true }).click();
    await expect(page).toHaveURL(/\/api-keys$/);
    await expect(page.getByRole("heading", { level: 1, name: "API Keys" })).toBeVisible();
    const empty = page.getByTestId("api-keys-empty");
    await expect(empty).toContainText("No API keys yet");
    await expect(page.getByTestId("api-keys-table")).toHaveCount(0);
    // The built-in docs are there from the start, with a placeholder key in the sample.
    await expect(page.getByTestId("api-docs")).toContainText("/api/v1/property/valuation");
    await expect(page.getByTestId("api-docs")).toContainText("YOUR_API_KEY");
  });

  await test.step("generate a key limited to 3 requests a minute", async () => {
    await page.getByTestId("api-keys-empty").getByRole("button", { name: "Generate Your First Key" }).click();
    const dialog = page.getByRole("dialog", { name: "Generate New Key" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("Your Free plan caps every key at 60 requests a minute");
    await dialog.getByLabel("Key Name").fill(keyName);
    await dialog.getByLabel("Rate Limit (requests per minute)").fill("3");
    await dialog.getByRole("button", { name: "Generate Key" }).click();

    const created = page.getByRole("dialog", { name: "Your new API key" });
    await expect(created).toBeVisible();
    await expect(created).toContainText(`"${keyName}" is ready, limited to 3/min`);
    fullKey = (await created.getByTestId("new-key-value").textContent())?.trim() ?? "";
    expect(fullKey).toMatch(/^vk_live_[A-Za-z0-9]{30,}$/);
    await created.getByRole("button", { name: "Done" }).click();
    await expect(created).toBeHidden();
  });

  await test.step("the table shows the masked key only; the copy button copies the full key", async () => {
    const table = page.getByTestId("api-keys-table");
    const row = table.getByTestId("api-key-row");
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("rowheader")).toHaveText(keyName);
    const preview = row.locator("code");
    await expect(preview).toHaveText(`${fullKey.slice(0, 12)}…${fullKey.slice(-4)}`);
    await expect(table).not.toContainText(fullKey);
    await expect(row).toContainText("3/min");
    await expect(row).toContainText("Never"); // not used yet

    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.evaluate(() => navigator.clipboard.writeText("nothing copied yet"));
    await row.getByRole("button", { name: `Copy key ${keyName}` }).click();
    await expect(toastTitle(page, "Copied")).toBeVisible();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(fullKey);
  });

  await test.step("the public endpoint answers with the key, counting down the rate limit, then 429", async () => {
    const expectedRemaining = [2, 1, 0];
    for (const [i, remaining] of expectedRemaining.entries()) {
      const res = await callPublic(request, fullKey, DEMO_HOME);
      expect(res.status(), await res.text()).toBe(200);
      expect(rateLimitHeaders(res)).toMatchObject({ limit: 3, remaining });
      const { data } = (await res.json()) as {
        data: {
          property: { formattedAddress: string; isDemo: boolean };
          valuation: { estimatedValue: number; low: number; high: number };
          meta: { creditsUsed: number; creditsRemaining: number };
        };
      };
      expect(data.property.formattedAddress).toBe(DEMO_FORMATTED);
      expect(data.valuation.estimatedValue).toBeGreaterThan(0);
      expect(data.valuation.low).toBeLessThanOrEqual(data.valuation.estimatedValue);
      expect(data.valuation.high).toBeGreaterThanOrEqual(data.valuation.estimatedValue);
      expect(data.meta).toMatchObject({ creditsUsed: 1, creditsRemaining: 100 - (i + 1) });
    }

    const limited = await callPublic(request, fullKey, DEMO_HOME);
    expect(limited.status()).toBe(429);
    expect(rateLimitHeaders(limited)).toMatchObject({ limit: 3, remaining: 0 });
    const retryAfter = limited.headers()["retry-after"];
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ code: "rate_limited", retryAfter: Number(retryAfter) });
  });

  await test.step("the successful calls are in Request History with the key's name", async () => {
    await page.goto("/history");
    await expect(page.getByRole("heading", { level: 1, name: "Request History" })).toBeVisible();
    const rows = page.getByTestId("history-row");
    // Three valuations; the refused call (429) cost nothing and is not a lookup.
    await expect(rows).toHaveCount(3);
    await expect(page.getByTestId("history-pagination")).toContainText("Showing 1–3 of 3");
    for (const row of await rows.all()) {
      await expect(row).toContainText(DEMO_FORMATTED);
      await expect(row).toContainText(keyName);
      await expect(row).toContainText("Success200");
      await expect(row).toContainText(/\$\d{1,3}(,\d{3})+/);
    }
  });

  await test.step("the header's balance shows the three credits spent", async () => {
    // The header reads the balance when the app loads; the calls were made outside the browser.
    await expect(page.getByTestId("credits-balance")).toContainText("97 credits");
  });

  await test.step("Reporting counts the calls", async () => {
    await page.getByRole("navigation", { name: /main/i }).getByRole("link", { name: "Reporting", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Reporting" })).toBeVisible();
    await expect(page.getByTestId("stat-calls-value")).toHaveText("3");
    await expect(page.getByTestId("stat-success-rate-value")).toHaveText("100.0%");
    await expect(page.getByTestId("stat-keys-value")).toHaveText("1");
    const activity = page.getByTestId("activity-item");
    await expect(activity).toHaveCount(3);
    await expect(activity.first()).toContainText(DEMO_FORMATTED);
    await expect(activity.first()).toContainText(`${keyName} • Response: 200`);
    await expect(activity.first()).toContainText("Success");
  });

  await test.step("delete the key through the confirmation: the next call with it is refused", async () => {
    await page.getByRole("navigation", { name: /main/i }).getByRole("link", { name: "API Keys", exact: true }).click();
    const row = page.getByTestId("api-key-row");
    await expect(row).toHaveCount(1);

    // Cancel first: nothing happens.
    await row.getByRole("button", { name: `Delete key ${keyName}` }).click();
    let confirm = page.getByRole("alertdialog", { name: "Delete API key?" });
    await expect(confirm).toContainText(`"${keyName}" will be deleted`);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(confirm).toBeHidden();
    await expect(row).toHaveCount(1);

    await row.getByRole("button", { name: `Delete key ${keyName}` }).click();
    confirm = page.getByRole("alertdialog", { name: "Delete API key?" });
    await confirm.getByRole("button", { name: "Delete Key" }).click();
    await expect(toastTitle(page, "API Key Deleted")).toBeVisible();
    await expect(confirm).toBeHidden();
    await expect(page.getByTestId("api-keys-empty")).toBeVisible();
    await expect(page.getByTestId("api-key-row")).toHaveCount(0);

    const refused = await callPublic(request, fullKey, DEMO_HOME);
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "invalid_api_key" });
    rateLimitHeaders(refused);
    // Nothing was charged for the refused calls.
    await page.reload();
    await expect(page.getByTestId("credits-balance")).toContainText("97 credits");
    // The deleted key's name stays in the history.
    await page.goto("/history");
    await expect(page.getByTestId("history-row").first()).toContainText(keyName);
  });
});

test("the Generate New Key dialog checks its fields and shows the plan's cap", async ({ page, request }) => {
  await registerThroughUI(page, { fullName: "Vic Validate", email: uniqueEmail("keyform"), password: "password-123" });
  await page.goto("/api-keys");
  await expect(page.getByTestId("api-keys-empty")).toBeVisible();
  await page.getByRole("button", { name: "Generate New Key" }).click();
  const dialog = page.getByRole("dialog", { name: "Generate New Key" });
  const name = dialog.getByLabel("Key Name");
  const rate = dialog.getByLabel("Rate Limit (requests per minute)");
  // A new key starts at the Free plan's cap: the limit it would really get.
  await expect(rate).toHaveValue("60");

  await rate.fill("");
  await dialog.getByRole("button", { name: "Generate Key" }).click();
  await expect(dialog.getByText("Please enter a key name")).toBeVisible();
  await expect(dialog.getByText("Rate limit must be a whole number from 1 to 1000")).toBeVisible();

  await name.fill("dashboard");
  await rate.fill("1001");
  await dialog.getByRole("button", { name: "Generate Key" }).click();
  await expect(dialog.getByText('"Dashboard" is reserved for calls made in the dashboard')).toBeVisible();
  await expect(dialog.getByText("Rate limit must be a whole number from 1 to 1000")).toBeVisible();

  // Cancel throws the draft away.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Generate New Key" }).click();
  await expect(name).toHaveValue("");
  await expect(rate).toHaveValue("60");

  // A limit above the Free plan's cap is kept, and the plan's 60 a minute applies.
  await name.fill("Batch worker");
  await rate.fill("100");
  await dialog.getByRole("button", { name: "Generate Key" }).click();
  const created = page.getByRole("dialog", { name: "Your new API key" });
  await expect(created).toContainText("limited to 100/min (60/min on your plan)");
  const key = (await created.getByTestId("new-key-value").textContent())?.trim() ?? "";
  await created.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("api-key-row")).toContainText("100/min (60/min on your plan)");
  // The curl sample of the built-in docs now uses the newest key.
  await expect(page.getByTestId("api-docs")).toContainText(key);

  const res = await callPublic(request, key, DEMO_HOME);
  expect(res.status()).toBe(200);
  expect(rateLimitHeaders(res)).toMatchObject({ limit: 60, remaining: 59 });
});
