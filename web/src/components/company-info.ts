// Contact details shown on several public pages (contact, privacy, terms, help center), kept in one place so
// they cannot disagree.

export const SUPPORT_EMAIL = "support@valuator.dev";
export const SUPPORT_PHONE = "+1 (415) 555-0142";

export interface Office {
  city: string;
  hq: boolean;
  lines: readonly string[];
}

export const OFFICES: readonly Office[] = [
  { city: "San Francisco", hq: true, lines: ["535 Mission Street, 14th Floor", "San Francisco, CA 94105"] },
  { city: "New York", hq: false, lines: ["250 Park Avenue South, 7th Floor", "New York, NY 10003"] },
];

export const HQ_POSTAL_ADDRESS = "Valuator, 535 Mission Street, 14th Floor, San Francisco, CA 94105";
