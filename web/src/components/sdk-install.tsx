import { CodeBlock } from "@/components/code-block";
import { useSdks } from "@/lib/sdks";
import { cn } from "@/lib/utils";

/**
 * The three install lines of the client libraries, as this server gives them (GET /api/sdks): a Go module through
 * the server's own module proxy, an npm tarball and a Python index, so a customer installs the SDK from this
 * installation without any public registry. Shown on the API Keys screen and at /docs.
 */
export function SdkInstall({ className }: { className?: string }) {
  const sdks = useSdks();
  return (
    <section data-testid="sdk-install" aria-labelledby="sdk-install-title" className={cn("space-y-3", className)}>
      <div className="space-y-1">
        <h2 id="sdk-install-title" className="text-xl font-semibold tracking-tight">
          Client libraries
        </h2>
        <p className="text-sm text-muted-foreground">
          Typed clients for Go, TypeScript and Python, installed straight from this server: they send your key, retry a
          429 after its wait and turn every error into one type.
        </p>
      </div>
      {sdks.isPending ? (
        <div role="status" aria-label="Loading the client libraries" className="h-24 animate-pulse rounded-lg bg-muted" />
      ) : sdks.isError ? (
        <p data-testid="sdk-install-unavailable" className="text-sm text-muted-foreground">
          This server was built without its client libraries, so it cannot hand them out (a build with{" "}
          <code className="font-mono text-xs">make build</code> includes them).
        </p>
      ) : (
        <div className="grid gap-4 xl:grid-cols-3 xl:items-start">
          <CodeBlock title={`Go · ${sdks.data.go.module} ${sdks.data.go.version}`} code={sdks.data.go.install} />
          <CodeBlock
            title={`TypeScript · ${sdks.data.typescript.package} ${sdks.data.typescript.version}`}
            code={sdks.data.typescript.install}
          />
          {sdks.data.python ? (
            <CodeBlock
              title={`Python · ${sdks.data.python.package} ${sdks.data.python.version}`}
              code={sdks.data.python.install}
            />
          ) : (
            <p data-testid="sdk-install-no-python" className="text-sm text-muted-foreground">
              The Python client is not in this build of the server.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
