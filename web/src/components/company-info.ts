// Contact details shown on several public pages, kept in one place so they cannot disagree. The support address
// an installation really reads is the server's (GET /api/site, VALUATOR_SUPPORT_EMAIL; components/
// support-email-link.tsx): the contact, privacy and terms pages show that one. There is no phone line.

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
