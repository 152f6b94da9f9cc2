import { describe, expect, it } from "vitest";
import { quoteCell, safeCell, toCsv } from "./csv";

describe("safeCell", () => {
  it.each([
    ["=SUM(A1:A2)", "'=SUM(A1:A2)"],
    ["+1-2", "'+1-2"],
    ["@cmd", "'@cmd"],
    ["\tleading tab", "'\tleading tab"],
    ["\rleading cr", "'\rleading cr"],
    ["-1+2", "'-1+2"],
    ["-A1", "'-A1"],
    ["-", "'-"],
    ["-12", "-12"],
    ["-12.5", "-12.5"],
    ["123 Main St", "123 Main St"],
    ["a=b", "a=b"],
    ["", ""],
  ])("%j -> %j", (input, want) => {
    expect(safeCell(input)).toBe(want);
  });
});

describe("quoteCell", () => {
  it("quotes commas, quotes and line breaks and doubles inner quotes", () => {
    expect(quoteCell("plain")).toBe("plain");
    expect(quoteCell("a,b")).toBe('"a,b"');
    expect(quoteCell('say "hi"')).toBe('"say ""hi"""');
    expect(quoteCell("two\nlines")).toBe('"two\nlines"');
  });
});

describe("toCsv", () => {
  it("writes protected, quoted cells with CRLF line ends and empty cells for missing values", () => {
    expect(
      toCsv([
        ["a", "b", "c"],
        ["=1+1, really", null, -5],
        [undefined, Number.NaN, true],
      ]),
    ).toBe('a,b,c\r\n"\'=1+1, really",,-5\r\n,,true\r\n');
  });
});
