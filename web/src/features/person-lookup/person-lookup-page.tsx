import { useRef, useState } from "react";
import { useSearchParams } from "react-router";
import type { UseFormSetError } from "react-hook-form";
import { useQueryClient } from "@tanstack/react-query";
import { ClipboardList, Clock, UserSearch } from "lucide-react";
import { PageHeader } from "@/app/shell/page-header";
import { Card, CardContent } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { toast } from "@/components/ui/use-toast";
import { useFocusResult } from "@/components/ui/use-focus-result";
import { ApiError, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { auditQueryKey } from "./api/person-audit-api";
import { isNotFound, isRateLimited, PERSON_LOOKUP_CREDITS, useFindPerson } from "./api/person-lookup-api";
import { toastInsufficientCredits } from "@/components/insufficient-credits";
import { PersonAudit } from "./components/person-audit";
import { PERSON_FIELDS, PersonForm, type PersonInput, type PersonValues } from "./components/person-form";
import { PersonNotFound } from "./components/person-not-found";
import { PersonResult } from "./components/person-result";
import type { FindPersonRequest, FindPersonResponse } from "./person-types";

// The Person Lookup screen (working-screens spec, section 2), in two tabs. Lookup: the name and address form with
// its permissible purpose, then the six result cards; a miss is a free, in-page "not found", only a hit costs 5
// credits. Lookup audit: every lookup of the account (components/person-audit.tsx). The tab is in the URL
// (?tab=audit), so the form's compliance note can link to the audit.

const LOOKUP_FALLBACK = "Failed to find person";
const NOT_FOUND_FALLBACK = "No person found for this name and address";

type View =
  | { kind: "empty" }
  | { kind: "result"; response: FindPersonResponse }
  | { kind: "not-found"; query: string; message: string }
  | { kind: "rate-limited"; message: string };

type Tab = "lookup" | "audit";

/** Puts a 400 answer's messages (`fields`, else `field`) on the form's fields; returns whether any was placed. */
function applyFieldErrors(err: unknown, setError: UseFormSetError<PersonInput>): boolean {
  if (!(err instanceof ApiError) || err.status !== 400 || !err.body) return false;
  const messages: Record<string, string> = { ...(err.body.fields ?? {}) };
  if (err.body.field && !messages[err.body.field]) messages[err.body.field] = err.body.error;
  let placed = false;
  for (const name of PERSON_FIELDS) {
    const message = messages[name];
    if (!message) continue;
    setError(name, { type: "server", message }, { shouldFocus: !placed });
    placed = true;
  }
  return placed;
}

/** The request body: optional fields are left out when blank. */
export function toRequest(v: PersonValues): FindPersonRequest {
  const body: FindPersonRequest = { name: v.name, city: v.city, state_code: v.state_code, purpose: v.purpose };
  if (v.street_line_1) body.street_line_1 = v.street_line_1;
  if (v.postal_code) body.postal_code = v.postal_code;
  return body;
}

function describeQuery(v: PersonValues): string {
  const place = [v.street_line_1, v.city, [v.state_code, v.postal_code].filter(Boolean).join(" ")]
    .filter(Boolean)
    .join(", ");
  return `${v.name}, ${place}`;
}

/** The sentence for a 429: the server's (it says when to try again), else one made from its retryAfter. */
function rateLimitMessage(err: unknown): string {
  const seconds = err instanceof ApiError ? err.body?.retryAfter : undefined;
  const fallback =
    typeof seconds === "number" && seconds > 0
      ? `Too many lookups. Try again in ${seconds} ${seconds === 1 ? "second" : "seconds"}.`
      : "Too many lookups. Try again in a minute.";
  return errorMessage(err, fallback);
}

export function PersonLookupPage() {
  const { refreshUser } = useAuth();
  const queryClient = useQueryClient();
  const lookup = useFindPerson();
  const [view, setView] = useState<View>({ kind: "empty" });
  const [pendingQuery, setPendingQuery] = useState("");
  // Each outcome shown in the result area (a person, no match, slowed down) takes focus to its heading, so a screen
  // reader announces it; the submit button keeps focus while the search runs.
  const resultArea = useRef<HTMLElement>(null);
  const [arrival, setArrival] = useState(0);
  const announce = () => setArrival((n) => n + 1);
  useFocusResult(resultArea, arrival, !lookup.isPending);
  const [params, setParams] = useSearchParams();
  const tab: Tab = params.get("tab") === "audit" ? "audit" : "lookup";

  const onTabChange = (next: string) => {
    setParams(
      (prev) => {
        const p = new URLSearchParams(prev);
        if (next === "audit") p.set("tab", "audit");
        else p.delete("tab");
        return p;
      },
      { replace: true },
    );
  };

  const onSubmit = (values: PersonValues, setError: UseFormSetError<PersonInput>) => {
    setPendingQuery(describeQuery(values));
    lookup.mutate(toRequest(values), {
      // Whatever the outcome, the lookup is a new row of the audit.
      onSettled: () => void queryClient.invalidateQueries({ queryKey: auditQueryKey }),
      onSuccess: (response) => {
        setView({ kind: "result", response });
        announce();
        toast({ title: "Person Found", description: response.data.name });
        // A hit used 5 credits: the header's balance must show it.
        void refreshUser();
      },
      onError: (err) => {
        if (
          toastInsufficientCredits(err, {
            costs: "a person lookup costs",
            price: PERSON_LOOKUP_CREDITS,
            fallback: LOOKUP_FALLBACK,
            refreshUser,
          })
        )
          return;
        if (isRateLimited(err)) {
          setView({ kind: "rate-limited", message: rateLimitMessage(err) });
          announce();
          return;
        }
        if (isNotFound(err)) {
          setView({ kind: "not-found", query: describeQuery(values), message: errorMessage(err, NOT_FOUND_FALLBACK) });
          announce();
          toast({ title: "No Match", description: `${errorMessage(err, NOT_FOUND_FALLBACK)}. No credits were used.` });
          return;
        }
        // An earlier "slowed down" notice no longer holds once the server answers something else.
        setView((v) => (v.kind === "rate-limited" ? { kind: "empty" } : v));
        applyFieldErrors(err, setError);
        toast({ variant: "destructive", title: "Search Failed", description: errorMessage(err, LOOKUP_FALLBACK) });
      },
    });
  };

  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader title="Person Lookup" subtitle="Find a person's contact details and addresses by name and location" />
      <Tabs value={tab} onValueChange={onTabChange}>
        <TabsList aria-label="Person Lookup" className="w-full sm:w-auto">
          <TabsTrigger value="lookup" className="flex-1 sm:flex-none">
            <UserSearch aria-hidden="true" />
            Lookup
          </TabsTrigger>
          <TabsTrigger value="audit" className="flex-1 sm:flex-none">
            <ClipboardList aria-hidden="true" />
            Lookup audit
          </TabsTrigger>
        </TabsList>

        {/* Kept mounted while the audit shows, so the form and the result are still there on the way back. */}
        <TabsContent value="lookup" forceMount className="space-y-6 data-[state=inactive]:hidden">
          <PersonForm pending={lookup.isPending} onSubmit={onSubmit} />

          <section ref={resultArea} aria-label="Person result" aria-busy={lookup.isPending}>
            {lookup.isPending ? (
              <Card data-testid="person-pending">
                <CardContent className="flex flex-col items-center gap-3 py-16 text-center">
                  <Spinner label="Searching for the person" />
                  <p className="break-words text-sm text-muted-foreground">
                    Searching for <span className="font-medium text-foreground">{pendingQuery}</span>...
                  </p>
                </CardContent>
              </Card>
            ) : view.kind === "result" ? (
              <PersonResult result={view.response.data} meta={view.response.meta} />
            ) : view.kind === "not-found" ? (
              <PersonNotFound query={view.query} message={view.message} />
            ) : view.kind === "rate-limited" ? (
              <Card data-testid="person-rate-limited" className="border-amber-300">
                <CardContent className="flex items-start gap-3 py-6" role="alert">
                  <Clock className="mt-0.5 h-5 w-5 shrink-0 text-amber-700" aria-hidden="true" />
                  <div className="min-w-0 space-y-1">
                    <h2 className="font-semibold">Slowed down</h2>
                    <p className="break-words text-sm">{view.message}</p>
                    <p className="text-sm text-muted-foreground">No credits were used.</p>
                  </div>
                </CardContent>
              </Card>
            ) : null}
          </section>
        </TabsContent>

        <TabsContent value="audit">
          <PersonAudit />
        </TabsContent>
      </Tabs>
    </div>
  );
}
