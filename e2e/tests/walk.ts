import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

// What the whole-app walks (screens.spec.ts, axe.spec.ts) share: the two sizes, the route table and the demo account.

export const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "laptop", width: 1440, height: 900 },
] as const;
export type Viewport = (typeof VIEWPORTS)[number];

const DEMO = { email: "demo@valuator.dev", password: "valuator-demo" };

// What each route shows signed out; protected screens send a visitor to sign in.
export const PROTECTED = ["/dashboard", "/property-lookup", "/person-lookup", "/batch-upload", "/api-keys", "/reporting",
  "/history", "/billing", "/settings",
  // The operator console (issue 27): the demo account is a customer, so these show the "operators only" page.
  "/admin", "/admin/accounts", "/admin/accounts/:id", "/admin/support", "/admin/compliance", "/admin/overview",
  "/admin/audit"];
export const PUBLIC = ["/", "/login", "/sign-in", "/register", "/forgot-password", "/reset-password", "/docs", "/pricing",
  "/about", "/privacy", "/terms", "/contact-us", "/opt-out", "/opt-out/confirm", "/help-center", "/unsubscribe"];

/** The paths the route table declares (`path="/x"` or `path: "/x"`), the catch-all excluded. */
export function declaredRoutes(): string[] {
  const source = readFileSync(path.resolve(import.meta.dirname, "../../web/src/app/routes.tsx"), "utf8");
  const paths = [...source.matchAll(/path(?:=|:\s*)"([^"]+)"/g)].map((m) => m[1]);
  return [...new Set(paths)].filter((p) => p !== "*");
}

/** Signs the page in as the demo account through the API: the token goes where the app keeps it. */
export async function signInAsDemo(page: Page): Promise<void> {
  const res = await page.request.post("/api/auth/login", { data: DEMO });
  expect(res.status(), "demo account sign-in").toBe(200);
  const { token } = (await res.json()) as { token: string };
  await page.addInitScript((t) => localStorage.setItem("token", t), token);
}
