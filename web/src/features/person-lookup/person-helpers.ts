import type { PersonAuditEntry, PersonAuditQuery } from "@/lib/types";
import { PURPOSES, type AssociatedPerson, type PersonAddress } from "./person-types";

// Pure formatting for the person result cards and the lookup audit.

/**
 * A US phone number as (xxx) xxx-xxxx when it is 10 digits or +1 and 10 digits (E.164); anything else (another
 * country, an extension, a short code) is shown exactly as given rather than guessed at.
 */
export function formatPhone(raw: string): string {
  const s = raw.trim();
  const m = /^(?:\+1)?(\d{3})(\d{3})(\d{4})$/.exec(s);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : raw;
}

/** A line type such as "mobile" or "non_fixed_voip" as words: "Mobile", "Non fixed voip". */
export function formatLineType(lineType: string): string {
  const words = lineType.trim().replace(/[_-]+/g, " ");
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "";
}

/** The associate's display name: the full name, else first plus last name. */
export function associateName(p: AssociatedPerson): string {
  const name = p.name?.trim();
  if (name) return name;
  return [p.firstname?.trim(), p.lastname?.trim()].filter(Boolean).join(" ");
}

/** The street lines of an address, joined ("1679 15th Ave, Apt 1A"). */
export function streetLine(a: PersonAddress): string {
  return [a.street_line_1, a.street_line_2].map((s) => s?.trim()).filter(Boolean).join(", ");
}

/** The city, state and postal code ("Seattle, WA 98109"). */
export function localityLine(a: PersonAddress): string {
  const cityState = [a.city?.trim(), a.state_code?.trim()].filter(Boolean).join(", ");
  return [cityState, a.postal_code?.trim()].filter(Boolean).join(" ");
}

/** The whole address on one line. */
export function oneLineAddress(a: PersonAddress): string {
  return [streetLine(a), localityLine(a)].filter(Boolean).join(", ");
}

/** A coordinate pair with 5 decimals (about a metre). */
export function formatLatLong(latitude: number, longitude: number): string {
  return `${latitude.toFixed(5)}, ${longitude.toFixed(5)}`;
}

/** A 0-1 match score as a whole percentage, clamped. */
export function matchPercent(score: number): string {
  const pct = Number.isFinite(score) ? Math.round(Math.min(1, Math.max(0, score)) * 100) : 0;
  return `${pct}%`;
}

/** A permissible purpose's label ("Fraud prevention"); an id the app does not know is shown as it is. */
export function purposeLabel(purpose: string): string {
  return PURPOSES.find((p) => p.value === purpose)?.label ?? purpose;
}

export type OutcomeTone = "success" | "secondary" | "outline" | "warning" | "destructive";

/** How each audit outcome reads, as a badge. */
export const OUTCOMES: Record<PersonAuditEntry["outcome"], { label: string; tone: OutcomeTone; description: string }> = {
  found: { label: "Hit", tone: "success", description: "A person was found (charged)" },
  not_found: { label: "Miss", tone: "secondary", description: "No one matched (free)" },
  invalid: { label: "Invalid", tone: "outline", description: "The query was refused as invalid (free)" },
  insufficient_credits: { label: "Out of credits", tone: "warning", description: "Refused: not enough credits (free)" },
  rate_limited: { label: "Slowed down", tone: "warning", description: "Refused: too many misses (free)" },
  error: { label: "Error", tone: "destructive", description: "The lookup failed on our side (free)" },
};

/** An outcome's badge; an outcome the app does not know reads as itself. */
export function outcomeOf(outcome: string): { label: string; tone: OutcomeTone; description: string } {
  return OUTCOMES[outcome as PersonAuditEntry["outcome"]] ?? { label: outcome, tone: "outline", description: outcome };
}

/** How a lookup was made: "Dashboard", or "API key: <name>" (the name is kept after the key is deleted). */
export function auditVia(entry: Pick<PersonAuditEntry, "via" | "apiKeyName" | "apiKeyId">): string {
  if (entry.via === "dashboard") return "Dashboard";
  const name = entry.apiKeyName?.trim();
  if (name) return `API key: ${name}`;
  return entry.apiKeyId !== null ? `API key #${entry.apiKeyId}` : "API key";
}

/** The address of an audited query on one line ("5873 River Dr N, Seattle, WA 98103"); "" when none was given. */
export function auditAddress(q: PersonAuditQuery): string {
  return oneLineAddress({
    street_line_1: q.street_line_1,
    street_line_2: "",
    city: q.city,
    state_code: q.state_code,
    postal_code: q.postal_code,
    lat_long: null,
  });
}
