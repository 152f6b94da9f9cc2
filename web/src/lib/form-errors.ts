import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { ApiError } from "./api";

/**
 * Puts the server's messages for bad fields (400 `fields`, else `field`) on the form's own fields, so the person
 * reads why next to what to fix (a password the server refuses says why under the password). Returns whether any
 * message was placed; the caller shows anything else as a toast. One helper for every form, in lib because
 * features do not import each other.
 */
export function applyServerFieldErrors<T extends FieldValues>(
  err: unknown,
  setError: UseFormSetError<T>,
  known: readonly Path<T>[],
): boolean {
  if (!(err instanceof ApiError) || !err.body) return false;
  const messages: Record<string, string> = { ...(err.body.fields ?? {}) };
  if (err.body.field && !messages[err.body.field]) messages[err.body.field] = err.body.error;
  let placed = false;
  for (const name of known) {
    const message = messages[name];
    if (message) {
      setError(name, { type: "server", message });
      placed = true;
    }
  }
  return placed;
}
