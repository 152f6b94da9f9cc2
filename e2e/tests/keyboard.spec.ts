import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { openSignedIn, registerByApi } from "./public-api";

// Issue 26, point 8: the main journey by keyboard alone (no clicks): sign in, value a property, generate an API key,
// and the phone's menu. Each step checks where focus lands and that it can be seen: the skip link first on every
// page, the new page's heading after a navigation, the result's heading when it arrives, dialogs keeping focus
// inside and giving it back to what opened them (or, when that is gone, to the page's heading).

/** A demo-market home that values (seed 1), as the form's fields take it. */
const DEMO_HOME = { address: "7006 Maple Road", city: "Seattle", zip: "98103" };

/** What has focus: its tag, accessible-ish name, and whether the browser shows it as focused. */
async function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: "body", text: "", label: "", visible: false, inDialog: false, box: 0 };
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    const ring = style.boxShadow !== "none" && style.boxShadow !== "";
    const rect = el.getBoundingClientRect();
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.textContent ?? "").trim().replace(/\s+/g, " "),
      label: el.getAttribute("aria-label") ?? (el as HTMLInputElement).labels?.[0]?.textContent?.trim() ?? "",
      // Seen as focused: the browser's :focus-visible, drawn as an outline or a ring, on a box of real size.
      visible: el.matches(":focus-visible") && (outline || ring) && rect.width > 1 && rect.height > 1,
      inDialog: !!el.closest("[role=dialog], [role=alertdialog]"),
      box: rect.width,
    };
  });
}

/** Focus is on `locator`, and it shows. */
async function expectFocusOn(page: Page, locator: Locator) {
  await expect(locator).toBeFocused();
  const f = await focused(page);
  expect(f.visible, `focus on <${f.tag}> "${f.text.slice(0, 60)}" is visible`).toBe(true);
}

/** Presses `key` until `locator` has focus (at most `max` times): a keyboard user tabbing to a control. */
async function pressUntilFocused(page: Page, key: "Tab" | "Shift+Tab", locator: Locator, max = 40) {
  for (let i = 0; i < max; i++) {
    if (await locator.evaluate((el) => el === document.activeElement)) return i;
    await page.keyboard.press(key);
  }
  await expect(locator).toBeFocused();
  return max;
}

async function expectSkipLinkFirst(page: Page) {
  const skip = page.getByRole("link", { name: "Skip to main content" });
  await page.keyboard.press("Tab");
  await expectFocusOn(page, skip);
  // Shown when focused: a real button-sized box, not the 1 px of a visually hidden element.
  const box = await skip.boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(100);
  expect(box?.height ?? 0).toBeGreaterThan(20);
  return skip;
}

test("keyboard only: sign in, value a property, generate and delete an API key", async ({ page, request }) => {
  const account = await registerByApi(request, "keyboard", "Kim Keyboard");

  await test.step("sign in: the skip link is the first tab stop and leads to the form", async () => {
    await page.goto("/login");
    await expect(page.getByRole("heading", { level: 1, name: "Welcome back" })).toBeVisible();
    const skip = await expectSkipLinkFirst(page);
    await page.keyboard.press("Enter");
    await expect(skip).not.toBeFocused();
    await expect(page.locator("main#main-content")).toBeFocused();
    await page.keyboard.press("Tab");
    await expectFocusOn(page, page.getByLabel("Email"));
    await page.keyboard.type(account.email);
    await page.keyboard.press("Tab");
    await expectFocusOn(page, page.getByLabel("Password"));
    await page.keyboard.type(account.password);
    await pressUntilFocused(page, "Tab", page.getByRole("button", { name: "Sign In" }), 4);
    await expectFocusOn(page, page.getByRole("button", { name: "Sign In" }));
    await page.keyboard.press("Enter");
  });

  await test.step("the dashboard: its own title, focus on its heading", async () => {
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page).toHaveTitle("Property Lookup · Valuator");
    const heading = page.getByRole("heading", { level: 1, name: "Property Lookup" });
    await expectFocusOn(page, heading);
  });

  await test.step("value a property: the result's heading takes focus", async () => {
    // From the heading, the next stop is the form's first field.
    await page.keyboard.press("Tab");
    await expectFocusOn(page, page.getByLabel("Street Address"));
    await page.keyboard.type(DEMO_HOME.address);
    await page.keyboard.press("Tab");
    await expectFocusOn(page, page.getByLabel("City"));
    await page.keyboard.type(DEMO_HOME.city);
    await page.keyboard.press("Tab");
    const state = page.getByRole("combobox", { name: "State" });
    await expectFocusOn(page, state);
    // The state list: open with the keyboard, type to find, Enter to choose; focus comes back to the field.
    await page.keyboard.press("Enter");
    const listbox = page.getByRole("listbox");
    await expect(listbox).toBeVisible();
    await page.keyboard.type("Washington");
    await expect(page.getByRole("option", { name: "Washington", exact: true })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(listbox).toBeHidden();
    await expect(state).toHaveText("Washington");
    await expectFocusOn(page, state);
    await page.keyboard.press("Tab");
    await expectFocusOn(page, page.getByLabel("ZIP Code"));
    await page.keyboard.type(DEMO_HOME.zip);
    const submit = page.getByRole("button", { name: /Get Property Valuation|Searching/ });
    await pressUntilFocused(page, "Tab", submit, 4);
    await expectFocusOn(page, submit);
    await page.keyboard.press("Enter");

    const result = page.getByTestId("valuation-result");
    await expect(result).toBeVisible();
    const resultHeading = result.getByRole("heading", { level: 2, name: /7006 MAPLE RD/ });
    await expectFocusOn(page, resultHeading);
    await expect(page.getByTestId("credits-balance")).toContainText("99 credits");
  });

  await test.step("go to API Keys through the sidebar: focus on its heading", async () => {
    const link = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API Keys", exact: true });
    await pressUntilFocused(page, "Shift+Tab", link, 60);
    await expectFocusOn(page, link);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/api-keys$/);
    await expect(page).toHaveTitle("API Keys · Valuator");
    await expectFocusOn(page, page.getByRole("heading", { level: 1, name: "API Keys" }));
  });

  const generate = page.getByRole("button", { name: "Generate New Key" });
  await test.step("the Generate New Key dialog keeps focus inside and gives it back on Escape", async () => {
    await page.keyboard.press("Tab");
    await expectFocusOn(page, generate);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Generate New Key" });
    await expect(dialog).toBeVisible();
    await expectFocusOn(page, dialog.getByLabel("Key Name"));
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press("Tab");
      expect((await focused(page)).inDialog, "Tab stays inside the dialog").toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expectFocusOn(page, generate);
  });

  await test.step("generate a key: the new key's heading takes focus, Done gives it back to the button", async () => {
    await page.keyboard.press("Space");
    const dialog = page.getByRole("dialog", { name: "Generate New Key" });
    await expect(dialog).toBeVisible();
    await expectFocusOn(page, dialog.getByLabel("Key Name"));
    await page.keyboard.type("Keyboard key");
    await pressUntilFocused(page, "Tab", dialog.getByRole("button", { name: "Generate Key" }), 4);
    await page.keyboard.press("Enter");

    const created = page.getByRole("dialog", { name: "Your new API key" });
    await expect(created).toBeVisible();
    await expect(created).toContainText('"Keyboard key" is ready');
    await expectFocusOn(page, created.getByRole("heading", { name: "Your new API key" }));
    await page.keyboard.press("Tab");
    await expectFocusOn(page, created.getByRole("button", { name: "Copy Key" }));
    await page.keyboard.press("Tab");
    await expectFocusOn(page, created.getByRole("button", { name: "Done" }));
    await page.keyboard.press("Enter");
    await expect(created).toBeHidden();
    await expectFocusOn(page, generate);
    await expect(page.getByTestId("api-key-row")).toHaveCount(1);
    await expect(page.getByTestId("api-key-row").getByRole("rowheader")).toHaveText("Keyboard key");
  });

  await test.step("delete it: Escape gives focus back to the row's button; once deleted, to the page's heading", async () => {
    const del = page.getByRole("button", { name: "Delete key Keyboard key" });
    await pressUntilFocused(page, "Tab", del, 6);
    await expectFocusOn(page, del);
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("alertdialog", { name: "Delete API key?" });
    await expect(confirm).toBeVisible();
    await expectFocusOn(page, confirm.getByRole("button", { name: "Cancel" }));
    await page.keyboard.press("Escape");
    await expect(confirm).toBeHidden();
    await expectFocusOn(page, del);

    await page.keyboard.press("Enter");
    await expect(confirm).toBeVisible();
    await page.keyboard.press("Tab");
    await expectFocusOn(page, confirm.getByRole("button", { name: "Delete Key" }));
    await page.keyboard.press("Enter");
    await expect(confirm).toBeHidden();
    await expect(page.getByTestId("api-keys-empty")).toBeVisible();
    // The row, and the button that opened the dialog, are gone: focus is on the page's heading, not the body.
    await expectFocusOn(page, page.getByRole("heading", { level: 1, name: "API Keys" }));
  });
});

test("keyboard only on a phone: the skip link, the menu keeps and gives back focus, a link focuses the new page", async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const session = await registerByApi(request, "keyboard-phone", "Pat Phone");
  await openSignedIn(page, session.token, "/dashboard");
  await expect(page.getByRole("heading", { level: 1, name: "Property Lookup" })).toBeVisible();

  await expectSkipLinkFirst(page);
  const menuButton = page.getByRole("button", { name: "Open menu" });
  await page.keyboard.press("Tab");
  await expectFocusOn(page, menuButton);
  await expect(menuButton).toHaveAttribute("aria-expanded", "false");

  await page.keyboard.press("Enter");
  const menu = page.getByRole("dialog", { name: "Menu" });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("navigation", { name: "Main menu" })).toBeVisible();
  // One navigation on the page while the menu is open: the rail's is not shown on a phone.
  await expect(page.getByRole("navigation")).toHaveCount(1);
  for (let i = 0; i < 14; i++) {
    await page.keyboard.press("Tab");
    expect((await focused(page)).inDialog, "Tab stays inside the menu").toBe(true);
  }
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expectFocusOn(page, menuButton);

  await page.keyboard.press("Enter");
  await expect(menu).toBeVisible();
  const settings = menu.getByRole("link", { name: "Settings" });
  await pressUntilFocused(page, "Tab", settings, 20);
  await expectFocusOn(page, settings);
  await page.keyboard.press("Enter");
  await expect(menu).toBeHidden();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page).toHaveTitle("Settings · Valuator");
  await expectFocusOn(page, page.getByRole("heading", { level: 1, name: "Settings" }));
});
