import { describe, expect, it, vi } from "vitest";
import type { Resolver } from "react-hook-form";
import { lazyResolver } from "./lazy-resolver";

type Values = { email: string };
const ok: Resolver<Values> = async (values) => ({ values, errors: {} });
const options = { fields: {}, shouldUseNativeValidation: false } as Parameters<Resolver<Values>>[2];

describe("lazyResolver", () => {
  it("loads the resolver once, on first use or when preloaded, and validates with it", async () => {
    const load = vi.fn(async () => ok);
    const resolver = lazyResolver(load);
    expect(load).not.toHaveBeenCalled();
    resolver.preload();
    resolver.preload();
    expect(await resolver({ email: "a@b.c" }, undefined, options)).toEqual({ values: { email: "a@b.c" }, errors: {} });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("tries again after a failed load", async () => {
    const load = vi
      .fn<() => Promise<Resolver<Values>>>()
      .mockRejectedValueOnce(new TypeError("offline"))
      .mockResolvedValue(ok);
    const resolver = lazyResolver(load);
    await expect(resolver({ email: "" }, undefined, options)).rejects.toThrow("offline");
    expect(await resolver({ email: "" }, undefined, options)).toEqual({ values: { email: "" }, errors: {} });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
