import { describe, expect, it } from "vitest";
import { columnLetters, crc32, sheetXml, xlsxBytes } from "./xlsx";

describe("xlsx", () => {
  it("writes numbers as numbers and text as inline strings, never formulas", () => {
    const xml = sheetXml([["Address", "Value"], ["=1+1 <Main>", 500000], [null, ""]]);
    expect(xml).toContain('<c r="A2" t="inlineStr"><is><t xml:space="preserve">=1+1 &lt;Main&gt;</t></is></c>');
    expect(xml).toContain('<c r="B2"><v>500000</v></c>');
    expect(xml).toContain('<row r="3"></row>');
    expect(xml).not.toContain("<f>");
  });

  it("names columns past Z", () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetters)).toEqual(["A", "Z", "AA", "AB", "ZZ", "AAA"]);
  });

  it("zips the workbook's parts with their checksums", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
    const bytes = xlsxBytes([["a", 1]], "Homes");
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    expect(view.getUint32(bytes.length - 22, true)).toBe(0x06054b50);
    expect(view.getUint16(bytes.length - 22 + 10, true)).toBe(5);
    const text = new TextDecoder().decode(bytes);
    expect(text).toContain("xl/worksheets/sheet1.xml");
    expect(text).toContain('<sheet name="Homes"');
  });
});
