import { apiJson, apiRequest } from "@/lib/api";
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

