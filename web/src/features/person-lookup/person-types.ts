// The person lookup's shapes (POST /api/find-person), in the server's snake_case (internal/person/person.go).
// api/openapi.yaml does not describe them yet; when it does, these should become aliases in src/lib/types.ts.

export const PURPOSES = [
  { value: "real_estate_transaction", label: "Real estate transaction" },
  { value: "identity_verification", label: "Identity verification" },
  { value: "fraud_prevention", label: "Fraud prevention" },
  { value: "contacting_owner", label: "Contacting a property owner" },
  { value: "legal_process", label: "Service of legal process" },
] as const;

export type Purpose = (typeof PURPOSES)[number]["value"];

export const PURPOSE_VALUES = PURPOSES.map((p) => p.value) as [Purpose, ...Purpose[]];

export interface FindPersonRequest {
  name: string;
  street_line_1?: string;
  city: string;
  state_code: string;
  postal_code?: string;
  purpose: Purpose;
}

export interface LatLong {
  latitude: number;
  longitude: number;
}

export interface PersonAddress {
  street_line_1: string;
  street_line_2: string;
  city: string;
  state_code: string;
  postal_code: string;
  lat_long: LatLong | null;
}

export interface PersonPhone {
  phone_number: string;
  line_type: string;
}

export interface AssociatedPerson {
  name: string;
  firstname: string;
  lastname: string;
  relation: string;
}

export type PersonSource = "directory" | "demo" | "whitepages";

export interface PersonResult {
  id: string;
  name: string;
  alternate_names: string[];
  age_range: string;
  gender: string;
  found_at_address: PersonAddress | null;
  current_addresses: PersonAddress[];
  historical_addresses: PersonAddress[];
  phones: PersonPhone[];
  emails: string[];
  associated_people: AssociatedPerson[];
  /** How well the result matches the query, 0 to 1. */
  match_score: number;
  /** Another candidate scored close: this is the closest, not a sure match. */
  ambiguous: boolean;
  source: PersonSource;
}

export interface FindPersonMeta {
  requestId: string;
  creditsUsed: number;
  creditsRemaining: number;
}

export interface FindPersonResponse {
  data: PersonResult;
  meta: FindPersonMeta;
}
