import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

// What the whole-app walks (screens.spec.ts, axe.spec.ts) share: the two sizes, the route table, the demo account,
// the layout check (also used by journeys that look at a screen in a state the walk does not reach) and the
// accessibility scan. Each screen state is visited once and both checked there (screens.spec.ts).

export const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "laptop", width: 1440, height: 900 },
] as const;
export type Viewport = (typeof VIEWPORTS)[number];

const DEMO = { email: "demo@valuator.dev", password: "valuator-demo" };

// What each route shows signed out; protected screens send a visitor to sign in.
export const PROTECTED = ["/dashboard", "/property-lookup", "/person-lookup", "/batch-upload", "/markets", "/api-keys",
  "/reporting", "/history", "/billing", "/settings",
  // Portfolios (issue 40): the list, and one portfolio (photographed with a real one by portfolios.spec.ts).
  "/portfolios", "/portfolios/:id",
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

// The demo account's session, made once per worker: the walks visit dozens of screens signed in, and each sign-in
// hashes the password (a deliberately slow argon2id) for nothing new.
let demoToken: string | undefined;

/** Signs the page in as the demo account: the token goes where the app keeps it. */
export async function signInAsDemo(page: Page): Promise<void> {
  if (!demoToken) {
    const res = await page.request.post("/api/auth/login", { data: DEMO });
    expect(res.status(), "demo account sign-in").toBe(200);
    demoToken = ((await res.json()) as { token: string }).token;
  }
  await page.addInitScript((t) => localStorage.setItem("token", t), demoToken);
}

/** Waits until the screen has rendered and stopped moving: no spinner or skeleton, the network quiet, no animation
 * running (a dialog fading in would be measured half transparent, and photographed so). */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await expect(page.locator(".animate-spin, .animate-pulse")).toHaveCount(0);
  await page.evaluate(() => document.fonts.ready);
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity),
  );
}

const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Scans the page as it is (or only what `include` selects) with axe-core for WCAG 2.0/2.1 A and AA, and fails on any
 * critical or serious violation, naming the rule and the elements (issue 26). With AXE_REPORT=<folder> every scan (all
 * impacts) is also written there as JSON, to count what is left.
 */
export async function scan(page: Page, name: string, viewport: Viewport, include?: string): Promise<void> {
  await settle(page);
  // Legacy mode: axe.run in the page itself. The default runs axe in each frame, then opens a new blank page, loads
  // axe into it again and finishes there; the app has no frames, and that second page cost 0.5-1 s a scan (a third
  // of it) and 7-9 s of a /docs scan (e2e: 13.1 -> 6.3 s for an operation's page).
  const builder = new AxeBuilder({ page }).withTags(AXE_TAGS).setLegacyMode(true);
  if (include) builder.include(include);
  const results = await builder.analyze();
  const what = `${name} at ${viewport.width}x${viewport.height}`;
  const dir = process.env.AXE_REPORT;
  if (dir) {
    mkdirSync(path.resolve(dir), { recursive: true });
    const file = `${name.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "landing"}-${viewport.name}.json`;
    const summary = results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      count: v.nodes.length,
      nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
    }));
    writeFileSync(path.resolve(dir, file), JSON.stringify({ page: what, url: page.url(), violations: summary }, null, 2));
  }
  const bad = results.violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => {
      const nodes = v.nodes.slice(0, 5).map((n) => `    ${n.target.join(" ")}`);
      const more = v.nodes.length > 5 ? [`    ... and ${v.nodes.length - 5} more`] : [];
      return [`${v.id} (${v.impact}, ${v.nodes.length} element(s)): ${v.help}`, ...nodes, ...more].join("\n");
    });
  expect.soft(bad, `critical or serious axe violations on ${what}:\n${bad.join("\n")}\n`).toEqual([]);
}

/** Layout faults on the current screen, described for a person. Runs in the page. */
export async function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const vw = document.documentElement.clientWidth;
    const docWidth = document.documentElement.scrollWidth;
    if (docWidth > vw) faults.push(`the page scrolls sideways: ${docWidth} px wide in a ${vw} px window`);

    const describe = (el: Element) => {
      const text = (el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 40);
      return `<${el.tagName.toLowerCase()}> "${text}"`;
    };
    // Seen by a sighted user: a box, not hidden, not inside a screen-reader-only (clipped away) element.
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === "hidden") return false;
      for (let a: Element | null = el; a; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if ((cs.clip && cs.clip !== "auto") || (cs.clipPath && cs.clipPath !== "none")) return false;
      }
      return true;
    };
    // The element's box must be visible in every clipping ancestor; an ancestor that scrolls is its own scroll,
    // and then that ancestor's box must be visible in turn.
    const clippedBy = (el: Element): string | null => {
      const r = el.getBoundingClientRect();
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX;
        if (ox === "visible") continue;
        if (ox === "auto" || ox === "scroll") return clippedBy(a);
        const ar = a.getBoundingClientRect();
        if (r.right > ar.right + 1 || r.left < ar.left - 1) return `cut off by ${describe(a)}`;
      }
      if (r.right > vw + 1 || r.left < -1) return "runs past the window's edge";
      return null;
    };

    for (const el of document.querySelectorAll("pre, table")) {
      if (!visible(el)) continue;
      if (el.tagName === "PRE") {
        const ox = getComputedStyle(el).overflowX;
        if (el.scrollWidth > el.clientWidth + 1 && ox !== "auto" && ox !== "scroll") {
          faults.push(`${describe(el)} spills out of its box (no scroll of its own)`);
          continue;
        }
      }
      const why = clippedBy(el);
      if (why) faults.push(`${describe(el)} ${why}`);
    }

    // A page taller than the window must end with its content (the footer), not with an empty band to scroll into.
    const docHeight = document.documentElement.scrollHeight;
    if (docHeight > window.innerHeight) {
      let contentBottom = 0;
      for (const el of document.body.querySelectorAll("*")) {
        const leaf = el.children.length === 0 && (el.textContent ?? "").trim() !== "";
        if (!leaf && !["svg", "img", "canvas", "input", "button"].includes(el.tagName.toLowerCase())) continue;
        if (!visible(el)) continue;
        contentBottom = Math.max(contentBottom, el.getBoundingClientRect().bottom + window.scrollY);
      }
      const band = docHeight - contentBottom;
      if (band > 160) faults.push(`a blank band of ${Math.round(band)} px below the last content`);
    }

    // Chart labels (SVG text) must be readable, not scaled down to a few pixels.
    for (const t of document.querySelectorAll("svg text")) {
      if (!visible(t) || !(t.textContent ?? "").trim()) continue;
      const h = t.getBoundingClientRect().height;
      if (h < 10) faults.push(`chart label "${t.textContent}" is ${h.toFixed(1)} px tall`);
    }
    return faults;
  });
}

/**
 * Checks the screen on show at `viewport` (no sideways scroll, nothing clipped, readable chart labels) and, with
 * SCREENSHOTS=<folder> (`make screenshots`), writes a full-page picture of it to <folder>/<viewport>/<name>.png.
 */
export async function checkScreen(page: Page, name: string, viewport: Viewport, what = name,
  picture = true): Promise<void> {
  await settle(page);
  // Polled: after a change of the window's size, charts and tables measure themselves again through ResizeObserver,
  // a frame or more later (on a loaded machine the Markets screen was once still 459 px wide in a 390 px window when
  // read at once, and fine on the next frames). A fault that lasts 5 s fails as before.
  await expect
    .poll(() => layoutFaults(page), { message: `${what}, at ${viewport.width}x${viewport.height}`, timeout: 5_000 })
    .toEqual([]);
  const dir = process.env.SCREENSHOTS;
  if (dir && picture) {
    const folder = path.resolve(dir, viewport.name);
    mkdirSync(folder, { recursive: true });
    // From the top, or the sticky header and sidebar are drawn where the page was scrolled to.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true, animations: "disabled" });
  }
}

/** Checks the screen on show at both sizes (checkScreen), then gives the page back its size. */
export async function checkAtBothSizes(page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await checkScreen(page, name, viewport);
  }
  if (size) await page.setViewportSize(size);
}
