// The sample result shown before any search (spec, "Property Lookup": "A sample result is shown before any
// search"): the product's example valuation, which is this server's own answer for the example home today
// (lib/example-valuation.ts, GET /api/example), so a first-time user sees every part of a result before spending a
// credit, and a lookup of that address then shows the same numbers. The screen labels it "Sample result" wherever
// it is shown, and says where its numbers come from.
import { EXAMPLE_ADDRESS_LINE, type ExampleView } from "@/lib/example-valuation";

export { useExampleValuation as useSampleValuation } from "@/lib/example-valuation";

/** The line above the sample: whose answer it is, and whether a lookup here returns the same numbers. */
export function sampleNote(view: Exclude<ExampleView, { state: "loading" }>): string {
  const day = view.example.market.day;
  switch (view.state) {
    case "live":
      return `The sample is this server's answer today for ${EXAMPLE_ADDRESS_LINE}: look it up and you get these numbers.`;
    case "unavailable":
      return `The sample is the answer on the demo market of ${day}: this server has no record of ${EXAMPLE_ADDRESS_LINE}.`;
    case "error":
      return (
        `The sample is the answer on the demo market of ${day}: this server's own answer could not be loaded ` +
        `(${view.message}), and a lookup here today may return other numbers.`
      );
  }
}
