import { useQuery } from "@tanstack/react-query";
import type { SdkCatalog } from "./types";

// GET /api/sdks (api/openapi.yaml, operation getSdks): the client libraries this server hosts itself and the line
// that installs each one from it, with this installation's own URLs. A binary built without them answers 503.

export const SDKS_PATH = "/api/sdks";

/** The SDKs and their install lines, read once per visit. */
export function useSdks() {
  return useQuery<SdkCatalog>({ queryKey: [SDKS_PATH] });
}
