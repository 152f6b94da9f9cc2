import SwaggerUI from "swagger-ui-react";
import "swagger-ui-react/swagger-ui.css";
import "./docs-page.css";
import { BackToHomeLink, BrandLink } from "@/components/public-layout";

// API documentation (/docs): the interactive viewer, fed from the server's own contract at GET /api/openapi.json.
// swagger-ui is bundled into this lazily loaded chunk (never fetched from a CDN) so the page works offline and
// under the server's strict Content-Security-Policy.

const OPENAPI_URL = "/api/openapi.json";

export default function DocsPage() {
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
      <main id="main" className="mx-auto max-w-[1460px] pb-16">
        <h1 className="sr-only">Valuator API documentation</h1>
        <p className="mx-4 mt-6 rounded-lg border bg-muted/40 px-4 py-3 text-sm text-muted-foreground sm:mx-6">
          Click <strong className="text-foreground">Authorize</strong> to enter your API key or session token once;
          it is remembered in this browser. Calls you try here are real and may use credits.
        </p>
        <div className="valuator-swagger">
          <SwaggerUI
            url={OPENAPI_URL}
            filter={true}
            tryItOutEnabled={true}
            persistAuthorization={true}
            deepLinking={true}
            displayRequestDuration={true}
            docExpansion="list"
            defaultModelsExpandDepth={0}
          />
        </div>
      </main>
    </div>
  );
}
