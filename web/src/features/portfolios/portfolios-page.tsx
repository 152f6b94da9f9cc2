import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link, useLocation, useNavigate, useParams, useSearchParams } from "react-router";
import { AlertCircle, ArrowDown, ArrowUp, ArrowUpDown, BellRing, Download, History, Plus, Settings, Trash2 } from "lucide-react";
import { PageHeader } from "@/app/shell/page-header";
import { formatDate } from "@/features/property-lookup/valuation-helpers";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { PendingButton } from "@/components/ui/pending-button";
import { Spinner } from "@/components/ui/spinner";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import { toast } from "@/components/ui/use-toast";
import { toastInsufficientCredits } from "@/components/insufficient-credits";
import { ApiError, errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { saveBlobFile, saveTextFile } from "@/lib/csv";
import { cn } from "@/lib/utils";
import {
  HOME_COST,
  isNotFound,
  useAddHomes,
  useDeletePortfolio,
  useJobHomes,
  usePortfolio,
  usePortfolioAlerts,
  usePortfolios,
  usePortfolioTotals,
  useRemoveHomes,
  type HomeInput,
  type Portfolio,
  type PortfolioAlert,
  type PortfolioDetail,
  type PortfolioHome,
  type SheetForPortfolio,
} from "./api/portfolios-api";
import { CreatePortfolioDialog, HomeFields } from "./components/create-portfolio-dialog";
import { RowFailures } from "./components/row-failures";
import { SettingsDialog } from "./components/settings-dialog";
import { ValueChart } from "./components/value-chart";
import { WebhookSecret } from "@/features/batch-upload/components/webhook-secret";
import {
  addedCount,
  creditsText,
  dollars,
  exportFileName,
  exportRows,
  formFieldErrors,
  homesText,
  isMover,
  monthChangeText,
  monthLabel,
  movers,
  portfolioCsv,
  rowFailures,
  signedDollars,
  signedPercent,
  sortHomes,
  statusText,
  thresholdText,
  type RowFailure,
  type SortDir,
  type SortKey,
} from "./portfolios-helpers";

// The Portfolios screen (issue 40): the account's portfolios (/portfolios) and one portfolio (/portfolios/:id) with
// its totals, its value over time, its homes (the month's movers first) with add and remove, CSV and XLSX exports, and
// the alerts it has sent month by month.
// A portfolio is created here with a first address, or from a batch job's results (/portfolios?fromJob=ID, which the
// batch job's details link to).

const LOAD_FAILED = "Could not load portfolios";

/**
 * The spreadsheet of /portfolios?fromUpload=ID: Batch Upload sends its preview's mapping, name and rows in the
 * router's state; after a reload only the id is left, and the server uses the mapping it detected.
 */
function sheetFrom(param: string | null, state: unknown): SheetForPortfolio | null {
  const id = Number(param);
  if (!param || !Number.isSafeInteger(id) || id < 1) return null;
  const s = state as Partial<SheetForPortfolio> | null;
  if (s && s.uploadId === id) return s as SheetForPortfolio;
  return { uploadId: id, mapping: undefined, fileName: "the uploaded file", rowCount: null };
}

// ---- The list ----------------------------------------------------------------------------------------------------

export function PortfoliosPage() {
  const list = usePortfolios();
  const [params, setParams] = useSearchParams();
  const fromJob = Number(params.get("fromJob"));
  const jobId = Number.isSafeInteger(fromJob) && fromJob > 0 ? fromJob : null;
  const sheet = sheetFrom(params.get("fromUpload"), useLocation().state);
  const [creating, setCreating] = useState(false);
  const jobHomes = useJobHomes(jobId);
  const open = creating || jobId !== null || sheet !== null;
  const portfolios = list.data?.data ?? [];
  const totals = usePortfolioTotals(portfolios.map((p) => p.id));

  const close = () => {
    setCreating(false);
    if (jobId !== null || sheet !== null) setParams({}, { replace: true });
  };

  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader
        title="Portfolios"
        subtitle="Named lists of homes, revalued every month, with alerts when a home moves"
        action={{ label: "New Portfolio", icon: <Plus aria-hidden="true" />, onClick: () => setCreating(true) }}
      />
      <CreatePortfolioDialog
        open={open}
        onClose={close}
        jobId={jobId}
        jobHomes={jobId !== null ? (jobHomes.data ?? null) : null}
        jobLoading={jobId !== null && jobHomes.isPending}
        jobError={jobHomes.isError ? jobHomes.error : undefined}
        sheet={sheet}
      />
      {list.isPending ? (
        <div className="flex justify-center py-16">
          <Spinner label="Loading portfolios" />
        </div>
      ) : list.isError ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} />
      ) : portfolios.length === 0 ? (
        <Card data-testid="portfolios-empty" className="border-dashed">
          <CardContent className="space-y-2 py-10 text-center">
            <h2 className="text-lg font-semibold">No portfolios yet</h2>
            <p className="text-sm text-muted-foreground">
              Create one with a first address, from a property you looked up, or on Batch Upload: from a
              spreadsheet (&quot;Create Portfolio Instead&quot; once its columns are mapped) or a batch job&apos;s results
              (a job&apos;s details, &quot;Create portfolio from these results&quot;).
            </p>
          </CardContent>
        </Card>
      ) : (
        <Card>
          <CardContent className="pt-6">
            <TableScroll label="Portfolios">
              <table className="w-full text-sm" data-testid="portfolios-table">
                <caption className="sr-only">Your portfolios</caption>
                <thead className={cn("text-left text-xs uppercase tracking-wide text-muted-foreground", cardTable.head)}>
                  <tr>
                    <th scope="col" className="py-2 pr-4 font-medium">Name</th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">Homes</th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">Total value</th>
                    <th scope="col" className="py-2 pr-4 text-right font-medium">Change this month</th>
                    <th scope="col" className="py-2 pr-4 font-medium">Status</th>
                  </tr>
                </thead>
                <tbody className={cn("divide-y", cardTable.body)}>
                  {portfolios.map((p, i) => {
                    const detail = totals[i]?.data;
                    const t = detail?.totals;
                    return (
                      <tr key={p.id} data-testid="portfolio-row" className={cardTable.row[3]}>
                        <th scope="row" className={cn("py-3 pr-4 text-left font-medium", cardTable.span)}>
                          <Link to={`/portfolios/${p.id}`} className="break-words text-primary underline-offset-4 hover:underline">
                            {p.name}
                          </Link>
                        </th>
                        <td data-label="Homes" className={cn("py-3 pr-4 text-right tabular-nums", cardTable.cell)}>
                          {p.homeCount.toLocaleString("en-US")}
                        </td>
                        <td data-label="Total value" className={cn("py-3 pr-4 text-right tabular-nums", cardTable.cell)}>
                          {t ? dollars(t.value) : "—"}
                        </td>
                        <td data-label="Change this month" className={cn("py-3 pr-4 text-right tabular-nums", cardTable.cell)}>
                          {detail ? monthChangeText(detail) : "—"}
                        </td>
                        <td data-label="Status" className={cn("py-3 pr-4", cardTable.span)}>
                          <StatusBadge portfolio={p} />
                          {p.status === "paused" && p.pausedReason ? (
                            <p className="mt-1 max-w-xs text-xs text-muted-foreground">{p.pausedReason}</p>
                          ) : null}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableScroll>
          </CardContent>
        </Card>
      )}
    </div>
  );
}

function StatusBadge({ portfolio: p }: { portfolio: Pick<Portfolio, "status"> }) {
  return (
    <Badge variant={p.status === "paused" ? "warning" : "success"} data-testid="portfolio-status">
      {statusText(p)}
    </Badge>
  );
}

function LoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <Card>
      <CardContent role="alert" className="flex flex-col items-center gap-3 py-10 text-center text-sm">
        <AlertCircle className="h-6 w-6 text-destructive" aria-hidden="true" />
        <p className="font-medium">{errorMessage(error, LOAD_FAILED)}</p>
        <Button type="button" variant="outline" size="sm" onClick={onRetry}>
          Retry
        </Button>
      </CardContent>
    </Card>
  );
}

// ---- One portfolio -----------------------------------------------------------------------------------------------

export function PortfolioPage() {
  const { id: raw } = useParams();
  const id = Number(raw);
  const portfolio = usePortfolio(id);
  if (!Number.isSafeInteger(id) || id <= 0 || (portfolio.isError && isNotFound(portfolio.error))) {
    return (
      <div className="mx-auto max-w-6xl">
        <PageHeader title="Portfolio not found" subtitle="It may have been deleted, or belong to another account." />
        <Link to="/portfolios" className="text-sm font-medium text-primary underline underline-offset-4">
          Back to Portfolios
        </Link>
      </div>
    );
  }
  if (portfolio.isPending) {
    return (
      <div className="flex justify-center py-16">
        <Spinner label="Loading the portfolio" />
      </div>
    );
  }
  if (portfolio.isError) {
    return (
      <div className="mx-auto max-w-6xl">
        <PageHeader title="Portfolio" />
        <LoadError error={portfolio.error} onRetry={() => void portfolio.refetch()} />
      </div>
    );
  }
  return <PortfolioView p={portfolio.data} />;
}

function PortfolioView({ p }: { p: PortfolioDetail }) {
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState(false);
  const [editing, setEditing] = useState(false);
  const remove = useDeletePortfolio();
  const moved = movers(p);

  const exportCsv = () => saveTextFile(portfolioCsv(p), exportFileName(p.name, "csv"));
  const exportXlsx = async () => {
    const { xlsxBlob } = await import("@/lib/xlsx");
    saveBlobFile(xlsxBlob(exportRows(p), p.name), exportFileName(p.name, "xlsx"));
  };

  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <div>
        <Link to="/portfolios" className="text-sm text-muted-foreground underline-offset-4 hover:underline">
          ← Portfolios
        </Link>
      </div>
      <div className="!mt-2">
        <PageHeader
          action={{ label: "Settings", icon: <Settings aria-hidden="true" />, onClick: () => setEditing(true) }}
          title={p.name}
          subtitle={`${homesText(p.homeCount)} · ${p.alertThreshold === null ? "no alerts" : `alerts past ${thresholdText(p.alertThreshold)} a month`} · created ${new Date(p.createdAt).toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric" })}`}
        />
      </div>

      {p.status === "paused" ? (
        <div role="status" data-testid="portfolio-paused" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900">
          <p className="font-semibold">This portfolio is paused</p>
          <p className="mt-1">{p.pausedReason ?? "Its monthly revaluation stopped for want of credits."}</p>
          <p className="mt-1">
            <Link to="/billing" className="font-semibold underline underline-offset-2">
              Add credits on Billing &amp; Credits
            </Link>{" "}
            to resume it.
          </p>
        </div>
      ) : null}

      <dl data-testid="portfolio-totals" className="grid grid-cols-2 gap-4 rounded-lg border bg-card p-4 sm:grid-cols-4">
        <Total label="Total value" value={dollars(p.totals.value)} testId="portfolio-value" />
        <Total label="Range" value={`${dollars(p.totals.low)}–${dollars(p.totals.high)}`} />
        <Total label="Change this month" value={monthChangeText(p)} />
        <Total label="Change since added" value={signedDollars(p.totals.changeSinceAdded)} />
        <Total label="Homes valued" value={`${p.totals.valuedHomes.toLocaleString("en-US")} of ${p.homeCount.toLocaleString("en-US")}`} />
        <Total label="Status" value={<StatusBadge portfolio={p} />} />
      </dl>

      {p.alertThreshold !== null ? (
        <section
          aria-labelledby="portfolio-alert-heading"
          data-testid="portfolio-alert"
          className={cn("rounded-md border p-4 text-sm", moved.length > 0 ? "border-amber-300 bg-amber-50 text-amber-950" : "bg-muted/40")}
        >
          <h2 id="portfolio-alert-heading" className="flex items-center gap-2 font-semibold">
            <BellRing className="h-4 w-4" aria-hidden="true" />
            {moved.length > 0
              ? `Alert: ${homesText(moved.length)} moved more than ${thresholdText(p.alertThreshold)} since last month`
              : `No home moved more than ${thresholdText(p.alertThreshold)} since last month`}
          </h2>
          {moved.length > 0 ? (
            <ul className="mt-2 space-y-0.5">
              {moved.map((h) => (
                <li key={h.id} className="break-words">
                  {`${h.formattedAddress}: ${signedPercent(h.changeSinceLastMonth?.percent)} (${signedDollars(h.changeSinceLastMonth?.amount)}) to ${dollars(h.latest?.value)}${h.latest ? ` in ${monthLabel(h.latest.month)}` : ""}`}
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-1 text-muted-foreground">A home that moves more is listed here, first in the table, and alerted by email{p.webhookUrl ? " and webhook" : ""}.</p>
          )}
        </section>
      ) : null}

      {p.webhookUrl && p.webhookSecret ? <WebhookSecret url={p.webhookUrl} secret={p.webhookSecret} heading="h2" /> : null}

      <SettingsDialog open={editing} onClose={() => setEditing(false)} portfolio={p} />

      <ValueChart history={p.history} />

      <HomesCard p={p} onExportCsv={exportCsv} onExportXlsx={() => void exportXlsx()} />

      <PastAlertsCard p={p} />

      <AddHomeCard portfolioId={p.id} />

      <Card className="border-destructive/40">
        <CardHeader>
          <CardTitle className="text-lg">Delete portfolio</CardTitle>
          <CardDescription>Its homes, valuations and alerts are deleted; credits used are not refunded.</CardDescription>
        </CardHeader>
        <CardContent>
          <Button type="button" variant="destructive" onClick={() => setDeleting(true)}>
            <Trash2 aria-hidden="true" />
            Delete Portfolio
          </Button>
        </CardContent>
      </Card>

      <AlertDialog open={deleting} onOpenChange={(o) => !o && !remove.isPending && setDeleting(false)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Delete portfolio?</AlertDialogTitle>
            <AlertDialogDescription>
              {`"${p.name}" and its ${homesText(p.homeCount)} will be deleted with their valuations and alerts. This cannot be undone.`}
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel type="button" disabled={remove.isPending}>
              Cancel
            </AlertDialogCancel>
            <PendingButton
              type="button"
              variant="destructive"
              pending={remove.isPending}
              onClick={() =>
                remove.mutate(p.id, {
                  onSuccess: () => {
                    toast({ title: "Portfolio Deleted", description: `"${p.name}" was deleted.` });
                    setDeleting(false);
                    navigate("/portfolios");
                  },
                  onError: (err) => toast({ variant: "destructive", title: "Could not delete the portfolio", description: errorMessage(err, "Try again.") }),
                })
              }
            >
              {remove.isPending ? "Deleting..." : "Delete Portfolio"}
            </PendingButton>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </div>
  );
}

function Total({ label, value, testId }: { label: string; value: React.ReactNode; testId?: string }) {
  return (
    <div className="min-w-0 space-y-0.5">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="break-words text-base font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

// ---- Homes -------------------------------------------------------------------------------------------------------

const SORT_LABELS: Record<SortKey, string> = { address: "Address", value: "Value", change: "Change this month" };

interface HomesCardProps {
  p: PortfolioDetail;
  onExportCsv: () => void;
  onExportXlsx: () => void;
}

function HomesCard({ p, onExportCsv, onExportXlsx }: HomesCardProps) {
  const [sort, setSort] = useState<{ key: SortKey; dir: SortDir }>({ key: "address", dir: "asc" });
  const [removing, setRemoving] = useState<PortfolioHome | null>(null);
  const remove = useRemoveHomes(p.id);
  const homes = sortHomes(p.homes, p.alertThreshold, sort.key, sort.dir);

  const sortBy = (key: SortKey) =>
    setSort((s) => (s.key === key ? { key, dir: s.dir === "asc" ? "desc" : "asc" } : { key, dir: key === "address" ? "asc" : "desc" }));

  const header = (key: SortKey, numeric: boolean) => {
    const active = sort.key === key;
    const Icon = !active ? ArrowUpDown : sort.dir === "asc" ? ArrowUp : ArrowDown;
    return (
      <th
        scope="col"
        aria-sort={active ? (sort.dir === "asc" ? "ascending" : "descending") : "none"}
        className={cn("py-2 pr-4 font-medium", numeric && "text-right")}
      >
        <button
          type="button"
          onClick={() => sortBy(key)}
          className="inline-flex items-center gap-1 rounded-sm uppercase tracking-wide hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          {SORT_LABELS[key]}
          <Icon className="h-3.5 w-3.5" aria-hidden="true" />
        </button>
      </th>
    );
  };

  return (
    <Card data-testid="portfolio-homes">
      <CardHeader className="flex flex-col gap-3 space-y-0 sm:flex-row sm:items-start sm:justify-between">
        <div className="space-y-1.5">
          <CardTitle className="text-lg">Homes</CardTitle>
          <CardDescription>
            {p.alertThreshold !== null
              ? `The month's movers (more than ${thresholdText(p.alertThreshold)} since last month) come first and are marked`
              : "Sorted by the column you choose"}
          </CardDescription>
        </div>
        <div className="flex flex-wrap gap-2">
          {/* On a phone the table is a list of cards without its header row: the order is chosen here. */}
          <label className="flex w-full items-center gap-2 text-sm sm:hidden">
            <span className="shrink-0 font-medium">Sort by</span>
            <select
              className="flex h-9 w-full rounded-md border border-input bg-background px-3 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
              value={`${sort.key}-${sort.dir}`}
              onChange={(e) => {
                const [key, dir] = e.target.value.split("-") as [SortKey, SortDir];
                setSort({ key, dir });
              }}
            >
              <option value="address-asc">Address (A to Z)</option>
              <option value="address-desc">Address (Z to A)</option>
              <option value="value-desc">Value (highest first)</option>
              <option value="value-asc">Value (lowest first)</option>
              <option value="change-desc">Change this month (largest rise first)</option>
              <option value="change-asc">Change this month (largest fall first)</option>
            </select>
          </label>
          <Button type="button" variant="outline" size="sm" onClick={onExportCsv} disabled={p.homes.length === 0}>
            <Download aria-hidden="true" />
            Export CSV
          </Button>
          <Button type="button" variant="outline" size="sm" onClick={onExportXlsx} disabled={p.homes.length === 0}>
            <Download aria-hidden="true" />
            Export XLSX
          </Button>
        </div>
      </CardHeader>
      <CardContent>
        {homes.length === 0 ? (
          <p className="rounded-md border border-dashed p-6 text-center text-sm text-muted-foreground">No homes yet: add one below.</p>
        ) : (
          <TableScroll label="Homes">
            <table className="w-full text-sm" data-testid="homes-table">
              <caption className="sr-only">{`Homes of ${p.name}, sorted by ${SORT_LABELS[sort.key].toLowerCase()}, the month's movers first`}</caption>
              <thead className={cn("text-left text-xs uppercase tracking-wide text-muted-foreground", cardTable.head)}>
                <tr>
                  {header("address", false)}
                  {header("value", true)}
                  <th scope="col" className="py-2 pr-4 text-right font-medium">Range</th>
                  {header("change", true)}
                  <th scope="col" className="py-2 pr-4 text-right font-medium">Since added</th>
                  <th scope="col" className="py-2 font-medium"><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody className={cn("divide-y", cardTable.body)}>
                {homes.map((h) => {
                  const mover = isMover(h, p.alertThreshold);
                  return (
                    <tr key={h.id} data-testid="home-row" data-mover={mover || undefined} className={cn(cardTable.row[2], mover && "bg-amber-50")}>
                      <th scope="row" className={cn("py-3 pr-4 text-left font-medium", cardTable.fullWidth)}>
                        <span className="break-words">{h.formattedAddress}</span>
                        {mover ? (
                          <Badge variant="warning" className="ml-2 align-middle" data-testid="mover-badge">
                            Moved
                          </Badge>
                        ) : null}
                      </th>
                      <td data-label="Value" className={cn("py-3 pr-4 text-right tabular-nums", cardTable.cell)}>
                        {h.latest ? dollars(h.latest.value) : "Not valued"}
                        {h.latest ? <span className="block text-xs text-muted-foreground">{`${monthLabel(h.latest.month)} · ${h.latest.confidenceLevel}`}</span> : null}
                      </td>
                      <td data-label="Range" className={cn("whitespace-nowrap py-3 pr-4 text-right tabular-nums", cardTable.cell)}>
                        {h.latest ? `${dollars(h.latest.low)}–${dollars(h.latest.high)}` : "—"}
                      </td>
                      <td data-label="Change this month" className={cn("py-3 pr-4 text-right tabular-nums", cardTable.cell, mover && "font-semibold")}>
                        {h.changeSinceLastMonth ? `${signedPercent(h.changeSinceLastMonth.percent)} (${signedDollars(h.changeSinceLastMonth.amount)})` : "—"}
                      </td>
                      <td data-label="Since added" className={cn("py-3 pr-4 text-right tabular-nums", cardTable.cell)}>
                        {h.changeSinceAdded ? signedPercent(h.changeSinceAdded.percent) : "—"}
                      </td>
                      <td className={cn("py-3 text-right", cardTable.corner)}>
                        <Button
                          type="button"
                          variant="ghost"
                          size="icon"
                          className="h-8 w-8"
                          aria-label={`Remove ${h.formattedAddress}`}
                          title="Remove"
                          onClick={() => setRemoving(h)}
                        >
                          <Trash2 aria-hidden="true" />
                        </Button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        )}
      </CardContent>

      <AlertDialog open={removing !== null} onOpenChange={(o) => !o && !remove.isPending && setRemoving(null)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Remove home?</AlertDialogTitle>
            <AlertDialogDescription>
              {`${removing?.formattedAddress ?? ""} will leave the portfolio with its valuations. Credits used are not refunded.`}
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel type="button" disabled={remove.isPending}>
              Cancel
            </AlertDialogCancel>
            <PendingButton
              type="button"
              variant="destructive"
              pending={remove.isPending}
              onClick={() => {
                if (!removing) return;
                remove.mutate([removing.id], {
                  onSuccess: () => {
                    toast({ title: "Home Removed", description: removing.formattedAddress });
                    setRemoving(null);
                  },
                  onError: (err) => toast({ variant: "destructive", title: "Could not remove the home", description: errorMessage(err, "Try again.") }),
                });
              }}
            >
              {remove.isPending ? "Removing..." : "Remove Home"}
            </PendingButton>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </Card>
  );
}

// ---- Past alerts -------------------------------------------------------------------------------------------------

/**
 * The alerts the portfolio has sent, newest month first, each with the homes that moved as the alert carried them
 * (its email and webhook). The threshold shown is the alert's own: it may have been changed since.
 */
function PastAlertsCard({ p }: { p: PortfolioDetail }) {
  const alerts = usePortfolioAlerts(p.id);
  const list = alerts.data?.pages.flatMap((page) => page.data) ?? [];
  const sentBy = p.webhookUrl ? "by email and to your webhook" : "by email";

  return (
    <Card data-testid="past-alerts">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-lg">
          <History className="h-4 w-4" aria-hidden="true" />
          Past alerts
        </CardTitle>
        <CardDescription>
          {p.alertThreshold !== null
            ? `Each month, once its homes are revalued, the homes that moved more than ${thresholdText(p.alertThreshold)} are sent as one alert ${sentBy}.`
            : "Alerts are off: set an alert threshold in Settings to be alerted when a home moves."}
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {alerts.isPending ? (
          <div className="flex justify-center py-6">
            <Spinner label="Loading past alerts" />
          </div>
        ) : alerts.isError && list.length === 0 ? (
          <div role="alert" className="flex flex-col items-center gap-3 py-6 text-center text-sm">
            <p className="font-medium">{errorMessage(alerts.error, "Could not load past alerts")}</p>
            <Button type="button" variant="outline" size="sm" onClick={() => void alerts.refetch()}>
              Retry
            </Button>
          </div>
        ) : list.length === 0 ? (
          <p data-testid="past-alerts-empty" className="rounded-md border border-dashed p-6 text-center text-sm text-muted-foreground">
            {p.alertThreshold !== null
              ? `No alerts yet. Alerts are sent once a month, after the monthly revaluation, when a home's value moves more than ${thresholdText(p.alertThreshold)} from the month before; a month in which none does sends nothing.`
              : "No alerts. With an alert threshold, an alert is sent once a month, after the monthly revaluation, when a home's value moves more than the threshold from the month before."}
          </p>
        ) : (
          <ol className="space-y-6">
            {list.map((a) => (
              <PastAlert key={a.month} alert={a} />
            ))}
          </ol>
        )}
        {alerts.hasNextPage ? (
          <div className="flex justify-center">
            <Button type="button" variant="outline" disabled={alerts.isFetchingNextPage} onClick={() => void alerts.fetchNextPage()}>
              {alerts.isFetchingNextPage ? "Loading..." : "Show older alerts"}
            </Button>
          </div>
        ) : null}
        {alerts.isFetchNextPageError ? (
          <p role="alert" className="text-center text-sm text-destructive">
            {errorMessage(alerts.error, "Could not load older alerts.")}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}

function PastAlert({ alert: a }: { alert: PortfolioAlert }) {
  return (
    <li data-testid="past-alert" className="space-y-2">
      <div>
        <h3 className="break-words font-semibold">
          {`${monthLabel(a.month)}: ${homesText(a.homes.length)} moved more than ${thresholdText(a.threshold)}`}
        </h3>
        <p className="text-xs text-muted-foreground">
          Sent <time dateTime={a.createdAt}>{formatDate(a.createdAt)}</time>
        </p>
      </div>
      <TableScroll label={`Homes of the ${monthLabel(a.month)} alert`}>
        <table className="w-full text-sm">
          <caption className="sr-only">{`Homes that moved more than ${thresholdText(a.threshold)} in ${monthLabel(a.month)}`}</caption>
          <thead className={cn("text-left text-xs uppercase tracking-wide text-muted-foreground", cardTable.head)}>
            <tr>
              <th scope="col" className="py-2 pr-4 font-medium">Address</th>
              <th scope="col" className="py-2 pr-4 text-right font-medium">Before</th>
              <th scope="col" className="py-2 pr-4 text-right font-medium">After</th>
              <th scope="col" className="py-2 text-right font-medium">Change</th>
            </tr>
          </thead>
          <tbody className={cn("divide-y", cardTable.body)}>
            {a.homes.map((m) => (
              <tr key={m.homeId} data-testid="past-alert-home" className={cardTable.row[3]}>
                <th scope="row" className={cn("py-2 pr-4 text-left font-medium", cardTable.span)}>
                  <span className="break-words">{m.formattedAddress}</span>
                </th>
                {/* On a phone each value is labelled with its month; above, the month is under the value. */}
                <td data-label={monthLabel(m.previousMonth)} className={cn("py-2 pr-4 text-right tabular-nums", cardTable.cell)}>
                  {dollars(m.previousValue)}
                  <span className="block text-xs text-muted-foreground max-sm:hidden">{monthLabel(m.previousMonth)}</span>
                </td>
                <td data-label={monthLabel(a.month)} className={cn("py-2 pr-4 text-right tabular-nums", cardTable.cell)}>
                  {dollars(m.value)}
                  <span className="block text-xs text-muted-foreground max-sm:hidden">{monthLabel(a.month)}</span>
                </td>
                <td data-label="Change" className={cn("py-2 text-right font-semibold tabular-nums", cardTable.cell)}>
                  {signedPercent(m.changePercent)}
                  <span className="block text-xs font-normal text-muted-foreground">{signedDollars(m.value - m.previousValue)}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </li>
  );
}

// ---- Add a home --------------------------------------------------------------------------------------------------

const EMPTY_HOME: HomeInput = { address: "", city: "", state: "", zip: "" };

function AddHomeCard({ portfolioId }: { portfolioId: number }) {
  const add = useAddHomes();
  const { refreshUser } = useAuth();
  const [home, setHome] = useState<HomeInput>(EMPTY_HOME);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failures, setFailures] = useState<RowFailure[]>([]);
  const addressRef = useRef<HTMLElement | null>(null);
  useEffect(() => {
    addressRef.current = document.getElementById("add-home-address");
  });

  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (add.isPending) return;
    setFailures([]);
    if (!home.address.trim()) {
      setErrors({ address: "Address is required" });
      addressRef.current?.focus();
      return;
    }
    setErrors({});
    const asked = Object.fromEntries(Object.entries(home).filter(([, v]) => v !== "")) as HomeInput;
    add.mutate({ id: portfolioId, homes: [asked] }, {
      onSuccess: (res) => {
        void refreshUser();
        const { added, credits } = addedCount(res.results);
        const failed = rowFailures(res.results, [asked]);
        if (added > 0) {
          toast({ title: "Home Added", description: `${res.results[0]?.formattedAddress ?? asked.address} for ${creditsText(credits)}.` });
          setHome(EMPTY_HOME);
        }
        setFailures(failed);
      },
      onError: (err) => {
        if (toastInsufficientCredits(err, { costs: "adding a home costs", price: HOME_COST, fallback: "Could not add the home", refreshUser })) return;
        if (err instanceof ApiError && err.status === 400 && err.body) {
          const fields = formFieldErrors({ ...(err.body.fields ?? {}), ...(err.body.field ? { [err.body.field]: err.body.error } : {}) });
          if (["address", "city", "state", "zip"].some((k) => fields[k])) {
            setErrors(fields);
            return;
          }
        }
        toast({ variant: "destructive", title: "Could not add the home", description: errorMessage(err, "Try again.") });
      },
    });
  };

  return (
    <Card data-testid="add-home">
      <CardHeader>
        <CardTitle className="text-lg">Add a home</CardTitle>
        <CardDescription>Valued now and every month after: 1 credit a month. A home that cannot be valued is not charged.</CardDescription>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={submit} className="space-y-4" aria-label="Add a home">
          <HomeFields idPrefix="add-home" home={home} onChange={setHome} errors={errors} />
          {failures.length > 0 ? (
            <div role="alert" className="space-y-2">
              <p className="text-sm font-medium text-destructive">Not added (not charged):</p>
              <RowFailures failures={failures} />
            </div>
          ) : null}
          <div className="flex justify-end">
            <PendingButton type="submit" pending={add.isPending} className="w-full sm:w-auto">
              <Plus aria-hidden="true" />
              {add.isPending ? "Adding..." : `Add (${creditsText(HOME_COST)})`}
            </PendingButton>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
