// The example valuation the product shows (the landing page, the API Keys documentation, the help center, the
// lookup screen's sample result and /docs), and the example address of the address fields' placeholders.
//
// The numbers shown come from the server the page came from: GET /api/example values the example home exactly as a
// lookup does on that server today (internal/examples/example), so the example a visitor sees is, to the dollar,
// what a lookup of that address returns there. `make examples` (internal/examples) also generates the answer on the
// demo market of a fixed day into src/generated/example-valuation.json (never edited by hand; a Go test checks it
// against api/openapi.yaml). That one is shown only where the server has no record of the home (a production
// install: example_unavailable) or could not answer, and then always with its day, never as this server's answer;
// while the live answer loads, the screens show a skeleton, never the generated numbers. The generated file is loaded
// only then (generated-example.ts, a chunk of its own): every public page shows the example, and the file, with its
// answer's five years of value history, would otherwise weigh on the landing page's first load.
import { useQuery } from "@tanstack/react-query";
import { ApiError, errorMessage } from "./api";
import type { ExampleValuation } from "./types";

/**
 * The address valued, split as the public API's query parameters: the same on every server (internal/examples/example
 * Home); example-valuation.test.tsx holds it to the generated file's request.
 */
export const EXAMPLE_REQUEST: Readonly<{ address: string; city: string; state: string; zip: string }> = {
  address: "5873 River Dr N",
  city: "Seattle",
  state: "WA",
  zip: "98103",
};
/** The address as the public API's query string, spaces as %20 so that it reads well in a URL. */
export const EXAMPLE_QUERY = new URLSearchParams(EXAMPLE_REQUEST).toString().replace(/\+/g, "%20");

/** The address on one line, as a person types it: "5873 River Dr N, Seattle, WA 98103". */
export const EXAMPLE_ADDRESS_LINE = `${EXAMPLE_REQUEST.address}, ${EXAMPLE_REQUEST.city}, ${EXAMPLE_REQUEST.state} ${EXAMPLE_REQUEST.zip}`;

/** Where the server answers its own example. */
export const EXAMPLE_URL = "/api/example";

/** How long a fetched example is reused before a page shown anew asks again: the answer changes at most daily. */
export const EXAMPLE_STALE_MS = 5 * 60 * 1000;

/** The code of the server's 404 when its market has no record of the example home. */
export const EXAMPLE_UNAVAILABLE = "example_unavailable";

/**
 * What a screen shows as the example:
 * - loading: nothing yet (a skeleton);
 * - live: the server's own answer, the numbers a lookup of the address returns there today;
 * - unavailable: the server has no record of the home, so the generated example, with its day;
 * - error: the server could not answer (busy, starting, offline), so the generated example with its day, and a retry.
 */
export type ExampleView =
  | { state: "loading" }
  | { state: "live" | "unavailable"; example: ExampleValuation }
  | { state: "error"; example: ExampleValuation; message: string; retry: () => void };

/** The example the screens show: the server's live answer (see the file's comment). */
export function useExampleValuation(): ExampleView {
  const query = useQuery<ExampleValuation | null>({ queryKey: [EXAMPLE_URL], staleTime: EXAMPLE_STALE_MS });
  // The generated example, fetched only once the live one has failed.
  const fallback = useQuery({
    queryKey: ["generated-example"],
    queryFn: async () => (await import("./generated-example")).GENERATED_EXAMPLE,
    enabled: query.isError,
    staleTime: Infinity,
  });
  if (query.data) return { state: "live", example: query.data };
  if (query.isError && fallback.data) {
    const err = query.error;
    if (err instanceof ApiError && err.status === 404 && err.body?.code === EXAMPLE_UNAVAILABLE) {
      return { state: "unavailable", example: fallback.data };
    }
    return {
      state: "error",
      example: fallback.data,
      message: errorMessage(err, "the server did not answer"),
      retry: () => void query.refetch(),
    };
  }
  return { state: "loading" };
}

/** The whole answer of GET /api/v1/property/valuation ({ data }), pretty-printed, as the code samples show it. */
export function exampleResponseJson(example: ExampleValuation): string {
  return JSON.stringify(example.response, null, 2);
}

function comparablesCut(example: ExampleValuation): string {
  const { kept, returned } = example.comparables;
  return kept < returned ? `, showing ${kept} of its ${returned} comparable sales` : "";
}

/** One line under an example: where the numbers come from, what was cut, and what meta means. */
export function exampleNote(view: Exclude<ExampleView, { state: "loading" }>): string {
  const { example } = view;
  const cut = comparablesCut(example);
  switch (view.state) {
    case "live":
      return (
        `This server's own answer today (sales up to ${example.market.day})${cut}: a lookup of this address returns ` +
        `the same numbers. meta shows what a real call carries (1 credit used); this example costs nothing.`
      );
    case "unavailable":
      return (
        `The answer on the demo market of ${example.market.day}${cut}. This server has no record of this home, so ` +
        `it cannot show its own answer.`
      );
    case "error":
      return (
        `The answer on the demo market of ${example.market.day}${cut}. This server's own answer could not be ` +
        `loaded (${view.message}); a lookup here today may return other numbers.`
      );
  }
}
