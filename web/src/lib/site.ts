import { useQuery } from "@tanstack/react-query";
import type { Site } from "./types";

// GET /api/site (api/openapi.yaml, operation getSite): what this installation tells the public pages, such as the
// address contact messages are emailed to (VALUATOR_SUPPORT_EMAIL). Pages name that address, never one of their
// own, so they promise only a channel that reaches someone.

export const SITE_PATH = "/api/site";

/** The site's facts, read once per visit (the query client keeps data fresh for ever). */
export function useSite() {
  return useQuery<Site>({ queryKey: [SITE_PATH] });
}
