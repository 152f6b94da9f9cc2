// Helpers for the Portfolios specs (issue 40): a small batch job of demo homes made straight against the server, and
// a portfolio made by API. Not a spec file.
import type { APIRequestContext } from "@playwright/test";
import { DEMO_ROWS, jobById, nowhere } from "./batch";
import { expect } from "./fixtures";

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

/** The four demo homes that value, and one in a ZIP far from every sale (it fails, uncharged). */
export const JOB_HOMES = [...DEMO_ROWS.map((r) => ({ address: r.street, city: r.city, state: r.state, zip: r.zip })), (() => {
  const n = nowhere(101);
  return { address: n.street, city: n.city, state: n.state, zip: n.zip };
})()];

/** Runs a batch job of JOB_HOMES for the account and waits until it has completed: 4 valued, 1 failed. */
export async function runDemoJob(request: APIRequestContext, token: string, fileName: string): Promise<number> {
  const res = await request.post("/api/jobs", {
    headers: bearer(token),
    data: { type: "batch", fileName, inputData: { properties: JOB_HOMES } },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = (await res.json()) as { id: number };
  await expect
    .poll(async () => (await jobById(request, token, id)).status, { timeout: 60_000, intervals: [500, 1000] })
    .toBe("completed");
  expect(await jobById(request, token, id)).toMatchObject({ successfulProperties: 4, failedProperties: 1 });
  return id;
}

export interface PortfolioDetail {
  id: number;
  name: string;
  status: string;
  homeCount: number;
  alertThreshold: number | null;
  webhookUrl: string | null;
  totals: { value: number; changeSinceLastMonth: number; valuedHomes: number };
  homes: { id: number; formattedAddress: string; latest: { month: string; value: number } | null; changeSinceLastMonth: { amount: number; percent: number } | null }[];
  history: { month: string; value: number; homes: number }[];
}

export async function portfolioById(request: APIRequestContext, token: string, id: number): Promise<PortfolioDetail> {
  const res = await request.get(`/api/portfolios/${id}?limit=1000`, { headers: bearer(token) });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as PortfolioDetail;
}

/** "$817,000" for 817000. */
export function usd(n: number): string {
  return `$${n.toLocaleString("en-US")}`;
}
