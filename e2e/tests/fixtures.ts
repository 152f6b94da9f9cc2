import { test as base, expect, type BrowserContext, type Page } from "@playwright/test";

/** A unique address per test, so tests can run in parallel against one server. */
export function uniqueEmail(tag: string): string {
  return `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export interface Account {
  fullName: string;
  email: string;
  password: string;
}

/**
 * Every test fails on a browser console error, an uncaught page error or a Content-Security-Policy violation: the
 * app must run cleanly under the server's strict policy with no external origin. CSP violations are not console
 * messages Playwright sees, so each document reports its `securitypolicyviolation` events through a binding.
 */
/**
 * Sets the browser's clock to the server's (GET /api/dev/clock: the day VALUATOR_CLOCK chose, and time flowing from
 * there), so that what a page computes from "now" (a call made "just now", the days left in a billing period, a
 * chart's last month) agrees with what the server recorded, whatever day the suite runs on. Only Date is moved: the
 * page's timers run as they do, so nothing else about it changes. A test that lets time pass on the server
 * (POST /api/dev/clock) calls it again.
 */
export async function alignClock(context: BrowserContext, baseURL: string): Promise<void> {
  const res = await context.request.get(`${baseURL}/api/dev/clock`);
  if (!res.ok()) throw new Error(`GET /api/dev/clock: ${res.status()}: the e2e server must run on VALUATOR_CLOCK`);
  const { now } = (await res.json()) as { now: string };
  const offset = Date.parse(now) - Date.now();
  await context.addInitScript((offset: number) => {
    // The browser's own Date, kept aside by the first call: a later call replaces the offset, not adds to it.
    const w = window as unknown as { __browserDate?: DateConstructor };
    const Real = (w.__browserDate ??= Date);
    class ServerDate extends Real {
      constructor(...args: ConstructorParameters<typeof Date> | []) {
        if (args.length === 0) super(Real.now() + offset);
        else super(...(args as ConstructorParameters<typeof Date>));
      }
      static now() {
        return Real.now() + offset;
      }
    }
    window.Date = ServerDate as DateConstructor;
  }, offset);
}

export const test = base.extend<{ pageProblems: string[] }>({
  context: async ({ context, baseURL }, use) => {
    await alignClock(context, baseURL!);
    await use(context);
  },
  pageProblems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on("console", (msg) => {
        if (msg.type() === "error") problems.push(`console: ${msg.text()}`);
      });
      page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
      await page.exposeFunction("__reportCspViolation", (v: string) => problems.push(`CSP violation: ${v}`));
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => {
          const report = (window as unknown as { __reportCspViolation: (v: string) => void }).__reportCspViolation;
          report(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
        });
      });
      await use(problems);
      // Answers the test provokes on purpose (a 401 for a revoked session, a 409 for a taken email) are logged by
      // the browser as failed resources; they are expected. Everything else is a bug.
      const unexpected = problems.filter((e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e));
      expect(unexpected, "browser console errors and CSP violations").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** Registers through the form and waits for the dashboard. */
export async function registerThroughUI(page: Page, account: Account): Promise<void> {
  await page.goto("/register");
  await page.getByLabel("Full Name").fill(account.fullName);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Password", { exact: true }).fill(account.password);
  await page.getByLabel("Confirm Password").fill(account.password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** Signs in through the form and waits for the dashboard. */
export async function signInThroughUI(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** A home as Property Lookup's form takes it; `state` is the State list's option as it reads ("Washington"). */
export interface LookupHome {
  address: string;
  city: string;
  state: string;
  zip: string;
}

/** Fills Property Lookup's form (the page is open) with a home; the caller presses the button. */
export async function fillLookup(page: Page, home: LookupHome): Promise<void> {
  await page.getByLabel("Street Address").fill(home.address);
  await page.getByLabel("City").fill(home.city);
  await page.getByLabel("State").click();
  await page.getByRole("option", { name: home.state, exact: true }).click();
  await page.getByLabel("ZIP Code").fill(home.zip);
}

/** The notifications area that holds the (single) toast. */
export function toasts(page: Page) {
  return page.getByRole("region", { name: /Notifications/ });
}

/** A toast's title; Radix also repeats toast text in a hidden live region, which this does not match. */
export function toastTitle(page: Page, title: string) {
  return toasts(page).getByText(title, { exact: true });
}
