// Helpers for the Batch Upload specs: files built in the test (CSV text, a real .xlsx workbook), the batch calls made
// straight against the server, and the Processing Queue's locators. Not a spec file.
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { crc32, deflateRawSync } from "node:zlib";
import { expect } from "./fixtures";

/** Homes of the demo market that value (the five of the example file and a neighbour), as the server formats them. */
export const DEMO_ROWS = [
  { street: "7006 Maple Rd", city: "Seattle", state: "WA", zip: "98103", formatted: "7006 MAPLE RD, SEATTLE, WA 98103" },
  { street: "7203 N Spring St", city: "Seattle", state: "WA", zip: "98103", formatted: "7203 N SPRING ST, SEATTLE, WA 98103" },
  { street: "1525 47th Ave", city: "Denver", state: "CO", zip: "80202", formatted: "1525 47TH AVE, DENVER, CO 80202" },
  { street: "7010 Maple Rd", city: "Seattle", state: "WA", zip: "98103", formatted: "7010 MAPLE RD, SEATTLE, WA 98103" },
] as const;

/** The five homes of GET /api/batch/example.csv, as the server formats them. */
export const EXAMPLE_FORMATTED = [
  "7006 MAPLE RD, SEATTLE, WA 98103",
  "7203 N SPRING ST, SEATTLE, WA 98103",
  "1679 15TH AVE APT 1A, AUSTIN, TX 78701",
  "1525 47TH AVE, DENVER, CO 80202",
  "8244 KENSINGTON DR, ATLANTA, GA 30308",
];

/** A street in a ZIP code far from every sale of the demo market: the row fails (area_not_covered), uncharged. */
export function nowhere(n = 100) {
  return { street: `${n} Biscayne Blvd`, city: "Miami", state: "FL", zip: "33132" };
}

/** CSV text (RFC 4180 quoting, CRLF rows) of rows of cells. */
export function toCsv(rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => {
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}

export function csvFile(name: string, rows: readonly (readonly (string | number)[])[]) {
  return { name, mimeType: "text/csv", buffer: Buffer.from(toCsv(rows), "utf8") };
}

// ---------------------------------------------------------------------------------------------------------------
// A real Office Open XML workbook, written here (e2e has no spreadsheet library): one sheet whose text cells are
// inline strings and whose numbers are numeric cells, zipped with deflate.

function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function columnLetters(i: number): string {
  let s = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A minimal zip archive (deflated entries, no data descriptors). */
function zip(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, "utf8");
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date: 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, packed);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + packed.length;
  }
  const centralDir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralDir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralDir, end]);
}

/** An .xlsx workbook with one sheet named `sheetName` holding `rows` (strings as text, numbers as numbers). */
export function xlsxWorkbook(rows: readonly (readonly (string | number)[])[], sheetName = "Listings"): Buffer {
  const sheetRows = rows
    .map((r, ri) => {
      const cells = r
        .map((v, ci) => {
          const ref = `${columnLetters(ci)}${ri + 1}`;
          return typeof v === "number"
            ? `<c r="${ref}"><v>${v}</v></c>`
            : `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlEscape(v)}</t></is></c>`;
        })
        .join("");
      return `<row r="${ri + 1}">${cells}</row>`;
    })
    .join("");
  const xml = (s: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${s}`, "utf8");
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  return zip([
    {
      name: "[Content_Types].xml",
      data: xml(
        `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
          `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
          `<Default Extension="xml" ContentType="application/xml"/>` +
          `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
          `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
          `</Types>`,
      ),
    },
    {
      name: "_rels/.rels",
      data: xml(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
          `<Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/workbook.xml",
      data: xml(
        `<workbook xmlns="${main}" xmlns:r="${rel}"><sheets>` +
          `<sheet name="${xmlEscape(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: xml(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
          `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: xml(`<worksheet xmlns="${main}"><sheetData>${sheetRows}</sheetData></worksheet>`),
    },
  ]);
}

/** Whether a buffer starts as a zip archive does ("PK\x03\x04"), as every .xlsx does. */
export function isZip(buf: Buffer): boolean {
  return buf.length > 4 && buf.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
}

// ---------------------------------------------------------------------------------------------------------------
// The batch calls.

export interface BatchJob {
  id: number;
  fileName: string;
  status: "pending" | "processing" | "completed" | "failed" | "cancelled";
  totalProperties: number;
  processedProperties: number;
  successfulProperties: number;
  failedProperties: number;
  creditsUsed: number;
  source: string;
}

function bearer(token: string) {
  return { Authorization: `Bearer ${token}` };
}

export async function jobById(request: APIRequestContext, token: string, id: number): Promise<BatchJob> {
  const res = await request.get(`/api/jobs/${id}`, { headers: bearer(token) });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as BatchJob;
}

export async function listJobs(request: APIRequestContext, token: string): Promise<BatchJob[]> {
  const res = await request.get("/api/jobs", { headers: bearer(token) });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as BatchJob[];
}

/**
 * Queues `count` jobs of 100 addresses that have no market data (each row fails, none is charged) for the account
 * of `token`. The valuation queue works in order, two jobs at a time, so a job created right after these waits
 * behind them, pending, for a few seconds: long enough to cancel it from the screen without a race.
 */
export async function fillQueue(request: APIRequestContext, token: string, count: number): Promise<void> {
  const properties = Array.from({ length: 100 }, (_, i) => {
    const p = nowhere(200 + i);
    return { address: p.street, city: p.city, state: p.state, zip: p.zip };
  });
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await request.post("/api/jobs", {
        headers: bearer(token),
        data: { type: "batch", fileName: `queue-filler-${i + 1}.json`, inputData: { properties } },
      });
      expect(res.status(), await res.text()).toBe(201);
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The screen.

/** The Processing Queue's row of the job whose file is `fileName` (the newest such job when there are several). */
export function jobRow(page: Page, fileName: string): Locator {
  return page.getByTestId("job-row").filter({ has: page.getByTitle(fileName, { exact: true }) }).first();
}

/** A row's (or the details dialog's) job status badge. */
export function statusBadge(scope: Locator): Locator {
  return scope.locator("[data-status]").first();
}

/** Chooses a column's type on the 'Address Field Mapping' screen (a Radix select). */
export async function chooseType(page: Page, column: string, label: string): Promise<void> {
  await page.getByRole("combobox", { name: `Type of column ${column}`, exact: true }).click();
  await page.getByRole("option", { name: label, exact: true }).click();
  await expect(page.getByRole("listbox")).toBeHidden();
}

export function typeSelect(page: Page, column: string): Locator {
  return page.getByRole("combobox", { name: `Type of column ${column}`, exact: true });
}
