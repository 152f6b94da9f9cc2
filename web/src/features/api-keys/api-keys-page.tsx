import { useEffect, useState } from "react";
import { KeyRound, Plus, RefreshCw } from "lucide-react";
import { PageHeader } from "@/app/shell/page-header";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { SdkInstall } from "@/components/sdk-install";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { useAuth } from "@/lib/auth";
import type { ApiKey } from "@/lib/types";
import { useApiKeys } from "./api/api-keys-api";
import { FETCH_FAILED, MAX_KEYS_PER_ACCOUNT, failureDetail } from "./api-key-helpers";
import { ApiDocs } from "./components/api-docs";
import { ApiKeysTable } from "./components/api-keys-table";
import { DeleteKeyDialog } from "./components/delete-key-dialog";
import { GenerateKeyDialog } from "./components/generate-key-dialog";

// The API Keys screen (working-screens spec, section 2): the account's keys with copy and delete, the Generate New
// Key dialog, the install lines of the client libraries this server hosts, and the built-in documentation of the
// public API.

export function ApiKeysPage() {
  const { user } = useAuth();
  const keys = useApiKeys();
  const [generateOpen, setGenerateOpen] = useState(false);
  const [toDelete, setToDelete] = useState<ApiKey | null>(null);

  // The spec's list failure is a toast; the screen also keeps the failure in place with a Retry button.
  useEffect(() => {
    if (keys.isError) toast({ variant: "destructive", title: FETCH_FAILED, description: failureDetail(keys.error) });
  }, [keys.isError, keys.error, keys.errorUpdatedAt]);

  const plan = user?.plan ?? "free";
  const list = keys.data ?? [];
  const openGenerate = () => setGenerateOpen(true);
  // The server refuses a key past the account's maximum; the screen says so before the dialog is opened.
  const atMax = list.length >= MAX_KEYS_PER_ACCOUNT;

  return (
    <div className="max-w-6xl space-y-8">
      <div>
        <PageHeader
          title="API Keys"
          subtitle="Create and manage the keys your applications use to call the API"
          action={{ label: "Generate New Key", onClick: openGenerate, icon: <Plus aria-hidden="true" />, disabled: atMax }}
        />
        {atMax ? (
          <p className="mb-4 text-sm text-muted-foreground" data-testid="api-keys-max">
            Your account has {MAX_KEYS_PER_ACCOUNT} API keys, the most it can have. Delete a key you no longer use to
            create another.
          </p>
        ) : null}
        {keys.isPending ? (
          <div className="flex justify-center rounded-md border py-12">
            <Spinner label="Loading API keys" />
          </div>
        ) : keys.isError ? (
          <Card data-testid="api-keys-error" role="alert">
            <CardContent className="flex flex-col items-center gap-3 p-8 text-center">
              <p className="font-semibold">{FETCH_FAILED}</p>
              {failureDetail(keys.error) ? (
                <p className="text-sm text-muted-foreground">{failureDetail(keys.error)}</p>
              ) : null}
              <Button type="button" variant="outline" onClick={() => void keys.refetch()} disabled={keys.isFetching}>
                <RefreshCw aria-hidden="true" className={keys.isFetching ? "animate-spin" : undefined} />
                Retry
              </Button>
            </CardContent>
          </Card>
        ) : list.length === 0 ? (
          <Card data-testid="api-keys-empty">
            <CardContent className="flex flex-col items-center gap-3 p-10 text-center">
              <KeyRound className="h-10 w-10 text-muted-foreground" aria-hidden="true" />
              <p className="text-lg font-semibold">No API keys yet</p>
              <p className="max-w-md text-sm text-muted-foreground">
                Generate a key to call the valuation API from your own software. Each key has its own name and rate
                limit, and can be deleted at any time.
              </p>
              <Button type="button" onClick={openGenerate}>
                <Plus aria-hidden="true" />
                Generate Your First Key
              </Button>
            </CardContent>
          </Card>
        ) : (
          <ApiKeysTable keys={list} onDelete={setToDelete} />
        )}
      </div>

      <SdkInstall />

      <ApiDocs baseUrl={window.location.origin} sampleKey={list[0]?.keyValue ?? null} plan={plan} />

      <GenerateKeyDialog open={generateOpen} onOpenChange={setGenerateOpen} plan={plan} />
      <DeleteKeyDialog apiKey={toDelete} onClose={() => setToDelete(null)} />
    </div>
  );
}
