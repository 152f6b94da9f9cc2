// The code samples of the built-in API documentation, built from the real base URL and the user's own key. Pure, so
// the tests can read them without rendering.
import { EXAMPLE_REQUEST } from "@/lib/example-valuation";

export const VALUATION_PATH = "/api/v1/property/valuation";
export const KEY_PLACEHOLDER = "YOUR_API_KEY";

/** The address every sample values: the home of the generated example valuation (a home of the demo market). */
export const SAMPLE_ADDRESS = EXAMPLE_REQUEST;

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

/** What a 402 says (the contract's example): the balance, the price of the refused call, the plan's overage terms and
 * `creditBalance`, the same reading of the balance the dashboard shows. */
export const EXAMPLE_402 = JSON.stringify(
  {
    error: "Insufficient credits: this costs 1 credit and you have 0 left. Upgrade your plan on the Billing page to keep looking up.",
    code: "insufficient_credits",
    requestId: "01JKQ7N4D1XW8S2F6Y0P3C9EHV",
    balance: 0,
    creditsRequired: 1,
    plan: "free",
    overageRateCents: 0,
    overageLimitCents: null,
    creditBalance: {
      planType: "free",
      credits: 0,
      overageCredits: 0,
      overageCents: 0,
      overageRateCents: 0,
      overageLimitCents: null,
      overageLeftCents: null,
      spendableCredits: 0,
      state: "empty",
    },
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
