import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { openSignedIn, registerByApi } from "./public-api";
import { scan, settle, signInAsDemo, type Viewport, VIEWPORTS } from "./walk";

// Issue 26: no critical or serious axe-core violation of WCAG 2.0/2.1 A and AA in the states worth looking at beyond
// a route's first screen (every dialog, the mobile menu, a hovered button, /docs in use), at a phone's and a
// laptop's size. Every route of the route table, a valuation and a batch job's details are scanned by the screen
// walk (screens.spec.ts) in the same visit that checks their layout. Dialogs that change an account are opened in an
// account of their own. With AXE_REPORT=<folder> every scan (all impacts) is also written there as JSON.

/** Runs `visit` at each size, then scans; `name` names the state in the failure and the report. */
async function atBothSizes(page: Page, name: string, visit: (viewport: Viewport) => Promise<void>): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await visit(viewport);
    await scan(page, name, viewport);
  }
}

test.describe("buttons under the pointer", () => {
  // A hovered button must keep its contrast (a lighter hover put white text under 4.5:1): each is scanned alone
  // with the pointer on it.
  for (const [name, path, button] of [
    ["a primary button", "/login", "Sign In"],
    ["the call to action on a blue band", "/pricing", "Read the API docs"],
  ] as const) {
    test(name, async ({ page }) => {
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.goto(path);
        await settle(page);
        const target = page.getByRole(button === "Sign In" ? "button" : "link", { name: button, exact: true }).first();
        await target.scrollIntoViewIfNeeded();
        await target.hover();
        await target.evaluate((el) => el.setAttribute("data-axe-hovered", ""));
        await scan(page, `${path} hover ${button}`, viewport, "[data-axe-hovered]");
      }
    });
  }
});

test.describe("open states", () => {
  test("the mobile menu", async ({ page }) => {
    await signInAsDemo(page);
    const phone = VIEWPORTS[0];
    await page.setViewportSize(phone);
    await page.goto("/dashboard");
    await settle(page);
    await page.getByRole("button", { name: "Open menu" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await scan(page, "mobile-menu", phone);
  });

  test("the request details dialog", async ({ page }) => {
    await signInAsDemo(page);
    await atBothSizes(page, "history-details", async () => {
      await page.goto("/history");
      await settle(page);
      await page.getByRole("button", { name: "View details" }).first().click();
      await expect(page.getByRole("dialog", { name: "Request details" })).toBeVisible();
    });
  });

  test("the delete account confirmation", async ({ page }) => {
    await signInAsDemo(page);
    await atBothSizes(page, "settings-delete-account", async () => {
      await page.goto("/settings");
      await settle(page);
      await page.getByRole("button", { name: "Delete Account" }).click();
      await expect(page.getByRole("alertdialog")).toBeVisible();
    });
  });

  test("the API key dialogs: generate, the new key, delete", async ({ page, request }) => {
    const session = await registerByApi(request, "axe-keys", "Axel Keys");
    await openSignedIn(page, session.token, "/api-keys");
    await atBothSizes(page, "api-keys-generate", async () => {
      await page.goto("/api-keys");
      await settle(page);
      await page.getByRole("button", { name: /Generate (New|Your First) Key/ }).first().click();
      await expect(page.getByRole("dialog", { name: "Generate New Key" })).toBeVisible();
    });
    await atBothSizes(page, "api-keys-created", async (viewport) => {
      await page.goto("/api-keys");
      await settle(page);
      await page.getByRole("button", { name: /Generate (New|Your First) Key/ }).first().click();
      const dialog = page.getByRole("dialog", { name: "Generate New Key" });
      await dialog.getByLabel("Key Name").fill(`Axe ${viewport.name}`);
      await dialog.getByRole("button", { name: "Generate Key" }).click();
      await expect(page.getByRole("dialog", { name: "Your new API key" })).toBeVisible();
    });
    await atBothSizes(page, "api-keys-delete", async () => {
      await page.goto("/api-keys");
      await settle(page);
      await page.getByRole("button", { name: /^Delete key / }).first().click();
      await expect(page.getByRole("alertdialog")).toBeVisible();
    });
  });

  test("the billing dialogs: checkout, usage limit, upgrade, update card, cancel", async ({ page, request }) => {
    test.setTimeout(180_000);
    const session = await registerByApi(request, "axe-billing", "Bea Billing");
    await openSignedIn(page, session.token, "/billing");
    await atBothSizes(page, "billing-checkout", async () => {
      await page.goto("/billing");
      await settle(page);
      await page.getByRole("button", { name: "Get Started" }).first().click();
      await expect(page.getByRole("form", { name: "Card details" })).toBeVisible();
    });

    // Subscribe to Basic with the test card, so the dialogs of a paying account are there.
    const form = page.getByRole("form", { name: "Card details" });
    await form.getByLabel("Card number").fill("4242 4242 4242 4242");
    await form.getByLabel("Expiry (MM/YY)").fill("12/34");
    await form.getByLabel("CVC").fill("123");
    await form.getByLabel("Name on card").fill("Bea Billing");
    await form.getByRole("button", { name: /Subscribe for/ }).click();
    await expect(page.getByRole("button", { name: "Current Plan" })).toBeVisible();

    await atBothSizes(page, "billing-usage-limit", async () => {
      await page.goto("/billing");
      await settle(page);
      await page.getByRole("button", { name: "Set Usage Limit" }).click();
      await expect(page.getByRole("dialog", { name: "Custom Usage Limit" })).toBeVisible();
    });
    await atBothSizes(page, "billing-upgrade", async () => {
      await page.goto("/billing");
      await settle(page);
      await page.getByRole("button", { name: "Choose Professional" }).click();
      await expect(page.getByRole("dialog", { name: "Upgrade to Professional" })).toBeVisible();
    });
    await atBothSizes(page, "billing-update-card", async () => {
      await page.goto("/billing");
      await settle(page);
      await page.getByRole("button", { name: "Update card" }).click();
      await expect(page.getByRole("dialog", { name: "Update card" })).toBeVisible();
    });
    await atBothSizes(page, "billing-cancel", async () => {
      await page.goto("/billing");
      await settle(page);
      await page.getByRole("button", { name: "Cancel subscription" }).click();
      await expect(page.getByRole("alertdialog")).toBeVisible();
    });
  });
});

// One test per size, so the two run side by side and each has its own time limit.
for (const viewport of VIEWPORTS) {
  const size = `${viewport.width}x${viewport.height}`;
  test(`the API reference (/docs) in use at ${size}: an operation, Try it out, Authorize, a schema`, async ({ page }) => {
    // swagger-ui takes a while to lay out the whole contract on a shared machine: it is loaded once, and each state
    // is reached from the one before. The first scan reads the whole page (15-20 s: the contract is a large DOM);
    // each later one reads only what that state opened (the response, the dialog, the schemas), which the rest of
    // the page, already scanned, does not change.
    test.setTimeout(180_000);
    const authorize = page.getByRole("button", { name: "Authorize", exact: true });
    await page.setViewportSize(viewport);
    await page.goto("/docs");
    await expect(page.locator("#operations-Public_API-publicValuation")).toBeVisible({ timeout: 20_000 });
    await settle(page);

    const operation = page.locator("#operations-Public_API-publicValuation");
    await operation.locator(".opblock-summary-control").click();
    await expect(operation.getByRole("button", { name: "Execute" })).toBeVisible();
    await scan(page, "docs-operation", viewport);

    const health = page.locator("#operations-Health-healthz");
    await health.locator(".opblock-summary-control").click();
    await health.getByRole("button", { name: "Execute" }).click();
    await expect(health.locator(".live-responses-table tbody td.response-col_status")).toHaveText("200");
    await scan(page, "docs-response", viewport, "#operations-Health-healthz");

    await authorize.click();
    const dialog = page.getByRole("dialog", { name: "Available authorizations" });
    await expect(dialog).toBeVisible();
    await scan(page, "docs-authorize", viewport, ".dialog-ux");
    // swagger-ui's dialog behaves as a modal one (docs/swagger-a11y.tsx): focus is inside it, Escape closes it and
    // focus goes back to the button that opened it.
    await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(authorize).toBeFocused();

    const models = page.locator("section.models");
    await models.getByRole("button", { name: "Schemas" }).click();
    const valuation = models.locator("article", { hasText: "PropertyValuation" }).first();
    // swagger-ui draws only the schemas in view of the list's own scroll box: scroll it until this one is drawn
    // (the admin schemas, issue 27, pushed it out of the first screen).
    await expect(async () => {
      if ((await valuation.count()) === 0) await models.locator(".models-scroll").evaluate((e) => e.scrollBy(0, 400));
      expect(await valuation.count()).toBeGreaterThan(0);
    }).toPass({ timeout: 60_000, intervals: [100] });
    await valuation.getByRole("button", { name: "Expand all" }).first().click();
    await expect(valuation.locator(".json-schema-2020-12-property").first()).toBeVisible();
    await scan(page, "docs-schema", viewport, "section.models");
  });
}
