// Shapes of the API, generated from api/openapi.yaml by `npm run gen:api` (openapi-typescript), so the app and the
// server cannot drift apart silently.
import type { components, operations } from "./api-types";

type Schemas = components["schemas"];

export type User = Schemas["User"];
export type NotificationPreferences = Schemas["NotificationPreferences"];
export type AuthResponse = Schemas["AuthResponse"];
export type RegisterRequest = Schemas["RegisterRequest"];
export type LoginRequest = Schemas["LoginRequest"];
export type ChangePasswordRequest = Schemas["ChangePasswordRequest"];
export type PasswordResetRequested = Schemas["PasswordResetRequested"];
export type ResetPasswordRequest = Schemas["ResetPasswordRequest"];
export type UpdateProfileRequest = Schemas["UpdateProfileRequest"];
export type CloseAccountRequest = Schemas["CloseAccountRequest"];
export type ContactRequest = Schemas["ContactRequest"];
export type ContactReceipt = Schemas["ContactReceipt"];
export type Site = Schemas["Site"];
export type SdkCatalog = Schemas["SdkCatalog"];
export type UnsubscribeResult = Schemas["UnsubscribeResult"];
export type Message = Schemas["Message"];
export type PropertyLookupRequest = Schemas["PropertyLookupRequest"];
export type PropertyValuation = Schemas["PropertyValuation"];
export type ExampleValuation = Schemas["ExampleValuation"];
export type ComparableSale = Schemas["ComparableSale"];
export type RentalComparable = Schemas["RentalComparable"];
export type PriceEvent = Schemas["PriceEvent"];
export type ReportRequest = Schemas["ReportRequest"];
export type ApiKey = Schemas["ApiKey"];
export type CreateApiKeyRequest = Schemas["CreateApiKeyRequest"];
export type UsageEntry = Schemas["UsageEntry"];
export type UsageHistory = Schemas["UsageHistory"];
export type Pagination = Schemas["Pagination"];
export type UsageStats = Schemas["UsageStats"];
export type PlanInfo = Schemas["PlanInfo"];
export type BillingConfig = Schemas["BillingConfig"];
export type PaymentMethod = Schemas["PaymentMethod"];
export type Subscription = Schemas["Subscription"];
export type MeteredUsage = Schemas["MeteredUsage"];
export type CreditHistoryEntry = Schemas["CreditHistoryEntry"];
export type CursorPage = Schemas["CursorPage"];
export type CreditHistory = Schemas["CreditHistory"];
export type PaymentRecord = Schemas["PaymentRecord"];
export type PaymentHistory = Schemas["PaymentHistory"];
export type SubscribeRequest = Schemas["SubscribeRequest"];
export type SubscribeResponse = Schemas["SubscribeResponse"];
export type ChangePlanRequest = Schemas["ChangePlanRequest"];
export type PlanChange = Schemas["PlanChange"];
export type TestCardRequest = Schemas["TestCardRequest"];
export type TestConfirmRequest = Schemas["TestConfirmRequest"];
export type OverageLimit = Schemas["OverageLimit"];
export type PersonQuery = Schemas["PersonQuery"];
export type PersonAuditEntry = Schemas["PersonAuditEntry"];
export type PersonAuditQuery = Schemas["PersonAuditQuery"];
export type PersonAuditLog = operations["personAudit"]["responses"][200]["content"]["application/json"];
export type PersonAuditParams = NonNullable<operations["personAudit"]["parameters"]["query"]>;
export type OptOutRequest = Schemas["OptOutRequest"];
export type OptOutRequested = Schemas["OptOutRequested"];
export type OptOutConfirmRequest = NonNullable<
  operations["personOptOutConfirm"]["requestBody"]
>["content"]["application/json"];
export type OptOutConfirmed = Schemas["OptOutConfirmed"];
