import { useRef, useState } from "react";
import type { UseFormSetError } from "react-hook-form";
import { PageHeader } from "@/app/shell/page-header";
import { Card, CardContent } from "@/components/ui/card";
import { ExampleNote } from "@/components/example-response";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { useFocusResult } from "@/components/ui/use-focus-result";
import { toastInsufficientCredits } from "@/components/insufficient-credits";
import { ApiError, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import type { PropertyLookupRequest, PropertyValuation } from "@/lib/types";
import {
  EMPTY_REPORT_MESSAGE,
  isAreaNotCovered,
  isEmptyReport,
  isNotFound,
  isOutsideRecords,
  isTooUncertain,
  useDownloadReport,
  useLookupProperty,
} from "./api/property-lookup-api";
import { LOOKUP_FIELDS, LookupForm, type LookupInput, type LookupValues } from "./components/lookup-form";
import { NotFoundState } from "./components/not-found-state";
import { TooUncertainState } from "./components/too-uncertain-state";
import { PromoBanners } from "./components/promo-banners";
import { ValuationCard } from "./components/valuation-card";
import { AddToPortfolioDialog } from "@/features/portfolios/components/add-to-portfolio-dialog";
import { sampleNote, useSampleValuation } from "./sample-valuation";
import type { ExampleView } from "@/lib/example-valuation";
import { saveTextFile } from "@/lib/csv";
import { buildReportPayload, readableFacts, reportFileName } from "./valuation-helpers";

// The Property Lookup screen (working-screens spec, section 2; also /dashboard): the address form, a sample result
// until the first search, then the valuation with its comparables and price history, the CSV report, and the two
// promo banners.

const LOOKUP_FALLBACK = "Failed to get property valuation";
const DOWNLOAD_FAILED = "Failed to download report. Please try again.";

type View =
  | { kind: "sample" }
  | { kind: "result"; result: PropertyValuation; request: PropertyLookupRequest }
  | { kind: "not-found"; address: string; message: string; needsDetails: boolean; areaNotCovered: boolean }
  | { kind: "too-uncertain"; address: string; message: string; outsideRecords: boolean };

/**
 * Puts the messages of a 400 (the bad fields) or of a 404 (the facts a home not on record needs) on the form's
 * fields, `fields` else `field`; returns whether any was placed.
 */
function applyFieldErrors(err: unknown, setError: UseFormSetError<LookupInput>): boolean {
  // 400: a bad field; 404: a missing fact; 422: a fact outside the records (outside_records).
  if (!(err instanceof ApiError) || ![400, 404, 422].includes(err.status) || !err.body) return false;
  const messages: Record<string, string> = { ...(err.body.fields ?? {}) };
  if (err.body.field && !messages[err.body.field]) messages[err.body.field] = err.body.error;
  let placed = false;
  for (const name of LOOKUP_FIELDS) {
    const message = messages[name];
    if (!message) continue;
    setError(name, { type: "server", message }, { shouldFocus: !placed });
    placed = true;
  }
  return placed;
}

function oneLine(v: LookupValues): string {
  return `${v.address}, ${v.city}, ${v.state} ${v.zip}`;
}

/** Whether a 404 asks for the details of a home that is not on record (it names them in `fields`). */
function needsDetails(err: unknown): boolean {
  const fields = err instanceof ApiError ? err.body?.fields : undefined;
  return !!fields && ("propertyType" in fields || "squareFeet" in fields);
}

export function PropertyLookupPage() {
  const { refreshUser } = useAuth();
  const lookup = useLookupProperty();
  const download = useDownloadReport();
  const [view, setView] = useState<View>({ kind: "sample" });
  const [pendingAddress, setPendingAddress] = useState("");
  const [adding, setAdding] = useState(false);
  const sample = useSampleValuation();
  // Each outcome shown in the result area (a valuation, not found, too uncertain) takes focus to its heading, so a
  // screen reader announces it; the submit button keeps focus while the lookup runs.
  const resultArea = useRef<HTMLElement>(null);
  const [arrival, setArrival] = useState(0);
  const announce = () => setArrival((n) => n + 1);
  useFocusResult(resultArea, arrival, !lookup.isPending);

  const onSubmit = (values: LookupValues, setError: UseFormSetError<LookupInput>) => {
    const body: PropertyLookupRequest = {
      address: values.address,
      city: values.city,
      state: values.state,
      zip: values.zip,
    };
    // The details are sent only when given: a home not on record is valued from them alone.
    if (values.propertyType) body.propertyType = values.propertyType;
    if (values.squareFeet !== undefined) body.squareFeet = values.squareFeet;
    setPendingAddress(oneLine(values));
    lookup.mutate(body, {
      onSuccess: (result) => {
        setView({ kind: "result", result, request: body });
        announce();
        // The lookup used a credit: the header's balance must show it.
        void refreshUser();
      },
      onError: (err) => {
        if (
          toastInsufficientCredits(err, { costs: "a valuation costs", price: 1, fallback: LOOKUP_FALLBACK, refreshUser })
        )
          return;
        const message = readableFacts(errorMessage(err, LOOKUP_FALLBACK));
        const shown = isNotFound(err) || isTooUncertain(err);
        if (isNotFound(err)) {
          setView({
            kind: "not-found",
            address: oneLine(values),
            message,
            needsDetails: needsDetails(err),
            areaNotCovered: isAreaNotCovered(err),
          });
        } else if (isTooUncertain(err)) {
          setView({ kind: "too-uncertain", address: oneLine(values), message, outsideRecords: isOutsideRecords(err) });
        }
        // A field the answer faults takes focus (its message is read with it); else the outcome shown takes it.
        // Any other failure is the toast's to say (a live region), and focus stays on the submit button.
        if (!applyFieldErrors(err, setError) && shown) announce();
        toast({ variant: "destructive", title: "Lookup Failed", description: message });
      },
    });
  };

  const onDownload = (result: PropertyValuation) => {
    download.mutate(buildReportPayload(result), {
      onSuccess: (csv) => {
        const fileName = reportFileName(Date.now());
        try {
          saveTextFile(csv, fileName);
        } catch {
          toast({ variant: "destructive", title: "Download Failed", description: DOWNLOAD_FAILED });
          return;
        }
        toast({ title: "Report Downloaded", description: `Saved as ${fileName}` });
      },
      onError: (err) => {
        toast({
          variant: "destructive",
          title: "Download Failed",
          description: isEmptyReport(err) ? EMPTY_REPORT_MESSAGE : DOWNLOAD_FAILED,
        });
      },
    });
  };

  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader
        title="Property Lookup"
        subtitle="Value a home by address in the markets loaded in this installation: estimate, 80% range, calibrated confidence, comparables and sales history"
      />
      <div className="space-y-6">
        <LookupForm pending={lookup.isPending} onSubmit={onSubmit} />

        <section ref={resultArea} aria-label="Valuation result" aria-busy={lookup.isPending}>
          {lookup.isPending ? (
            <Card data-testid="lookup-pending">
              <CardContent className="flex flex-col items-center gap-3 py-16 text-center">
                <Spinner label="Valuing the property" />
                <p className="text-sm text-muted-foreground">
                  Valuing <span className="font-medium text-foreground">{pendingAddress}</span>...
                </p>
              </CardContent>
            </Card>
          ) : view.kind === "result" ? (
            <>
              <ValuationCard
                result={view.result}
                onDownload={() => onDownload(view.result)}
                downloading={download.isPending}
                onAddToPortfolio={() => setAdding(true)}
              />
              <AddToPortfolioDialog
                open={adding}
                onClose={() => setAdding(false)}
                home={view.request}
                formattedAddress={view.result.property.formattedAddress}
              />
            </>
          ) : view.kind === "not-found" ? (
            <NotFoundState
              address={view.address}
              message={view.message}
              needsDetails={view.needsDetails}
              areaNotCovered={view.areaNotCovered}
            />
          ) : view.kind === "too-uncertain" ? (
            <TooUncertainState address={view.address} message={view.message} outsideRecords={view.outsideRecords} />
          ) : (
            <SampleResult view={sample} />
          )}
        </section>

        <PromoBanners />
      </div>
    </div>
  );
}

/**
 * The sample result: this server's answer for the example home (a skeleton while it loads, never numbers that may
 * not be this server's), with the line that says whose answer it is.
 */
function SampleResult({ view }: { view: ExampleView }) {
  if (view.state === "loading") {
    return (
      <Card data-testid="sample-loading" aria-busy="true" className="overflow-hidden border-dashed">
        <div className="grid animate-pulse md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]" aria-hidden="true">
          <div className="aspect-[16/10] bg-muted md:aspect-auto md:min-h-72" />
          <div className="space-y-4 p-6">
            <div className="h-5 w-28 rounded bg-muted" />
            <div className="h-7 w-3/4 rounded bg-muted" />
            <div className="h-10 w-1/2 rounded bg-muted" />
            <div className="h-4 w-2/3 rounded bg-muted" />
            <div className="h-4 w-1/2 rounded bg-muted" />
          </div>
        </div>
        <span role="status" className="sr-only">
          Loading the sample result
        </span>
      </Card>
    );
  }
  return (
    <div className="space-y-2">
      <ExampleNote view={view} testId="sample-note" note={sampleNote(view)} />
      <ValuationCard result={view.example.response.data} sample />
    </div>
  );
}
