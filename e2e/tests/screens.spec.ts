import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { declaredRoutes, PROTECTED, PUBLIC, signInAsDemo as signIn, VIEWPORTS } from "./walk";

// Every route of the route table, at a phone's and a laptop's size, signed out and signed in (as the seeded demo
// account, so History, Reporting and the batch screens hold real rows). Each screen must:
// - never scroll sideways (the document no wider than the viewport);
// - log no console error (the shared fixture fails the test on one);
// - keep every code block and table inside its card: either it fits, or it scrolls in a box of its own that is
//   itself fully visible, never cut off by an overflow:hidden ancestor or the window's edge;
// - draw chart labels at a readable size.
// With SCREENSHOTS=<folder> (`make screenshots`) it also writes a full-page screenshot of every screen there.

interface Scene {
  /** File name of the screenshot. */
  name: string;
  path: string;
  /** Brings the screen into the state worth looking at, once it has loaded. */
  act?: (page: Page) => Promise<void>;
}

/** Screens in a state the route alone does not show: a valuation, a batch job's details, a missing page. */
const SCENES: Scene[] = [
  {
    name: "property-lookup-result",
    path: "/property-lookup",
    act: async (page) => {
      await page.getByLabel("Street Address").fill("5873 River Dr N");
      await page.getByLabel("City").fill("Seattle");
      await page.getByLabel("State").click();
      await page.getByRole("option", { name: "Washington", exact: true }).click();
      await page.getByLabel("ZIP Code").fill("98103");
      await page.getByRole("button", { name: "Get Property Valuation" }).click();
      await expect(page.getByText("Estimated Value").first()).toBeVisible();
    },
  },
  {
    name: "batch-job-details",
    path: "/batch-upload",
    act: async (page) => {
      await page.getByRole("button", { name: /details/i }).first().click();
      await expect(page.getByRole("dialog")).toBeVisible();
      await expect(page.getByRole("dialog").getByRole("table")).toBeVisible();
    },
  },
  {
    // The demo account's person lookups, stacked into short rows on a phone.
    name: "person-lookup-audit",
    path: "/person-lookup?tab=audit",
    act: async (page) => {
      await expect(page.getByTestId("audit-row").first()).toBeVisible();
    },
  },
  { name: "not-found", path: "/no-such-page" },
];

test("the walk covers every route of the route table", () => {
  expect(declaredRoutes().sort()).toEqual([...PUBLIC, ...PROTECTED].sort());
});

/** Waits until the screen has rendered: no loading spinner or skeleton left and the network quiet. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await expect(page.locator(".animate-spin, .animate-pulse")).toHaveCount(0);
  await page.evaluate(() => document.fonts.ready);
}

/** Layout faults on the current screen, described for a person. Runs in the page. */
async function layoutFaults(page: Page): Promise<string[]> {
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

// Routes that show the same screen as another (/sign-in is /login, /property-lookup is /dashboard): walked, not
// photographed twice.
const ALIASES = new Set(["/sign-in", "/property-lookup"]);

/** Checks the screen on show; `name` is also the picture's file name. */
async function check(page: Page, name: string, viewport: (typeof VIEWPORTS)[number], signedIn: boolean,
  picture: boolean): Promise<void> {
  await settle(page);
  const what = `${name}, signed ${signedIn ? "in" : "out"}, at ${viewport.width}x${viewport.height}`;
  expect(await layoutFaults(page), what).toEqual([]);
  const dir = process.env.SCREENSHOTS;
  if (dir && picture) {
    const folder = path.resolve(dir, viewport.name);
    mkdirSync(folder, { recursive: true });
    await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true, animations: "disabled" });
  }
}

for (const signedIn of [false, true]) {
  test.describe(signedIn ? "signed in" : "signed out", () => {
    for (const route of [...PUBLIC, ...PROTECTED]) {
      test(route, async ({ page }) => {
        if (signedIn) await signIn(page);
        for (const viewport of VIEWPORTS) {
          await page.setViewportSize(viewport);
          await page.goto(route);
          if (!signedIn && PROTECTED.includes(route)) await expect(page).toHaveURL(/\/login$/);
          // Pictures of public pages signed out and of the app signed in; the other half is checked only.
          const picture = signedIn === PROTECTED.includes(route) && !ALIASES.has(route);
          await check(page, route === "/" ? "landing" : route.slice(1).replaceAll("/", "-"), viewport, signedIn, picture);
        }
      });
    }
  });
}

for (const scene of SCENES) {
  test(`scene: ${scene.name}`, async ({ page }) => {
    await signIn(page);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(scene.path);
      await settle(page);
      if (scene.act) await scene.act(page);
      await check(page, scene.name, viewport, true, true);
    }
  });
}
