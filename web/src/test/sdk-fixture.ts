import type { SdkCatalog } from "@/lib/types";

// GET /api/sdks as a server at https://valuator.example.com answers it (internal/server/sdks.go).
const base = "https://valuator.example.com";
export const SDK_CATALOG: SdkCatalog = {
  go: {
    module: "valuator.dev/sdk/go",
    version: "v1.0.0",
    goproxy: `${base}/goproxy`,
    install: `GOPROXY=${base}/goproxy,https://proxy.golang.org GONOSUMDB=valuator.dev/sdk/go go get valuator.dev/sdk/go@v1.0.0`,
  },
  typescript: {
    package: "@valuator/sdk",
    version: "1.0.0",
    tarball: `${base}/sdk/npm/valuator-sdk-1.0.0.tgz`,
    install: `npm install ${base}/sdk/npm/valuator-sdk-1.0.0.tgz`,
  },
  python: {
    package: "valuator",
    version: "1.0.0",
    index: `${base}/pypi/simple/valuator/`,
    install: `pip install --index-url ${base}/pypi/simple/ valuator==1.0.0`,
  },
};
