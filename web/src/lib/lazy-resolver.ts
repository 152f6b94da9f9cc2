import type { FieldValues, Resolver } from "react-hook-form";

/** A react-hook-form resolver whose code loads on first use; `preload` starts loading it sooner. */
export interface LazyResolver<T extends FieldValues> extends Resolver<T> {
  preload: () => void;
}

/**
 * A resolver that loads the real one (a zod schema's, with zod) when the form first validates, or when `preload` is
 * called, typically as the visitor moves into the form. The sign-in pages use it so that their first paint does not
 * wait for zod (about 25 KB gzip, and its start-up on the main thread): /login is a page people arrive on, and the
 * form cannot be submitted before the visitor has typed into it (issue 33). A failed load is forgotten, so the next
 * validation tries again (and the form reports the failure, as it would a failed submit).
 */
export function lazyResolver<T extends FieldValues>(load: () => Promise<Resolver<T>>): LazyResolver<T> {
  let pending: Promise<Resolver<T>> | undefined;
  const get = () =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
  const resolver: Resolver<T> = async (values, context, options) => (await get())(values, context, options);
  return Object.assign(resolver, { preload: () => void get().catch(() => undefined) });
}
