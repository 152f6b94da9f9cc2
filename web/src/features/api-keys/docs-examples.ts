// The code samples of the built-in API documentation, built from the real base URL and the user's own key. Pure, so
// the tests can read them without rendering.
import type { PropertyValuation } from "@/lib/types";

export const VALUATION_PATH = "/api/v1/property/valuation";
export const KEY_PLACEHOLDER = "YOUR_API_KEY";

/** The address every sample values (the contract's own example). */
export const SAMPLE_ADDRESS = { address: "2114 Bigelow Ave N", city: "Seattle", state: "WA", zip: "98109" } as const;

/** A curl call: -G turns the --data-urlencode pairs into the query string of a GET, so no body is ever sent. */
export function curlExample(baseUrl: string, apiKey: string | null): string {
  return [
    `curl -G "${baseUrl}${VALUATION_PATH}" \\`,
    `  -H "x-api-key: ${apiKey ?? KEY_PLACEHOLDER}" \\`,
    `  --data-urlencode "address=${SAMPLE_ADDRESS.address}" \\`,
    `  --data-urlencode "city=${SAMPLE_ADDRESS.city}" \\`,
    `  --data-urlencode "state=${SAMPLE_ADDRESS.state}" \\`,
    `  --data-urlencode "zip=${SAMPLE_ADDRESS.zip}"`,
  ].join("\n");
}

/** A batch upload with curl: the file, the key, and an Idempotency-Key so that a retried upload makes one job. */
export function batchCurlExample(baseUrl: string, apiKey: string | null): string {
  return [
    `curl -X POST "${baseUrl}/api/batch/upload" \\`,
    `  -H "x-api-key: ${apiKey ?? KEY_PLACEHOLDER}" \\`,
    `  -H "Idempotency-Key: homes-upload-1" \\`,
    `  -F "file=@homes.csv"`,
  ].join("\n");
}

/** A server-side JavaScript call (Node 18+): the key comes from the environment, never from the page's code. */
export function fetchExample(baseUrl: string): string {
  return `const params = new URLSearchParams({
  address: "${SAMPLE_ADDRESS.address}",
  city: "${SAMPLE_ADDRESS.city}",
  state: "${SAMPLE_ADDRESS.state}",
  zip: "${SAMPLE_ADDRESS.zip}",
});

// GET with query parameters only: a request with a JSON body is refused.
const res = await fetch(\`${baseUrl}${VALUATION_PATH}?\${params}\`, {
  headers: { "x-api-key": process.env.VALUATOR_API_KEY },
});

if (res.status === 429) {
  // Rate limited: wait the seconds the server asks for, then try again.
  const waitSeconds = Number(res.headers.get("Retry-After") ?? "1");
  throw new Error(\`Rate limited, retry in \${waitSeconds}s\`);
}
if (!res.ok) {
  const err = await res.json(); // { error, code, requestId, ... }
  throw new Error(\`\${res.status} \${err.code}: \${err.error}\`);
}

const { data } = await res.json();
console.log(data.valuation.estimatedValue, data.valuation.confidence);
console.log("Requests left this minute:", res.headers.get("x-ratelimit-remaining"));`;
}

/** A realistic answer of GET /api/v1/property/valuation, typed against the contract so it cannot drift from it. */
export const EXAMPLE_VALUATION: PropertyValuation = {
  property: {
    address: "2114 BIGELOW AVE N",
    unit: null,
    city: "SEATTLE",
    state: "WA",
    zip: "98109",
    formattedAddress: "2114 Bigelow Ave N, Seattle, WA 98109",
    latitude: 47.6379,
    longitude: -122.3477,
    county: "King County",
    matchCode: "exact",
    isDemo: false,
  },
  valuation: {
    estimatedValue: 1_182_000,
    low: 1_064_000,
    high: 1_296_000,
    confidence: 0.82,
    confidenceLevel: "High",
    pricePerSqFt: 562,
    valuationDate: "2026-02-03",
    lastUpdated: "2026-02-02T06:00:00Z",
  },
  details: {
    bedrooms: 3,
    bathrooms: 1.75,
    squareFeet: 2104,
    livingArea: 2104,
    yearBuilt: 1926,
    propertyType: "Single Family",
    lotSize: 0.11,
    lotSizeSqFt: 4800,
    imageUrl: null,
    homeStatus: "OFF_MARKET",
  },
  marketData: {
    rentEstimate: 4350,
    rentLow: 3900,
    rentHigh: 4800,
    rentSource: "rental_comparables",
    county: "King County",
    marketTrend: 0.038,
    priceHistory: [
      { date: "2009-06-12", price: 612_500, event: "sale" },
      { date: "2017-04-28", price: 965_000, event: "sale" },
    ],
    comparables: [
      {
        address: "2220 Bigelow Ave N",
        city: "SEATTLE",
        state: "WA",
        zip: "98109",
        distanceMiles: 0.12,
        saleDate: "2025-10-14",
        salePrice: 1_215_000,
        bedrooms: 3,
        bathrooms: 2,
        squareFeet: 2230,
        yearBuilt: 1929,
        similarity: 0.93,
        adjustedPrice: 1_171_000,
      },
    ],
  },
  meta: {
    requestId: "01JKQ7M2ZB8V3T5N0R6W4XHCDA",
    timestamp: "2026-02-03T17:42:08Z",
    responseTime: 38,
    creditsUsed: 1,
    creditsRemaining: 999,
    dataSource: "kingcounty",
  },
};

export const EXAMPLE_RESPONSE = JSON.stringify({ data: EXAMPLE_VALUATION }, null, 2);

/** What a 402 says (the contract's example): the balance, the price of the refused call and the plan's overage terms. */
export const EXAMPLE_402 = JSON.stringify(
  {
    error: "Insufficient credits: this costs 1 credit and your balance is 0. Upgrade your plan or buy credits on the Billing page.",
    code: "insufficient_credits",
    requestId: "01JKQ7N4D1XW8S2F6Y0P3C9EHV",
    balance: 0,
    creditsRequired: 1,
    plan: "free",
    overageRateCents: 0,
    overageLimitCents: null,
  },
  null,
  2,
);

/** What a 429 looks like on the wire: the headers to wait by, then the body. */
export const EXAMPLE_429 = `HTTP/1.1 429 Too Many Requests
Retry-After: 12
x-ratelimit-limit: 60
x-ratelimit-remaining: 0
x-ratelimit-reset: 12

{
  "error": "Rate limit of 60 requests a minute exceeded. Retry in 12 seconds.",
  "code": "rate_limited",
  "requestId": "01JKQ7P9S5GM2A7K4J1V8B6QRT",
  "retryAfter": 12
}`;
