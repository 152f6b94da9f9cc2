import { afterEach, describe, expect, it, vi } from "vitest";
import type { ReactNode } from "react";
import { act, renderHook, waitFor } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { createQueryClient } from "./query-client";
import {
  EXAMPLE_STALE_MS,
  EXAMPLE_REQUEST,
  EXAMPLE_URL,
  exampleNote,
  exampleResponseJson,
  useExampleValuation,
} from "./example-valuation";
import { GENERATED_EXAMPLE } from "./generated-example";
import { EXAMPLE_UNAVAILABLE_REPLY, LIVE_EXAMPLE } from "@/test/example-fixture";
import { mockFetch, type FakeReply } from "@/test/utils";

afterEach(() => {
  vi.unstubAllGlobals();
});

function renderExample() {
  const client = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  return { client, ...renderHook(() => useExampleValuation(), { wrapper }) };
}

describe("EXAMPLE_REQUEST", () => {
  it("is the address the generated example values (make examples writes it from internal/examples/example.Home)", () => {
    expect(EXAMPLE_REQUEST).toEqual(GENERATED_EXAMPLE.request);
  });
});

describe("useExampleValuation", () => {
  it("asks the server for its own example and shows nothing until it answers", async () => {
    let answer: (r: FakeReply) => void = () => {};
    const { requests } = mockFetch({ [`GET ${EXAMPLE_URL}`]: () => new Promise<FakeReply>((r) => (answer = r)) });
    const { result } = renderExample();
    expect(result.current).toEqual({ state: "loading" });
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]).toMatchObject({ method: "GET", url: "/api/example" });

    act(() => answer({ body: LIVE_EXAMPLE }));
    await waitFor(() => expect(result.current.state).toBe("live"));
    expect(result.current).toEqual({ state: "live", example: LIVE_EXAMPLE });
  });

  it("keeps the answer for minutes, not for ever: the answer changes with the day", async () => {
    mockFetch({ [`GET ${EXAMPLE_URL}`]: { body: LIVE_EXAMPLE } });
    const { client, result } = renderExample();
    await waitFor(() => expect(result.current.state).toBe("live"));
    const query = client.getQueryCache().find({ queryKey: [EXAMPLE_URL] });
    const staleTime = (query?.options as { staleTime?: number } | undefined)?.staleTime;
    expect(staleTime).toBe(EXAMPLE_STALE_MS);
    expect(EXAMPLE_STALE_MS).toBeGreaterThanOrEqual(60_000);
    expect(EXAMPLE_STALE_MS).toBeLessThanOrEqual(60 * 60_000);
  });

  it("falls back to the generated example, with its day, when the server has no record of the home", async () => {
    mockFetch({ [`GET ${EXAMPLE_URL}`]: EXAMPLE_UNAVAILABLE_REPLY });
    const { result } = renderExample();
    await waitFor(() => expect(result.current.state).toBe("unavailable"));
    expect(result.current).toEqual({ state: "unavailable", example: GENERATED_EXAMPLE });
  });

  it("falls back to the generated example with a retry when the server cannot answer, and retries", async () => {
    let calls = 0;
    mockFetch({
      [`GET ${EXAMPLE_URL}`]: () =>
        ++calls === 1
          ? { status: 503, body: { error: "The valuation engine is starting", code: "engine_loading", requestId: "r1" } }
          : { body: LIVE_EXAMPLE },
    });
    const { result } = renderExample();
    await waitFor(() => expect(result.current.state).toBe("error"));
    const view = result.current;
    if (view.state !== "error") throw new Error("unreachable");
    expect(view.example).toBe(GENERATED_EXAMPLE);
    expect(view.message).toBe("The valuation engine is starting");
    expect(exampleNote(view)).toContain(`demo market of ${GENERATED_EXAMPLE.market.day}`);
    expect(exampleNote(view)).toContain("could not be loaded (The valuation engine is starting)");

    act(() => view.retry());
    await waitFor(() => expect(result.current.state).toBe("live"));
    expect(calls).toBe(2);
  });
});

describe("exampleNote", () => {
  it("says a live example is this server's answer today, what was cut and that meta is a real call's", () => {
    const note = exampleNote({ state: "live", example: LIVE_EXAMPLE });
    expect(note).toContain("This server's own answer today (sales up to 2027-07-13)");
    expect(note).toContain("showing 2 of its 11 comparable sales");
    expect(note).toContain("a lookup of this address returns the same numbers");
    expect(note).toContain("1 credit used");
    expect(note).not.toContain("demo market of");
  });

  it("says the fallback is the demo market's answer of its day, not this server's", () => {
    const note = exampleNote({ state: "unavailable", example: GENERATED_EXAMPLE });
    expect(note).toContain(`The answer on the demo market of ${GENERATED_EXAMPLE.market.day}`);
    expect(note).toContain("This server has no record of this home");
    expect(note).not.toContain("This server's own answer");
  });

  it("prints the answer as the API sends it", () => {
    expect(JSON.parse(exampleResponseJson(LIVE_EXAMPLE))).toEqual(LIVE_EXAMPLE.response);
  });
});
