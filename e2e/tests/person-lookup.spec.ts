// Person Lookup end to end: the demo account finds a demo resident by a nickname and a differently written
// address, sees every card and 5 credits gone, finds the lookup in history; a miss costs nothing; a validation
// error shows the spec's text.
import { expect, signInThroughUI, test } from "./fixtures";
import { browserToken, creditsOf } from "./public-api";

// The demo directory's resident of 7006 Maple Rd, Seattle (deterministic: person.DemoResidents with seed 1).
const RESIDENT = { search: "Jen Northcott", street: "7006 Maple Road", city: "Seattle", state: "wa", found: "Jennifer Northcott" };

test("the demo account finds a demo resident by nickname; a miss is free; validation texts", async ({ page, request }) => {
  await signInThroughUI(page, "demo@valuator.dev", "valuator-demo");
  const token = await browserToken(page);
  await page.goto("/person-lookup");
  const before = await creditsOf(request, token);

  await test.step("a validation error shows the spec's text", async () => {
    await page.getByLabel("City").fill("Seattle");
    await page.getByLabel("State").fill("W");
    await page.getByRole("button", { name: "Search Person (5 Credits)" }).click();
    await expect(page.getByText("Name is required")).toBeVisible();
    await expect(page.getByText("State must be 2 letters")).toBeVisible();
    expect(await creditsOf(request, token)).toBe(before);
  });

  await test.step("a nickname and a differently written address find the resident: every card, 5 credits", async () => {
    await page.getByLabel("Full Name").fill(RESIDENT.search);
    await page.getByLabel("Street Address").fill(RESIDENT.street);
    await page.getByLabel("City").fill(RESIDENT.city);
    await page.getByLabel("State").fill(RESIDENT.state);
    await expect(page.getByLabel("State")).toHaveValue("WA"); // upper-cased as typed
    await page.getByRole("button", { name: "Search Person (5 Credits)" }).click();
    await expect(page.getByText("Person Found", { exact: true }).first()).toBeVisible();
    const info = page.getByTestId("person-info");
    await expect(info.getByText(RESIDENT.found)).toBeVisible();
    await expect(info.getByText("Demo data", { exact: false }).first()).toBeVisible();
    await expect(page.getByTestId("current-address").getByText("7006 MAPLE RD")).toBeVisible();
    await expect(page.getByTestId("current-address").getByText(/47\.67/)).toBeVisible();
    await expect(page.getByTestId("phone-numbers").getByText(/\(\d{3}\) 555-01\d\d/)).toBeVisible();
    await expect(page.getByTestId("email-addresses").getByText("@example.com", { exact: false })).toBeVisible();
    for (const title of ["Recent Addresses", "Associated People"]) await expect(page.getByText(title).first()).toBeVisible();
    expect(await creditsOf(request, token)).toBe(before - 5);
  });

  await test.step("a miss: an honest not-found state and no credits used", async () => {
    await page.getByLabel("Full Name").fill("Nobody Anywhere");
    await page.getByLabel("Street Address").fill("");
    await page.getByRole("button", { name: "Search Person (5 Credits)" }).click();
    const notFound = page.getByTestId("person-not-found");
    await expect(notFound.getByRole("heading", { name: "No person found" })).toBeVisible();
    await expect(notFound.getByText("No credits were used.")).toBeVisible();
    expect(await creditsOf(request, token)).toBe(before - 5);
  });

  await test.step("the lookups are in the request history", async () => {
    const res = await request.get("/api/usage/history?limit=50", { headers: { Authorization: `Bearer ${token}` } });
    const hist = (await res.json()) as { data: { apiService: string; creditsUsed: number; responseStatus: number }[] };
    const people = hist.data.filter((h) => h.apiService === "person_lookup");
    expect(people.map((h) => [h.responseStatus, h.creditsUsed])).toEqual(expect.arrayContaining([[200, 5], [404, 0]]));
    await page.goto("/history");
    await expect(page.getByText(/Jen Northcott/).first()).toBeVisible();
  });
});
