import { describe, expect, it } from "vitest";
import { personSchema } from "./person-form";

const valid = {
  name: "Jane Q Public",
  street_line_1: "",
  city: "Seattle",
  state_code: "WA",
  postal_code: "",
  purpose: "real_estate_transaction",
};

function firstIssue(input: Record<string, unknown>, path: string): string | undefined {
  const r = personSchema.safeParse(input);
  return r.success ? undefined : r.error.issues.find((i) => i.path[0] === path)?.message;
}

describe("personSchema", () => {
  it("accepts a valid lookup with blank optional fields", () => {
    expect(personSchema.safeParse(valid).success).toBe(true);
  });
  it("has the spec's state messages", () => {
    expect(firstIssue({ ...valid, state_code: "" }, "state_code")).toBe("State must be 2 letters");
    expect(firstIssue({ ...valid, state_code: "W1" }, "state_code")).toBe("State must be 2 letters");
    // The form upper-cases as typed, so this one guards values set any other way.
    expect(firstIssue({ ...valid, state_code: "wa" }, "state_code")).toBe("State must be uppercase");
  });
  it("has the spec's name and city messages and limits", () => {
    expect(firstIssue({ ...valid, name: "  " }, "name")).toBe("Name is required");
    expect(firstIssue({ ...valid, city: "" }, "city")).toBe("City is required");
    expect(firstIssue({ ...valid, name: "a".repeat(200) }, "name")).toBeUndefined();
    expect(firstIssue({ ...valid, city: "a".repeat(100) }, "city")).toBeUndefined();
  });
  it("requires one of the listed purposes", () => {
    expect(firstIssue({ ...valid, purpose: "curiosity" }, "purpose")).toBe("Choose a permissible purpose");
  });
});
