import { useState } from "react";
import { Link } from "react-router";
import type { UseFormSetError } from "react-hook-form";
import { PageHeader } from "@/app/shell/page-header";
import { Card, CardContent } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { ApiError, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { insufficientCredits, isNotFound, useFindPerson } from "./api/person-lookup-api";
import { PERSON_FIELDS, PersonForm, type PersonInput, type PersonValues } from "./components/person-form";
import { PersonNotFound } from "./components/person-not-found";
import { PersonResult } from "./components/person-result";
import type { FindPersonRequest, FindPersonResponse } from "./person-types";

// The Person Lookup screen (working-screens spec, section 2): the name and address form with its permissible
// purpose, then the six result cards. A miss is a free, in-page "not found"; only a hit costs 5 credits.

const LOOKUP_FALLBACK = "Failed to find person";
const NOT_FOUND_FALLBACK = "No person found for this name and address";

type View =
  | { kind: "empty" }
  | { kind: "result"; response: FindPersonResponse }
  | { kind: "not-found"; query: string; message: string };

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

export function PersonLookupPage() {
  const { refreshUser } = useAuth();
  const lookup = useFindPerson();
  const [view, setView] = useState<View>({ kind: "empty" });
  const [pendingQuery, setPendingQuery] = useState("");

  const onSubmit = (values: PersonValues, setError: UseFormSetError<PersonInput>) => {
    setPendingQuery(describeQuery(values));
    lookup.mutate(toRequest(values), {
      onSuccess: (response) => {
        setView({ kind: "result", response });
        toast({ title: "Person Found", description: response.data.name });
        // A hit used 5 credits: the header's balance must show it.
        void refreshUser();
      },
      onError: (err) => {
        const credits = insufficientCredits(err);
        if (credits) {
          // The header may show an older balance than the server's: bring it up to date.
          void refreshUser();
          toast({
            variant: "destructive",
            title: "Insufficient Credits",
            description: (
              <span data-testid="insufficient-credits">
                {credits.balance !== null
                  ? `Your balance is ${credits.balance} ${credits.balance === 1 ? "credit" : "credits"} and a person lookup costs ${credits.creditsRequired}. `
                  : `${errorMessage(err, LOOKUP_FALLBACK)} `}
                <Link to="/billing" className="font-semibold underline underline-offset-2">
                  Add credits on Billing &amp; Credits
                </Link>
              </span>
            ),
          });
          return;
        }
        if (isNotFound(err)) {
          setView({ kind: "not-found", query: describeQuery(values), message: errorMessage(err, NOT_FOUND_FALLBACK) });
          toast({ title: "No Match", description: `${errorMessage(err, NOT_FOUND_FALLBACK)}. No credits were used.` });
          return;
        }
        applyFieldErrors(err, setError);
        toast({ variant: "destructive", title: "Search Failed", description: errorMessage(err, LOOKUP_FALLBACK) });
      },
    });
  };

  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader title="Person Lookup" subtitle="Find a person's contact details and addresses by name and location" />
      <div className="space-y-6">
        <PersonForm pending={lookup.isPending} onSubmit={onSubmit} />

        <section aria-label="Person result" aria-busy={lookup.isPending}>
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
          ) : null}
        </section>
      </div>
    </div>
  );
}
