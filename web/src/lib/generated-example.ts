// The example `make examples` generates on the demo market of its day (web/src/generated/example-valuation.json): the
// fallback of useExampleValuation (example-valuation.ts), loaded only when the server cannot give its own, and the
// tests' realistic fixture.
import generated from "@/generated/example-valuation.json";
import type { ExampleValuation, PropertyValuation } from "./types";

/**
 * The generated example, with its day (`market.day`). JSON imports type their strings as string, not as the
 * contract's enums, hence the cast; the Go test validates the file against the contract instead.
 */
export const GENERATED_EXAMPLE = generated as unknown as ExampleValuation;
/** The generated example's valuation (tests use it as a realistic fixture). */
export const GENERATED_VALUATION: PropertyValuation = GENERATED_EXAMPLE.response.data;
