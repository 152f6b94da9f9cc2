// The example is the real answer, whatever the day (issue 25): the e2e server seeds its demo market as of the day it
// starts, not as of the day `make examples` generated the checked-in example, so the example valuation every page
// shows must be this server's own answer. The landing page's example response, the Help Center's, the API Keys
// documentation's and the lookup screen's sample result all show the value, confidence and last sale that a real
// API call for the example address returns here today.
import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { callPublic, createKey, openSignedIn, registerByApi, type Address } from "./public-api";

/** The example home (internal/examples/example.Home). */
const EXAMPLE_HOME: Address = { address: "5873 River Dr N", city: "Seattle", state: "WA", zip: "98103" };

interface Valuation {
  valuation: { estimatedValue: number; low: number; high: number; confidence: number; valuationDate: string };
  marketData: { priceHistory: { date: string; price: number }[]; comparables: unknown[] };
  meta: Record<string, unknown>;
  [field: string]: unknown;
}

/** A whole-dollar amount as the screens write it ("$1,482,000") back to a number. */
function dollars(text: string): number {
  const m = /\$([\d,]+)/.exec(text);
  expect(m, `a dollar amount in "${text}"`).not.toBeNull();
  return Number(m![1]!.replaceAll(",", ""));
}

/** The answer printed in an example response block on the page, once the server's live answer is in. */
async function exampleShown(scope: Page | Locator): Promise<Valuation> {
  const block = scope.getByTestId("example-response");
  await expect(block).toHaveAttribute("data-state", "live");
  await expect(block.getByTestId("example-note")).toContainText("This server's own answer today");
  const text = await block.locator("pre code").textContent();
  return (JSON.parse(text ?? "") as { data: Valuation }).data;
}

/** Everything but meta, with the comparables cut to the example's: what the example must equal. */
function comparable(v: Valuation, comparables: number): Omit<Valuation, "meta"> {
  const { meta: _meta, ...rest } = v;
  return { ...rest, marketData: { ...v.marketData, comparables: v.marketData.comparables.slice(0, comparables) } };
}

test("every example shows what a lookup of the example address returns on this server today", async ({ page, request }) => {
  const session = await registerByApi(request, "example-real", "Ellis Example");
  const key = await createKey(request, session.token, "Example check", 60);
  const res = await callPublic(request, key.keyValue, EXAMPLE_HOME);
  expect(res.status(), await res.text()).toBe(200);
  const real = ((await res.json()) as { data: Valuation }).data;
  const lastSale = real.marketData.priceHistory[0]!;
  expect(lastSale, "the example home has recorded sales").toBeTruthy();

  // The landing page: the example response, field for field.
  await page.goto("/");
  const landing = await exampleShown(page.getByRole("region", { name: "Simple, powerful API" }));
  expect(landing.valuation.estimatedValue).toBe(real.valuation.estimatedValue);
  expect(landing.valuation.confidence).toBe(real.valuation.confidence);
  expect(landing.marketData.priceHistory[0]).toEqual(lastSale);
  expect(comparable(landing, landing.marketData.comparables.length)).toEqual(
    comparable(real, landing.marketData.comparables.length),
  );

  // The Help Center's first call.
  await page.goto("/help-center");
  const help = await exampleShown(page.locator("#getting-started"));
  expect(comparable(help, help.marketData.comparables.length)).toEqual(comparable(real, help.marketData.comparables.length));

  // Signed in: the API Keys documentation, then the lookup screen's sample result.
  await openSignedIn(page, session.token, "/api-keys");
  const docs = await exampleShown(page.getByTestId("api-docs"));
  expect(comparable(docs, docs.marketData.comparables.length)).toEqual(comparable(real, docs.marketData.comparables.length));

  await page.goto("/dashboard");
  const sample = page.getByTestId("sample-result");
  await expect(sample).toBeVisible();
  await expect(sample.getByText("Sample result")).toBeVisible();
  await expect(page.getByTestId("sample-note")).toHaveAttribute("data-state", "live");
  expect(dollars(await sample.getByTestId("estimated-value").innerText())).toBe(real.valuation.estimatedValue);
  await expect(sample.getByTestId("confidence-badge")).toContainText(`${Math.round(real.valuation.confidence * 100)}%`);
  const newestSale = sample.getByTestId("price-history-list").locator("tbody tr").first();
  expect(dollars(await newestSale.innerText())).toBe(lastSale.price);

  // And a lookup of the address through the form shows the very same figures as the sample did.
  const sampleText = {
    value: await sample.getByTestId("estimated-value").innerText(),
    range: await sample.getByTestId("value-range").innerText(),
    confidence: await sample.getByTestId("confidence-badge").innerText(),
    sale: await newestSale.innerText(),
  };
  await page.getByLabel("Street Address").fill(EXAMPLE_HOME.address);
  await page.getByLabel("City").fill(EXAMPLE_HOME.city!);
  await page.getByLabel("State").click();
  await page.getByRole("option", { name: "Washington", exact: true }).click();
  await page.getByLabel("ZIP Code").fill(EXAMPLE_HOME.zip!);
  await page.getByRole("button", { name: "Get Property Valuation" }).click();
  const result = page.getByTestId("valuation-result");
  await expect(result).toBeVisible();
  expect({
    value: await result.getByTestId("estimated-value").innerText(),
    range: await result.getByTestId("value-range").innerText(),
    confidence: await result.getByTestId("confidence-badge").innerText(),
    sale: await result.getByTestId("price-history-list").locator("tbody tr").first().innerText(),
  }).toEqual(sampleText);
});

test("the example endpoint is public and reads nothing of the request: no key, no sign-in, GET only", async ({ request }) => {
  const res = await request.get("/api/example");
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { request: Address; comparables: { kept: number; returned: number }; response: { data: Valuation } };
  expect(body.request).toEqual(EXAMPLE_HOME);
  expect(body.response.data.marketData.comparables).toHaveLength(body.comparables.kept);
  expect(body.comparables.kept).toBeLessThanOrEqual(body.comparables.returned);
  // meta is a real call's (1 credit), though this one is free.
  expect(body.response.data.meta.creditsUsed).toBe(1);
  expect(body.response.data.meta.requestId).toBe(res.headers()["x-request-id"]);
  expect((await request.post("/api/example")).status()).toBe(405);
});
