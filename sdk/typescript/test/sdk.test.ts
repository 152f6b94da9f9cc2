// The SDK against the real server: valuation, error mapping, a batch upload polled to completion, a person
// lookup, and a 429 with its Retry-After, with and without the SDK's retry.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createValuatorClient, ValuatorError, type ValuatorClient } from "../src/index.js";
import { startServer, type TestServer } from "./server.js";

const home = { address: "5873 River Dr N", city: "Seattle", state: "WA", zip: "98103" };

async function rejection(p: Promise<unknown>): Promise<ValuatorError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ValuatorError, `expected a ValuatorError, got ${String(e)}`);
    return e;
  }
  assert.fail("expected the call to fail");
}

describe("Valuator TypeScript SDK against the real server", { timeout: 300_000 }, () => {
  let server: TestServer;
  let client: ValuatorClient;

  before(async () => {
    server = await startServer();
    client = createValuatorClient({ baseUrl: server.baseUrl, apiKey: await server.createKey("sdk-ts") });
  });
  after(async () => {
    await server?.stop();
  });

  it("values a demo home", async () => {
    const v = await client.valuate(home);
    assert.ok(v.valuation.estimatedValue > 0, `estimatedValue ${v.valuation.estimatedValue}`);
    assert.match(v.property.address, /5873 River Dr N/i);
    assert.equal(v.property.zip, "98103");
    // Confidence is 1 − FSD; a fresh demo market needs no warning.
    assert.ok(Math.abs(v.valuation.confidence - (1 - v.valuation.fsd)) <= 0.0005, JSON.stringify(v.valuation));
    assert.ok(v.valuation.withinTenPercent > 0 && v.valuation.withinTenPercent < 1);
    assert.deepEqual(v.valuation.warnings, []);
    assert.equal(v.property.isDemo, true);
  });

  it("maps a fact far outside the records to a free 422 with the range on record", async () => {
    const err = await rejection(
      client.valuate({ address: "1 Nowhere Ln", city: "Seattle", state: "WA", zip: "98103", propertyType: "Single Family", squareFeet: 100000 }),
    );
    assert.equal(err.status, 422);
    assert.equal(err.code, "outside_records");
    assert.equal(err.field, "squareFeet");
    assert.equal(err.recordRange?.field, "squareFeet");
    assert.equal(err.recordRange?.area, "98103");
    assert.ok(err.recordRange && err.recordRange.max > 0 && err.recordRange.max < 100000);
  });

  it("maps a 404 and a 400 to ValuatorError", async () => {
    const notFound = await rejection(
      client.valuate({ address: "1 Nowhere Ln", city: "Seattle", state: "WA", zip: "98103" }),
    );
    assert.equal(notFound.status, 404);
    assert.equal(notFound.code, "property_not_found");
    assert.ok(notFound.message.length > 0);
    assert.ok(notFound.requestId);

    const bad = await rejection(client.valuate({ ...home, zip: "nope" }));
    assert.equal(bad.status, 400);
    assert.ok(bad.code.length > 0);
    assert.equal(bad.field, "zip");

    const badKey = createValuatorClient({ baseUrl: server.baseUrl, apiKey: "not-a-key" });
    assert.equal((await rejection(badKey.valuate(home))).status, 401);
  });

  it("uploads a batch, polls it to completion and downloads the results", async () => {
    const csv = "address,city,state,zip\n5873 River Dr N,Seattle,WA,98103\n1 Nowhere Ln,Seattle,WA,98103\n";
    const job = await client.uploadBatch(new Blob([csv], { type: "text/csv" }), {
      fileName: "homes.csv",
      intervalMs: 250,
      timeoutMs: 120_000,
    });
    assert.equal(job.done, true);
    assert.equal(job.status.status, "completed", job.status.statusMessage ?? "");
    assert.equal(job.status.progress.total, 2);
    assert.equal(job.status.progress.successful, 1);
    assert.equal(job.status.progress.failed, 1);
    const ok = job.status.results.find((r) => r.status === "success");
    assert.ok(ok && (ok.estimatedValue ?? 0) > 0);

    const file = await job.download();
    const text = await file.text();
    assert.match(text, /5873 River Dr N/i);
    assert.equal(text.trim().split("\n").length, 3, text);

    const again = await client.batchStatus(job.jobId);
    assert.equal(again.status, "completed");
    assert.equal((await rejection(client.batchStatus(999_999_999))).status, 404);
  });

  it("returns a queued job without polling when asked", async () => {
    const job = await client.uploadBatch(new Blob(["address\n5873 River Dr N, Seattle, WA 98103\n"]), {
      fileName: "one.csv",
      poll: false,
    });
    assert.ok(job.jobId > 0);
    const done = await client.waitForBatch(job.jobId, { intervalMs: 250, timeoutMs: 120_000 });
    assert.equal(done.status.status, "completed");
  });

  it("finds a demo resident", async () => {
    // The demo directory's resident of 5873 River Dr N (person.DemoResidents with seed 1).
    const found = await client.findPerson({
      name: "Margaret Larkspur",
      street_line_1: "5873 River Dr N",
      city: "Seattle",
      state_code: "WA",
      postal_code: "98103",
    });
    assert.equal(found.data.name, "Margaret Larkspur");
    const missing = await rejection(
      client.findPerson({ name: "Nobody Atall", city: "Seattle", state_code: "WA", street_line_1: "1 Nowhere Ln" }),
    );
    assert.equal(missing.status, 404);
  });

  it("answers a ZIP code's market statistics and compares ZIP codes", async () => {
    const m = await client.market({ zip: "98103", historyMonths: 12 });
    assert.equal(m.zip, "98103");
    assert.equal(m.history.length, 12);
    assert.equal(m.priceIndex.length, 12);
    assert.ok("median" in m.sales && m.sales.count >= 5 && m.sales.min <= m.sales.median, JSON.stringify(m.sales));
    const cmp = await client.compareMarkets({ zip: ["98103", "12345"] });
    assert.equal(cmp.markets.length, 1);
    assert.deepEqual(cmp.notFound, ["12345"]);
    const missing = await rejection(client.market({ zip: "12345" }));
    assert.equal(missing.status, 404);
  });

  it("surfaces a 402 with the account's balance", async () => {
    const broke = createValuatorClient({ baseUrl: server.baseUrl, apiKey: await server.newAccountKey("sdk-ts-broke") });
    const margaret = { name: "Margaret Larkspur", street_line_1: "5873 River Dr N", city: "Seattle", state_code: "WA",
      postal_code: "98103" };
    // A new Free account's 100 credits buy 20 person lookups at 5 credits.
    for (let i = 0; i < 20; i++) await broke.findPerson(margaret);
    const err = await rejection(broke.findPerson(margaret));
    assert.equal(err.status, 402);
    assert.equal(err.code, "insufficient_credits");
    assert.equal(err.creditBalance?.state, "empty");
    assert.equal(err.creditBalance?.credits, 0);
    assert.equal(err.creditBalance?.planType, "free");
  });

  it("surfaces a 429 with Retry-After, and retries it when asked", async () => {
    const key = await server.createKey("sdk-ts-limited", 1);
    const limited = createValuatorClient({ baseUrl: server.baseUrl, apiKey: key });
    await limited.valuate(home);
    const err = await rejection(limited.valuate(home));
    assert.equal(err.status, 429);
    assert.equal(err.code, "rate_limited");
    assert.ok(err.retryAfter !== undefined && err.retryAfter > 0, `retryAfter ${err.retryAfter}`);
    assert.equal(err.rateLimit?.remaining, 0);

    // With retries the client waits Retry-After (capped here at 50 ms, so the budget is still spent) and tries again.
    let calls = 0;
    const retrying = createValuatorClient({
      baseUrl: server.baseUrl,
      apiKey: key,
      maxRetries: 2,
      maxRetryDelayMs: 50,
      fetch: (req) => {
        calls++;
        return fetch(req);
      },
    });
    assert.equal((await rejection(retrying.valuate(home))).status, 429);
    assert.equal(calls, 3);
  });
});
