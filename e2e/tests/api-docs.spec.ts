import { expect, test } from "./fixtures";
import { createKey, creditsOf, DEMO_HOME, registerByApi } from "./public-api";

// /docs is the bundled swagger-ui viewer of the server's contract. It runs under the strict Content-Security-Policy
// (the fixture fails the test on any violation or console error), and "Try it out" makes real calls.
test("/docs lists the public and dashboard endpoints and runs the valuation with an API key", async ({ page, request }) => {
  const session = await registerByApi(request, "docs", "Dee Docs");
  const key = await createKey(request, session.token, "Docs explorer", 10);

  await page.goto("/docs");
  const operation = page.locator("#operations-Public_API-publicValuation");

  await test.step("the endpoints of the public API and of the dashboard are listed", async () => {
    await expect(operation).toBeVisible({ timeout: 20_000 });
    await expect(operation).toContainText("/api/v1/property/valuation");
    await expect(operation).toContainText("Value a property (public API)");
    for (const [tag, op, path] of [
      ["API_Keys", "listApiKeys", "/api/api-keys"],
      ["API_Keys", "createApiKey", "/api/api-keys"],
      ["API_Keys", "deleteApiKey", "/api/api-keys/{id}"],
      ["Usage", "usageHistory", "/api/usage/history"],
      ["Usage", "usageStats", "/api/usage/stats"],
      ["Properties", "lookupProperty", "/api/property/lookup"],
    ]) {
      await expect(page.locator(`#operations-${tag}-${op}`)).toContainText(path);
    }
  });

  await test.step("the install lines of the clients this server hosts, on its own address (GET /api/sdks)", async () => {
    const sdks = page.getByTestId("sdk-install");
    const origin = new URL(page.url()).origin;
    await expect(sdks).toContainText(`GOPROXY=${origin}/goproxy,https://proxy.golang.org GONOSUMDB=valuator.dev/sdk/go go get valuator.dev/sdk/go@v`);
    await expect(sdks).toContainText(`npm install ${origin}/sdk/npm/valuator-sdk-`);
  });

  await test.step("Authorize with the API key (x-api-key header)", async () => {
    await page.getByRole("button", { name: "Authorize", exact: true }).click();
    const modal = page.locator(".modal-ux");
    await expect(modal).toBeVisible();
    const apiKeyAuth = modal.locator(".auth-container").filter({ hasText: "x-api-key" });
    await expect(apiKeyAuth).toContainText("header");
    await apiKeyAuth.getByLabel("Value:").fill(key.keyValue);
    // swagger-ui names its per-scheme "Authorize" button "Apply credentials", and "Logout" "Remove authorization".
    await apiKeyAuth.getByRole("button", { name: "Apply credentials" }).click();
    await expect(apiKeyAuth.getByRole("button", { name: "Remove authorization" })).toBeVisible();
    await expect(apiKeyAuth).toContainText("Authorized");
    await modal.getByRole("button", { name: "Close" }).first().click();
    await expect(modal).toBeHidden();
  });

  await test.step("Try it out on the valuation with the demo address: 200", async () => {
    await operation.locator(".opblock-summary-control").click();
    // The viewer opens operations ready to try (tryItOutEnabled); press "Try it out" if this one is not.
    const tryItOut = operation.getByRole("button", { name: "Try it out" });
    const execute = operation.getByRole("button", { name: "Execute" });
    await expect(tryItOut.or(execute)).toBeVisible();
    if (await tryItOut.isVisible()) await tryItOut.click();
    await expect(execute).toBeVisible();
    for (const [name, value] of Object.entries(DEMO_HOME)) {
      const input = operation.locator(`tr[data-param-name="${name}"] input`);
      await input.fill(value);
    }
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/property/valuation");
    await execute.click();
    const res = await answered;
    expect(res.status()).toBe(200);
    expect(await res.request().headerValue("x-api-key")).toBe(key.keyValue);

    const live = operation.locator(".live-responses-table");
    await expect(live.locator("tbody td.response-col_status")).toHaveText("200");
    await expect(live).toContainText("7006 MAPLE RD, SEATTLE, WA 98103");
    await expect(live).toContainText("x-ratelimit-limit: 10");
    // The curl line shows the request as sent, key header included.
    await expect(operation.locator(".curl-command")).toContainText(`x-api-key: ${key.keyValue}`);
  });

  expect(await creditsOf(request, session.token)).toBe(99);
});
