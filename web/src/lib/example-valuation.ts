// The example valuation the product shows (the landing page, the API Keys documentation, the help center, the
// lookup screen's sample result, and the placeholders of the address fields). It is not written by hand: `make
// examples` (internal/examples) generates the demo market, trains the real engine and values one of its homes through
// the real HTTP handler, and writes src/generated/example-valuation.json; a Go test fails when that file is out of
// date or does not fit api/openapi.yaml. Never edit the JSON.
import generated from "@/generated/example-valuation.json";
import type { PropertyValuation } from "./types";

/** The address valued, split as the public API's query parameters. */
export const EXAMPLE_REQUEST: Readonly<{ address: string; city: string; state: string; zip: string }> =
  generated.request;

/** The address as the public API's query string, spaces as %20 so that it reads well in a URL. */
export const EXAMPLE_QUERY = new URLSearchParams(EXAMPLE_REQUEST).toString().replace(/\+/g, "%20");

/** The address on one line, as a person types it: "5873 River Dr N, Seattle, WA 98103". */
export const EXAMPLE_ADDRESS_LINE = `${EXAMPLE_REQUEST.address}, ${EXAMPLE_REQUEST.city}, ${EXAMPLE_REQUEST.state} ${EXAMPLE_REQUEST.zip}`;

/**
 * The answer's data. JSON imports type their strings as string, not as the contract's enums, hence the cast; the
 * Go test validates the file against the contract instead.
 */
export const EXAMPLE_VALUATION = generated.response.data as PropertyValuation;

/** The whole answer of GET /api/v1/property/valuation, as the API sends it ({ data }), pretty-printed. */
export const EXAMPLE_RESPONSE_JSON = JSON.stringify(generated.response, null, 2);

/** How many comparable sales the engine returned, and how many the example keeps to stay short. */
export const EXAMPLE_COMPARABLES: Readonly<{ returned: number; kept: number }> = generated.comparables;

/** The demo market the example home belongs to (seed, homes, and the last day of its sales). */
export const EXAMPLE_MARKET: Readonly<{ seed: number; homes: number; day: string }> = generated.market;

/** One line under an example answer: where it comes from and what was cut. */
export const EXAMPLE_NOTE =
  `A real answer of the engine for a home of the demo market (sales up to ${EXAMPLE_MARKET.day})` +
  (EXAMPLE_COMPARABLES.kept < EXAMPLE_COMPARABLES.returned
    ? `, showing ${EXAMPLE_COMPARABLES.kept} of its ${EXAMPLE_COMPARABLES.returned} comparable sales.`
    : ".");
