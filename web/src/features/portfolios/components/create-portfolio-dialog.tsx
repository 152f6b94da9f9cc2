import { useEffect, useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PendingButton } from "@/components/ui/pending-button";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/use-toast";
import { toastInsufficientCredits } from "@/components/insufficient-credits";
import { ApiError, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { HOME_COST, useCreatePortfolio, type HomeInput, type PortfolioCreated, type SheetForPortfolio } from "../api/portfolios-api";
import { plural } from "@/lib/format";
import { addedCount, checkThreshold, creditsText, formFieldErrors, homesText, rowFailures, type RowFailure } from "../portfolios-helpers";
import { RowFailures } from "./row-failures";

const CREATE_FAILED = "Could not create the portfolio";

interface CreatePortfolioDialogProps {
  open: boolean;
  onClose: () => void;
  /** The homes of a batch job's valued rows (the portfolio is made of them); null to ask for a first address. */
  jobHomes: HomeInput[] | null;
  /** The job the homes come from, for the dialog's words; null when none. */
  jobId: number | null;
  /** The job's homes are still loading, or failed to. */
  jobLoading?: boolean;
  jobError?: unknown;
  /** A spreadsheet read by Batch Upload's preview, with its mapping: its rows are the homes. */
  sheet?: SheetForPortfolio | null;
}

/**
 * Creates a portfolio: its name, an alert threshold (%), a webhook, and its homes: a batch job's valued rows, a
 * spreadsheet's rows (read by the server through the batch reader with the confirmed mapping), or a first address
 * typed here. The button says what it costs (1 credit a home valued). A 400 naming a field shows at
 * that field, a 402 says the balance and the way to Billing, and homes the engine could not value are listed before
 * going on to the new portfolio.
 */
export function CreatePortfolioDialog({ open, onClose, jobHomes, jobId, jobLoading, jobError, sheet = null }: CreatePortfolioDialogProps) {
  const create = useCreatePortfolio();
  const navigate = useNavigate();
  const { refreshUser } = useAuth();
  const [name, setName] = useState("");
  const [threshold, setThreshold] = useState("5");
  const [webhook, setWebhook] = useState("");
  const [home, setHome] = useState<HomeInput>({ address: "", city: "", state: "", zip: "" });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [done, setDone] = useState<{ created: PortfolioCreated; failures: RowFailure[] } | null>(null);

  useEffect(() => {
    if (open) {
      setErrors({});
      setDone(null);
      create.reset();
    }
    // Only when it opens.
  }, [open]);

  const fromJob = jobHomes !== null;
  const homes: HomeInput[] = fromJob ? jobHomes : sheet || !home.address.trim() ? [] : [home];
  const cost = (sheet ? (sheet.rowCount ?? 0) : homes.length) * HOME_COST;
  // A spreadsheet's rows are counted before the server reads their addresses: up to one credit each.
  const costText = !sheet ? creditsText(cost) : sheet.rowCount === null ? `${creditsText(HOME_COST)} a home` : `up to ${creditsText(cost)}`;

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (create.isPending) return;
    const next: Record<string, string> = {};
    if (!name.trim()) next.name = "Portfolio name is required";
    const t = threshold.trim() === "" ? null : Number(threshold);
    const badThreshold = checkThreshold(t);
    if (badThreshold) next.alertThreshold = badThreshold;
    if (!fromJob && !sheet && !home.address.trim()) next.address = "Address is required";
    if (fromJob && homes.length === 0) next.homes = "This job has no valued homes to add";
    setErrors(next);
    if (Object.keys(next).length > 0) {
      document.getElementById(`portfolio-${Object.keys(next)[0]}`)?.focus();
      return;
    }
    const body = {
      name: name.trim(),
      alertThreshold: t,
      webhookUrl: webhook.trim() || null,
      ...(sheet
        ? { uploadId: sheet.uploadId, mapping: sheet.mapping }
        : { properties: homes.map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== "")) as HomeInput) }),
    };
    create.mutate(body, {
      onSuccess: (created) => {
        void refreshUser();
        const failures = rowFailures(created.results, homes);
        const { added, credits } = addedCount(created.results);
        toast({ title: "Portfolio Created", description: `${created.name}: ${homesText(added)} added for ${creditsText(credits)}.` });
        if (failures.length === 0) {
          onClose();
          navigate(`/portfolios/${created.id}`);
        } else {
          setDone({ created, failures });
        }
      },
      onError: (err) => {
        if (toastInsufficientCredits(err, { costs: "this portfolio costs", price: cost, fallback: CREATE_FAILED, refreshUser })) return;
        if (err instanceof ApiError && err.status === 400 && err.body) {
          const fields = formFieldErrors({ ...(err.body.fields ?? {}), ...(err.body.field ? { [err.body.field]: err.body.error } : {}) });
          if (sheet && (err.body.field === "uploadId" || err.body.field === "mapping")) {
            // The file, not a field of the form: a fact that is not a number (its line named), or no address.
            setErrors({ homes: err.body.error });
            return;
          }
          const known = Object.keys(fields).filter((k) => ["name", "alertThreshold", "webhookUrl", "address", "city", "state", "zip"].includes(k));
          if (known.length > 0) {
            setErrors(fields);
            document.getElementById(`portfolio-${known[0]}`)?.focus();
            return;
          }
        }
        toast({ variant: "destructive", title: CREATE_FAILED, description: errorMessage(err, CREATE_FAILED) });
      },
    });
  };

  return (
    <Dialog open={open} onOpenChange={(o) => !o && !create.isPending && onClose()}>
      <DialogContent data-testid="create-portfolio-dialog">
        {done ? (
          <>
            <DialogHeader>
              <DialogTitle>Portfolio created</DialogTitle>
              <DialogDescription>
                {`${done.created.name} holds ${homesText(done.created.homeCount)}. ${done.failures.length === 1 ? "One property was" : `${done.failures.length} properties were`} not added, and not charged:`}
              </DialogDescription>
            </DialogHeader>
            <RowFailures failures={done.failures} />
            <DialogFooter>
              <Button
                type="button"
                onClick={() => {
                  onClose();
                  navigate(`/portfolios/${done.created.id}`);
                }}
              >
                Open the portfolio
              </Button>
            </DialogFooter>
          </>
        ) : (
          <>
            <DialogHeader>
              <DialogTitle>
                {sheet ? "Create portfolio from a spreadsheet" : fromJob || jobId !== null ? "Create portfolio from batch results" : "New portfolio"}
              </DialogTitle>
              <DialogDescription>
                {sheet
                  ? `${sheet.rowCount === null ? "The rows" : `The ${sheet.rowCount.toLocaleString("en-US")} ${plural(sheet.rowCount, "row", "rows")}`} of ${sheet.fileName}, read with ${sheet.mapping ? "the mapping you confirmed" : "the columns as detected"}. Each home is valued now and every month after, 1 credit a home.`
                  : fromJob
                  ? `The ${homesText(homes.length)} valued by batch job #${jobId}. Each is valued now and every month after, 1 credit a home.`
                  : jobId !== null
                    ? `The homes valued by batch job #${jobId}.`
                    : "Each home is valued now and every month after, 1 credit a home. Add more homes once it is made."}
              </DialogDescription>
            </DialogHeader>
            {jobLoading ? (
              <div className="flex justify-center py-6">
                <Spinner label="Loading the job's homes" />
              </div>
            ) : jobError ? (
              <p role="alert" className="text-sm font-medium text-destructive">
                {errorMessage(jobError, "Could not read the batch job's results")}
              </p>
            ) : (
              <form noValidate onSubmit={submit} className="space-y-4" aria-label="New portfolio">
                <Field id="portfolio-name" label="Name" error={errors.name} example="Seattle rentals">
                  <Input
                    maxLength={100}
                    value={name}
                    onChange={(e) => setName(e.target.value)}
                    {...fieldA11y("portfolio-name", errors.name, true)}
                  />
                </Field>
                <div className="grid gap-4 sm:grid-cols-2">
                  <AlertFields idPrefix="portfolio" threshold={threshold} onThreshold={setThreshold} webhook={webhook} onWebhook={setWebhook} errors={errors} />
                </div>
                {fromJob || sheet ? (
                  errors.homes ? (
                    <p role="alert" className="text-sm font-medium text-destructive">
                      {errors.homes}
                    </p>
                  ) : null
                ) : (
                  <fieldset className="space-y-3 rounded-md border border-dashed p-4">
                    <legend className="px-1 text-sm font-medium">First home</legend>
                    <HomeFields idPrefix="portfolio" home={home} onChange={setHome} errors={errors} />
                  </fieldset>
                )}
                <DialogFooter>
                  <Button type="button" variant="outline" onClick={onClose} disabled={create.isPending}>
                    Cancel
                  </Button>
                  <PendingButton type="submit" pending={create.isPending}>
                    {create.isPending ? "Creating..." : `Create (${costText})`}
                  </PendingButton>
                </DialogFooter>
              </form>
            )}
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}

interface HomeFieldsProps {
  idPrefix: string;
  home: HomeInput;
  onChange: (h: HomeInput) => void;
  errors: Record<string, string>;
}

/** The lookup's address fields: the street line, city, state and ZIP. */
export function HomeFields({ idPrefix, home, onChange, errors }: HomeFieldsProps) {
  const set = (k: keyof HomeInput) => (e: React.ChangeEvent<HTMLInputElement>) => onChange({ ...home, [k]: e.target.value });
  return (
    <div className="grid gap-3 sm:grid-cols-6">
      <Field id={`${idPrefix}-address`} label="Address" error={errors.address} example="7006 Maple Rd" className="sm:col-span-6">
        <Input autoComplete="street-address" maxLength={300} value={home.address} onChange={set("address")} {...fieldA11y(`${idPrefix}-address`, errors.address, true)} />
      </Field>
      <Field id={`${idPrefix}-city`} label="City" error={errors.city} className="sm:col-span-3">
        <Input autoComplete="address-level2" maxLength={100} value={home.city ?? ""} onChange={set("city")} {...fieldA11y(`${idPrefix}-city`, errors.city)} />
      </Field>
      <Field id={`${idPrefix}-state`} label="State" error={errors.state} className="sm:col-span-1">
        <Input autoComplete="address-level1" maxLength={50} value={home.state ?? ""} onChange={set("state")} {...fieldA11y(`${idPrefix}-state`, errors.state)} />
      </Field>
      <Field id={`${idPrefix}-zip`} label="ZIP" error={errors.zip} className="sm:col-span-2">
        <Input autoComplete="postal-code" inputMode="numeric" maxLength={10} value={home.zip ?? ""} onChange={set("zip")} {...fieldA11y(`${idPrefix}-zip`, errors.zip)} />
      </Field>
    </div>
  );
}

interface AlertFieldsProps {
  idPrefix: string;
  threshold: string;
  onThreshold: (v: string) => void;
  webhook: string;
  onWebhook: (v: string) => void;
  errors: Record<string, string>;
}

/** A portfolio's alert threshold (%) and webhook fields, as creating it and its settings ask them. */
export function AlertFields({ idPrefix, threshold, onThreshold, webhook, onWebhook, errors }: AlertFieldsProps) {
  return (
    <>
      <Field
        id={`${idPrefix}-alertThreshold`}
        label="Alert threshold (%)"
        error={errors.alertThreshold}
        hint="Alert when a home moves more than this in a month; empty for no alerts"
      >
        <Input
          inputMode="decimal"
          value={threshold}
          onChange={(e) => onThreshold(e.target.value)}
          {...fieldA11y(`${idPrefix}-alertThreshold`, errors.alertThreshold)}
        />
      </Field>
      <Field id={`${idPrefix}-webhookUrl`} label="Webhook URL (optional)" error={errors.webhookUrl} hint="Alerts are posted here, signed; empty for none">
        <Input
          type="url"
          inputMode="url"
          maxLength={2000}
          value={webhook}
          onChange={(e) => onWebhook(e.target.value)}
          {...fieldA11y(`${idPrefix}-webhookUrl`, errors.webhookUrl)}
        />
      </Field>
    </>
  );
}
