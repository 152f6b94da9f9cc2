// Helpers for the public-API specs (API keys, request history, reporting, /docs): accounts, keys and calls made
// straight against the server with Playwright's `request` fixture, and a small CSV reader. Not a spec file.
import type { APIRequestContext, APIResponse, Page } from "@playwright/test";
import { expect, uniqueEmail } from "./fixtures";

/** A demo-market home that values (seed 1), and how the server formats its address. */
export const DEMO_HOME = { address: "7006 Maple Rd", city: "Seattle", state: "WA", zip: "98103" };
export const DEMO_FORMATTED = "7006 MAPLE RD, SEATTLE, WA 98103";
/** Two of its neighbours, also on record. */
export const NEIGHBOUR_HOME = { address: "7010 Maple Rd", city: "Seattle", state: "WA", zip: "98103" };
export const NEIGHBOUR_FORMATTED = "7010 MAPLE RD, SEATTLE, WA 98103";
/** An address in a ZIP far from every sale of the demo market: 404 area_not_covered, not charged. */
export const NOWHERE_HOME = { address: "100 Biscayne Blvd", city: "Miami", state: "FL", zip: "33101" };

export const VALUATION_PATH = "/api/v1/property/valuation";

export interface Address {
  address: string;
  city?: string;
  state?: string;
  zip?: string;
}

export interface ApiKey {
  id: number;
  name: string;
  keyPreview: string;
  keyValue: string;
  rateLimit: number;
  effectiveRateLimit: number;
}

export interface Session {
  token: string;
  email: string;
  password: string;
  fullName: string;
}

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

let apiSignUps = 0;

/**
 * A network of its own for each account made through the API: the e2e server trusts X-Forwarded-For
 * (playwright.config.ts), so these sign-ups do not count against the 50 an hour that the browser's own sign-ups
 * share from 127.0.0.1. Addresses from TEST-NET-2 (198.51.100.0/24) and TEST-NET-3, per worker and call.
 */
function signUpNetwork(): string {
  const worker = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
  const n = apiSignUps++;
  return `${worker % 2 === 0 ? "198.51.100" : "203.0.113"}.${(n % 250) + 1}`;
}

/** Creates an account through the API (100 free credits) and returns its session token. */
export async function registerByApi(request: APIRequestContext, tag: string, fullName = "Api Tester"): Promise<Session> {
  const email = uniqueEmail(tag);
  const password = "password-123";
  const res = await request.post("/api/auth/register", {
    data: { email, password, fullName },
    headers: { "X-Forwarded-For": signUpNetwork() },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { token } = (await res.json()) as { token: string };
  return { token, email, password, fullName };
}

/** Opens `path` in the browser signed in with a session made elsewhere (the token lives in localStorage). */
export async function openSignedIn(page: Page, token: string, path: string): Promise<void> {
  await page.addInitScript((t) => {
    if (!localStorage.getItem("token")) localStorage.setItem("token", t);
  }, token);
  await page.goto(path);
}

/** The session token of the browser's signed-in user. */
export async function browserToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem("token"));
  expect(token).toBeTruthy();
  return token as string;
}

export async function createKey(request: APIRequestContext, token: string, name: string, rateLimit: number): Promise<ApiKey> {
  const res = await request.post("/api/api-keys", { headers: bearer(token), data: { name, rateLimit } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as ApiKey;
}

export function valuationQuery(a: Address): string {
  const params = new URLSearchParams({ address: a.address });
  if (a.city) params.set("city", a.city);
  if (a.state) params.set("state", a.state);
  if (a.zip) params.set("zip", a.zip);
  return `${VALUATION_PATH}?${params.toString()}`;
}

/** GET /api/v1/property/valuation with the key in x-api-key (none when key is null). */
export function callPublic(request: APIRequestContext, key: string | null, a: Address = DEMO_HOME): Promise<APIResponse> {
  return request.get(valuationQuery(a), { headers: key === null ? {} : { "x-api-key": key } });
}

/** The dashboard's lookup (1 credit on success). */
export function dashboardLookup(request: APIRequestContext, token: string, a: Address = DEMO_HOME): Promise<APIResponse> {
  return request.post("/api/property/lookup", { headers: bearer(token), data: a });
}

export async function creditsOf(request: APIRequestContext, token: string): Promise<number> {
  const res = await request.get("/api/auth/user", { headers: bearer(token) });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { credits: number }).credits;
}

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

/** The x-ratelimit-* headers, each checked to be present and a whole number. */
export function rateLimitHeaders(res: APIResponse): RateLimitHeaders {
  const h = res.headers();
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(h[name], `${name} on a ${res.status()} answer`).toMatch(/^\d+$/);
  }
  return {
    limit: Number(h["x-ratelimit-limit"]),
    remaining: Number(h["x-ratelimit-remaining"]),
    reset: Number(h["x-ratelimit-reset"]),
  };
}

/** Parses RFC 4180 CSV (quoted cells, doubled quotes, CRLF or LF rows) into rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else {
      cell += c;
    }
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
