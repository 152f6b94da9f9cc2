import type { UseFormSetError, FieldValues, Path } from "react-hook-form";
import { ApiError, apiJson, apiRequest } from "@/lib/api";
import type {
  ChangePasswordRequest,
  CloseAccountRequest,
  NotificationPreferences,
  UpdateProfileRequest,
  User,
} from "@/lib/types";

export function updateProfile(body: UpdateProfileRequest): Promise<User> {
  return apiJson<User>("PUT", "/api/user/profile", body);
}

export async function changePassword(body: ChangePasswordRequest): Promise<void> {
  await apiRequest("POST", "/api/auth/change-password", body);
}

export function updateNotifications(body: NotificationPreferences): Promise<User> {
  return apiJson<User>("PUT", "/api/user/notifications", body);
}

export async function closeAccount(body: CloseAccountRequest): Promise<void> {
  await apiRequest("DELETE", "/api/user", body);
}

/**
 * Puts the server's messages for bad fields (400 `fields`/`field`, 409 `field`) on the form's own fields, so the
 * person sees them where they typed. Returns whether any message was placed.
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
