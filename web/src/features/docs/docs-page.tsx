import { useMemo, useRef } from "react";
import { useQuery } from "@tanstack/react-query";
import SwaggerUI from "swagger-ui-react";
import "swagger-ui-react/swagger-ui.css";
import "./docs-page.css";
import { BackToHomeLink, BrandLink } from "@/components/public-layout";
import { SdkInstall } from "@/components/sdk-install";
import { useExampleValuation } from "@/lib/example-valuation";
import { withLiveExample } from "./live-example";
import { accessibleSwaggerPlugin, useAccessibleSwagger } from "./swagger-a11y";

// API documentation (/docs): the interactive viewer, fed from the server's own contract at GET /api/openapi.json,
// with the example valuation made this server's own answer (live-example.ts), as every other screen shows it, and
// the install lines of the client libraries this server hosts (GET /api/sdks) above it.
// swagger-ui is bundled into this lazily loaded chunk (never fetched from a CDN) so the page works offline and
// under the server's strict Content-Security-Policy. swagger-ui's own accessibility gaps are closed by
// swagger-a11y.tsx (a plugin, and names it leaves out) and docs-page.css (its colours, to WCAG AA contrast).

const PLUGINS = [accessibleSwaggerPlugin];

const OPENAPI_URL = "/api/openapi.json";

export default function DocsPage() {
  const contract = useQuery<Record<string, unknown> | null>({ queryKey: [OPENAPI_URL] });
  const view = useExampleValuation();
  const viewer = useRef<HTMLDivElement>(null);
  useAccessibleSwagger(viewer);
  const ready = view.state === "loading" ? null : view;
  // The spec handed to swagger-ui changes only when the contract or the example does (swagger-ui parses it anew);
  // `ready` is a new object every render, so the memo keys on its parts.
  const readyState = ready?.state;
  const readyExample = ready?.example;
  const spec = useMemo(
    () => (contract.data && ready ? withLiveExample(contract.data, ready) : null),
    [contract.data, readyState, readyExample],
  );
  return (
    <div className="min-h-screen bg-background">
      <header className="border-b bg-background">
        <div className="mx-auto flex h-14 max-w-[1460px] items-center justify-between gap-4 px-4 sm:px-6">
          <div className="flex items-center gap-3">
            <BrandLink className="text-base" />
            <span className="hidden text-sm text-muted-foreground sm:inline">API Documentation</span>
          </div>
          <BackToHomeLink />
        </div>
      </header>
      <main id="main-content" tabIndex={-1} className="mx-auto max-w-[1460px] pb-16 focus:outline-none">
        <h1 className="sr-only">Valuator API documentation</h1>
        <p className="mx-4 mt-6 rounded-lg border bg-muted/40 px-4 py-3 text-sm text-muted-foreground sm:mx-6">
          Click <strong className="text-foreground">Authorize</strong> to enter your API key or session token once;
          it is remembered in this browser. Calls you try here are real and may use credits.
        </p>
        <SdkInstall className="mx-4 mt-6 sm:mx-6" />
        <div className="valuator-swagger" ref={viewer}>
          {contract.isError ? (
            // The contract could not be read here: swagger-ui fetches it itself and says what went wrong.
            <SwaggerUI
              url={OPENAPI_URL}
              filter={true}
              tryItOutEnabled={true}
              persistAuthorization={true}
              plugins={PLUGINS}
            />
          ) : spec ? (
            <SwaggerUI
              spec={spec}
              filter={true}
              tryItOutEnabled={true}
              persistAuthorization={true}
              deepLinking={true}
              displayRequestDuration={true}
              docExpansion="list"
              defaultModelsExpandDepth={0}
              plugins={PLUGINS}
            />
          ) : (
            <div
              data-testid="docs-loading"
              role="status"
              aria-label="Loading the API reference"
              className="mx-4 mt-6 animate-pulse space-y-3 sm:mx-6"
            >
              <div className="h-8 w-1/3 rounded bg-muted" />
              <div className="h-4 w-2/3 rounded bg-muted" />
              <div className="h-12 rounded bg-muted" />
              <div className="h-12 rounded bg-muted" />
              <div className="h-12 rounded bg-muted" />
            </div>
          )}
        </div>
      </main>
    </div>
  );
}
