// Who may open the operator console (issue 27): the profile's `role` ("customer" | "admin"). The generated User type
// gains `role` when api/openapi.yaml describes it; until then it is read defensively, so a profile without it is a
// customer's.
import type { User } from "./types";

export function isOperator(user: User | null | undefined): boolean {
  return !!user && (user as { role?: unknown }).role === "admin";
}
