// Person lookup's privacy features end to end, on the real binary in development mode:
// - the opt-out: a demo resident asks to be removed through the public form, opens the confirmation link the
//   development server hands back, confirms with "Remove my listing", and is no longer found; the link then no
//   longer works; a made-up address gets the same answer and no link;
// - the Lookup audit tab at a laptop's and a phone's size: a hit and a miss are listed with their outcome and
//   credits, the purpose filter narrows the list, the CSV export downloads what is shown, and nothing scrolls
//   sideways on the phone.
import { readFileSync } from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test, uniqueEmail } from "./fixtures";
import { creditsOf, openSignedIn, parseCsv, registerByApi } from "./public-api";

interface Resident {
  name: string;
  street_line_1: string;
  city: string;
  state_code: string;
  postal_code?: string;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

// The demo directory's resident of 7006 Maple Rd, Seattle (person.DemoResidents, seed 1), whom other specs find:
// the audit test looks them up, and the opt-out test must never remove them (nor the README's other resident, of
// 5873 River Dr N).
const KNOWN_RESIDENT: Resident = {
  name: "Jennifer Northcott",
  street_line_1: "7006 Maple Rd",
  city: "Seattle",
  state_code: "WA",
  postal_code: "98103",
};

interface Found {
  data: { id: string; ambiguous: boolean; found_at_address: { street_line_1: string } | null };
}

/**
 * A demo resident from the development server whose name nobody else in their city shares, other than the one the
 * other specs rely on. The demo directory pairs a few first and last names at random, so most residents have a
 * namesake in their city, and a lookup of a removed resident would then find the namesake (another listing, at
 * another address) instead of answering 404. A lookup by name and city alone tells: it is `ambiguous` when a
 * namesake scores as well. Each such lookup is a hit (5 credits): a new account is registered when one runs out.
 */
async function pickUniqueResident(request: APIRequestContext): Promise<Resident> {
  let { token } = await registerByApi(request, "optout");
  for (let i = 0; i < 24; i++) {
    const res = await request.get("/api/person/demo-resident", { headers: bearer(token) });
    expect(res.status(), await res.text()).toBe(200);
    const r = (await res.json()) as Resident;
    if (/northcott/i.test(r.name) || /^(7006 maple|5873 river)/i.test(r.street_line_1)) continue;
    let found = await findPerson(request, token, { name: r.name, street_line_1: "", city: r.city, state_code: r.state_code });
    if (found.status() === 402) {
      ({ token } = await registerByApi(request, "optout"));
      found = await findPerson(request, token, { name: r.name, street_line_1: "", city: r.city, state_code: r.state_code });
    }
    expect(found.status(), await found.text()).toBe(200);
    const { data } = (await found.json()) as Found;
    if (!data.ambiguous && data.found_at_address?.street_line_1 === r.street_line_1) return r;
  }
  throw new Error("no demo resident without a namesake in 24 tries");
}

function findPerson(request: APIRequestContext, token: string, r: Resident) {
  const data: Record<string, string> = { name: r.name, city: r.city, state_code: r.state_code, purpose: "real_estate_transaction" };
  if (r.street_line_1) data.street_line_1 = r.street_line_1;
  if (r.postal_code) data.postal_code = r.postal_code;
  return request.post("/api/find-person", { headers: bearer(token), data });
}

async function fillOptOut(page: Page, r: Resident, email: string) {
  await page.getByLabel("Full Name").fill(r.name);
  await page.getByLabel("Street Address").fill(r.street_line_1);
  await page.getByLabel("City").fill(r.city);
  await page.getByLabel("State").fill(r.state_code);
  if (r.postal_code) await page.getByLabel(/Zip Code/).fill(r.postal_code);
  await page.getByLabel("Email for the confirmation link").fill(email);
  await page.getByRole("button", { name: "Request Opt-Out" }).click();
}

test("a demo resident opts out by the confirmation link and is then not found", async ({ page, request }) => {
  // A registered user only to read a demo resident and to look people up through the API; the opt-out itself is
  // made signed out.
  const resident = await pickUniqueResident(request);
  // Lookups after the opt-out need credits: without them a listed and an unlisted person both get 402.
  const { token } = await registerByApi(request, "optout-check");
  const email = uniqueEmail("optout");

  let confirmUrl = "";
  await test.step("the opt-out form answers the same message and, in development, the link", async () => {
    await page.goto("/opt-out");
    await expect(page.getByLabel("Full Name")).toHaveAttribute("placeholder", "e.g. Jennifer Northcott");
    await fillOptOut(page, resident, email);
    const sent = page.getByTestId("opt-out-sent");
    await expect(sent).toContainText(`If we hold a listing that matches, we have sent a confirmation link to ${email}`);
    await expect(sent).toBeFocused();
    const link = page.getByRole("link", { name: "Open the confirmation link (development only)" });
    await expect(link).toBeVisible();
    confirmUrl = (await link.getAttribute("href")) ?? "";
    expect(confirmUrl).toMatch(/\/opt-out\/confirm\?token=/);
  });

  await test.step("opening the link changes nothing until the button is pressed", async () => {
    await page.getByRole("link", { name: "Open the confirmation link (development only)" }).click();
    await expect(page).toHaveURL(/\/opt-out\/confirm\?token=/);
    await expect(page.getByRole("heading", { level: 1, name: "Confirm your opt-out" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Remove my listing" })).toBeVisible();
    // A mail scanner opening the link must not remove anything.
    const still = await findPerson(request, token, resident);
    expect(still.status(), await still.text()).toBe(200);
  });

  await test.step("'Remove my listing' removes it and says which", async () => {
    await page.getByRole("button", { name: "Remove my listing" }).click();
    const removed = page.getByTestId("opt-out-removed");
    await expect(removed).toBeFocused();
    await expect(page.getByTestId("removed-listing")).toContainText(resident.name);
    await expect(page.getByTestId("removed-listing")).toContainText(resident.city);
    await expect(page.getByTestId("removed-listing")).toContainText(resident.state_code);
  });

  await test.step("a lookup of that person now answers 404, free", async () => {
    const before = await creditsOf(request, token);
    expect((await findPerson(request, token, resident)).status()).toBe(404);
    expect(await creditsOf(request, token)).toBe(before);
  });

  await test.step("the link works once", async () => {
    await page.goto(confirmUrl);
    await page.getByRole("button", { name: "Remove my listing" }).click();
    const dead = page.getByTestId("opt-out-dead-link");
    await expect(dead).toContainText("This link has expired or was already used. Ask again from the opt-out page.");
    await dead.getByRole("link", { name: "Go to the opt-out page" }).click();
    await expect(page).toHaveURL(/\/opt-out$/);
  });

  await test.step("a made-up street gets the same message and no link", async () => {
    const other = uniqueEmail("optout-nobody");
    await page.goto("/opt-out");
    await fillOptOut(page, { ...resident, street_line_1: "98765 Nowhere Ln" }, other);
    await expect(page.getByTestId("opt-out-sent")).toContainText(
      `If we hold a listing that matches, we have sent a confirmation link to ${other}`,
    );
    await expect(page.getByRole("link", { name: /confirmation link \(development only\)/ })).toHaveCount(0);
  });
});

const SIZES = [
  { name: "laptop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

test("the Lookup audit lists a hit and a miss, filters, exports CSV, and fits a phone", async ({ page, request }, testInfo) => {
  const { token } = await registerByApi(request, "audit", "Audit Tester");
  await page.setViewportSize(SIZES[0]);
  await openSignedIn(page, token, "/person-lookup");
  const search = page.getByRole("button", { name: "Search Person (5 Credits)" });

  await test.step("an initial alone is refused with the server's sentence under the name", async () => {
    await page.getByLabel("Full Name").fill("J Northcott");
    await page.getByLabel("City").fill("Seattle");
    await page.getByLabel("State").fill("WA");
    await search.click();
    await expect(page.getByLabel("Full Name")).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator("#person-name-error")).toContainText("not an initial");
  });

  await test.step("the demo button fills the form (development)", async () => {
    await page.getByRole("button", { name: "Try a demo resident" }).click();
    await expect(page.getByLabel("Full Name")).not.toHaveValue("");
    await expect(page.getByLabel("City")).not.toHaveValue("");
  });

  await test.step("a hit (real estate transaction) and a miss (fraud prevention)", async () => {
    await page.getByLabel("Full Name").fill(KNOWN_RESIDENT.name);
    await page.getByLabel("Street Address").fill(KNOWN_RESIDENT.street_line_1);
    await page.getByLabel("City").fill(KNOWN_RESIDENT.city);
    await page.getByLabel("State").fill(KNOWN_RESIDENT.state_code);
    await page.getByLabel("Zip Code").fill(KNOWN_RESIDENT.postal_code ?? "");
    await search.click();
    await expect(page.getByTestId("person-result")).toBeVisible();

    await page.getByLabel("Full Name").fill("Nobody Anywhere");
    await page.getByLabel("Street Address").fill("");
    await page.getByLabel("Zip Code").fill("");
    await page.getByLabel("Permissible purpose").click();
    await page.getByRole("option", { name: "Fraud prevention" }).click();
    await search.click();
    await expect(page.getByTestId("person-not-found")).toBeVisible();
  });

  await test.step("the compliance note opens the audit: both rows, newest first", async () => {
    await page.getByTestId("compliance-note").getByRole("link", { name: "lookup audit" }).click();
    await expect(page).toHaveURL(/\/person-lookup\?tab=audit$/);
    await expect(page.getByRole("tab", { name: "Lookup audit" })).toHaveAttribute("aria-selected", "true");
    const rows = page.getByTestId("audit-row");
    // The refused initial is in the audit too (Invalid, free).
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(0)).toContainText("Nobody Anywhere");
    await expect(rows.nth(0)).toContainText("Miss");
    await expect(rows.nth(0)).toContainText("Fraud prevention");
    await expect(rows.nth(0).getByTestId("audit-credits")).toHaveText("0", { useInnerText: true });
    await expect(rows.nth(0)).toContainText("Dashboard");
    await expect(rows.nth(1)).toContainText(KNOWN_RESIDENT.name);
    await expect(rows.nth(1)).toContainText("Hit");
    await expect(rows.nth(1)).toContainText("Real estate transaction");
    await expect(rows.nth(1).getByTestId("audit-credits")).toHaveText("5", { useInnerText: true });
    await expect(rows.nth(2)).toContainText("Invalid");
    await page.screenshot({ path: testInfo.outputPath("person-audit-1440.png"), fullPage: true });
  });

  await test.step("filtering by purpose narrows the list", async () => {
    await page.getByRole("combobox", { name: "Purpose" }).click();
    await page.getByRole("option", { name: "Fraud prevention" }).click();
    const read = page.waitForResponse((r) => r.url().includes("/api/person/audit?") && r.url().includes("purpose=fraud_prevention"));
    await page.getByRole("button", { name: "Apply filters" }).click();
    expect((await read).status()).toBe(200);
    await expect(page.getByTestId("audit-row")).toHaveCount(1);
    await expect(page.getByTestId("audit-row").first()).toContainText("Nobody Anywhere");
  });

  await test.step("Export CSV downloads the filtered audit", async () => {
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    const saved = testInfo.outputPath(file.suggestedFilename());
    await file.saveAs(saved);
    const rows = parseCsv(readFileSync(saved, "utf8"));
    const body = rows.slice(1).filter((r) => r.some((c) => c !== ""));
    expect(body).toHaveLength(1);
    expect(body[0]!.join(",")).toContain("Nobody Anywhere");
    expect(rows.flat().join(",")).not.toContain(KNOWN_RESIDENT.name);
  });

  await test.step("at 390x844 the rows stack and nothing scrolls sideways", async () => {
    await page.setViewportSize(SIZES[1]);
    await page.reload();
    const rows = page.getByTestId("audit-row");
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(1)).toContainText("Hit");
    await expect(rows.nth(1)).toContainText("5 credits");
    await expect(rows.nth(0)).toContainText("Miss");
    await expect(rows.nth(0)).toContainText("0 credits");
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    await page.screenshot({ path: testInfo.outputPath("person-audit-390.png"), fullPage: true });
    // The tabs work from the keyboard too.
    await page.getByRole("tab", { name: "Lookup audit" }).focus();
    await page.keyboard.press("ArrowLeft");
    await expect(page.getByRole("tab", { name: "Lookup", exact: true })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByLabel("Full Name")).toBeVisible();
  });
});
