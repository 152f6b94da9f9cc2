import { describe, expect, it } from "vitest";
import {
  associateName,
  formatLatLong,
  formatLineType,
  formatPhone,
  localityLine,
  matchPercent,
  oneLineAddress,
  streetLine,
} from "./person-helpers";

describe("formatPhone", () => {
  it("formats 10 digits", () => {
    expect(formatPhone("2065550100")).toBe("(206) 555-0100");
  });
  it("formats +1 E.164", () => {
    expect(formatPhone("+12065550100")).toBe("(206) 555-0100");
    expect(formatPhone(" +12065550100 ")).toBe("(206) 555-0100");
  });
  it("shows anything else as given", () => {
    expect(formatPhone("+442071838750")).toBe("+442071838750");
    expect(formatPhone("12065550100")).toBe("12065550100");
    expect(formatPhone("206555010")).toBe("206555010");
    expect(formatPhone("206-555-0100")).toBe("206-555-0100");
    expect(formatPhone("+1206555010099")).toBe("+1206555010099");
    expect(formatPhone("")).toBe("");
  });
});

describe("formatLineType", () => {
  it("turns codes into words", () => {
    expect(formatLineType("mobile")).toBe("Mobile");
    expect(formatLineType("non_fixed_voip")).toBe("Non fixed voip");
    expect(formatLineType("")).toBe("");
  });
});

describe("associateName", () => {
  it("prefers the name, else first plus last", () => {
    expect(associateName({ name: "Ann Lee", firstname: "A", lastname: "L", relation: "" })).toBe("Ann Lee");
    expect(associateName({ name: "", firstname: "Bo", lastname: "Lee", relation: "" })).toBe("Bo Lee");
    expect(associateName({ name: " ", firstname: "", lastname: "Lee", relation: "" })).toBe("Lee");
  });
});

describe("addresses", () => {
  const a = {
    street_line_1: "12 Main St",
    street_line_2: "Apt 4",
    city: "Seattle",
    state_code: "WA",
    postal_code: "98109",
    lat_long: null,
  };
  it("joins the parts that are present", () => {
    expect(streetLine(a)).toBe("12 Main St, Apt 4");
    expect(localityLine(a)).toBe("Seattle, WA 98109");
    expect(oneLineAddress(a)).toBe("12 Main St, Apt 4, Seattle, WA 98109");
    expect(oneLineAddress({ ...a, street_line_1: "", street_line_2: "", postal_code: "" })).toBe("Seattle, WA");
  });
  it("formats coordinates", () => {
    expect(formatLatLong(47.6, -122.351234)).toBe("47.60000, -122.35123");
  });
});

describe("matchPercent", () => {
  it("rounds and clamps", () => {
    expect(matchPercent(0.874)).toBe("87%");
    expect(matchPercent(1.2)).toBe("100%");
    expect(matchPercent(Number.NaN)).toBe("0%");
  });
});
