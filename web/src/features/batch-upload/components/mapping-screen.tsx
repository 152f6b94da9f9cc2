import { useEffect, useId, useRef } from "react";
import { TableScroll } from "@/components/ui/table-scroll";
import { Link } from "react-router";
import { AlertTriangle, ArrowLeft, Briefcase, FileSpreadsheet, Info, Play } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PendingButton } from "@/components/ui/pending-button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader } from "@/components/ui/card";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { balanceText, type Balance } from "@/lib/balance";
import { formatMoney } from "@/lib/money";
import { cn } from "@/lib/utils";
import type { BatchPreview, ColumnMapping, ColumnType } from "../batch-types";
import {
  COLUMN_TYPE_LABELS,
  COLUMN_TYPES,
  DASH,
  detectedTypeLabel,
  detectionFor,
  formatConfidence,
  formatCount,
  isColumnType,
  mappingHint,
  planLimitProblem,
  plural,
  sampleValues,
} from "../batch-helpers";

/** The detector assigns a type on its own only from this confidence up (spec section 4). */
const CONFIDENT = 0.6;

interface MappingScreenProps {
  preview: BatchPreview;
  mapping: ColumnMapping;
  /** What the account has to spend (the profile's creditBalance); undefined while it is read. */
  balance: Balance | undefined;
  confirming: boolean;
  onChange: (column: string, type: ColumnType) => void;
  onBack: () => void;
  onConfirm: () => void;
  /** Makes a portfolio of the file's homes with this mapping instead of a job (the Portfolios screen asks the rest). */
  onPortfolio?: () => void;
}

function columnName(header: string, index: number): string {
  return header.trim() === "" ? `Column ${index + 1}` : header;
}

/**
 * The 'Address Field Mapping' step: each column of the file with the type it holds (detected, editable), the
 * detector's confidence and sample values; Confirm stays disabled, with a hint, while the mapping is invalid or
 * the file holds more rows than the plan allows.
 */
export function MappingScreen({ preview, mapping, balance, confirming, onChange, onBack, onConfirm, onPortfolio }: MappingScreenProps) {
  const hintId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  // The step replaces the upload zone: take the keyboard and screen-reader focus along to it.
  useEffect(() => headingRef.current?.focus(), []);
  const { fileName, headers, sampleRows, rowCount, detections, planLimit } = preview;
  const hint = mappingHint(mapping);
  const overLimit = planLimitProblem(rowCount, planLimit);
  const empty = rowCount === 0;
  const blocked = hint !== null || overLimit !== null || empty;

  return (
    <Card data-testid="mapping-screen">
      <CardHeader>
        <h2
          ref={headingRef}
          tabIndex={-1}
          className="rounded-sm text-lg font-semibold leading-none tracking-tight outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2"
        >
          Address Field Mapping
        </h2>
        <CardDescription className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <FileSpreadsheet className="h-4 w-4" aria-hidden="true" />
          <span className="font-medium text-foreground" data-testid="mapping-file-name">
            {fileName}
          </span>
          <span aria-hidden="true">·</span>
          <span data-testid="mapping-row-count">
            {formatCount(rowCount)} {plural(rowCount, "property", "properties")}
          </span>
        </CardDescription>
        <p className="text-sm text-muted-foreground">
          Tell us which columns hold the address. Each type can be given to one column; the other columns are ignored.
        </p>
      </CardHeader>
      <CardContent className="space-y-4">
        <TableScroll className="rounded-md border">
          <table data-testid="mapping-table" className="w-full min-w-[40rem] text-sm">
            <caption className="sr-only">Columns of {fileName} and the address part each holds</caption>
            <thead>
              <tr className="border-b bg-muted/40 text-left">
                <th scope="col" className="h-10 px-3 font-medium text-muted-foreground">
                  Column
                </th>
                <th scope="col" className="h-10 w-52 px-3 font-medium text-muted-foreground">
                  Type
                </th>
                <th scope="col" className="h-10 px-3 font-medium text-muted-foreground">
                  Detected
                </th>
                <th scope="col" className="h-10 px-3 font-medium text-muted-foreground">
                  Sample Values
                </th>
              </tr>
            </thead>
            <tbody>
              {headers.map((header, i) => {
                const name = columnName(header, i);
                const type = mapping[header] ?? "ignore";
                const detection = detectionFor(detections, header);
                const samples = sampleValues(sampleRows, i);
                return (
                  <tr key={`${i}:${header}`} data-testid="mapping-row" className="border-b align-top last:border-0">
                    <th scope="row" className="max-w-[14rem] px-3 py-2 text-left font-medium">
                      <span className={cn("block truncate", header.trim() === "" && "italic text-muted-foreground")} title={name}>
                        {name}
                      </span>
                    </th>
                    <td className="px-3 py-2">
                      <Select
                        value={type}
                        onValueChange={(v) => {
                          if (isColumnType(v)) onChange(header, v);
                        }}
                        disabled={confirming}
                      >
                        <SelectTrigger aria-label={`Type of column ${name}`} className="h-9">
                          <SelectValue />
                        </SelectTrigger>
                        <SelectContent>
                          {COLUMN_TYPES.map((t) => (
                            <SelectItem key={t} value={t}>
                              {COLUMN_TYPE_LABELS[t]}
                            </SelectItem>
                          ))}
                        </SelectContent>
                      </Select>
                    </td>
                    <td className="whitespace-nowrap px-3 py-2" data-testid="mapping-detected">
                      {detection ? (
                        <span className="flex items-center gap-2">
                          <span>{detectedTypeLabel(detection.type)}</span>
                          <Badge
                            variant={detection.confidence >= CONFIDENT && detection.type !== "unknown" ? "success" : "secondary"}
                            title="How sure the detector is"
                          >
                            {formatConfidence(detection.confidence)}
                          </Badge>
                        </span>
                      ) : (
                        <span className="text-muted-foreground">{DASH}</span>
                      )}
                    </td>
                    <td className="max-w-[22rem] px-3 py-2" data-testid="mapping-samples">
                      {samples.length > 0 ? (
                        <ul className="space-y-0.5">
                          {samples.map((s, j) => (
                            <li key={j} className="truncate text-muted-foreground" title={s}>
                              {s}
                            </li>
                          ))}
                        </ul>
                      ) : (
                        <span className="text-muted-foreground">{DASH}</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>

        {overLimit ? (
          <div
            role="alert"
            data-testid="plan-limit-warning"
            className="flex gap-3 rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm"
          >
            <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0 text-destructive" aria-hidden="true" />
            <p>
              {overLimit}{" "}
              <Link to="/billing" className="font-medium text-primary underline underline-offset-2">
                See plans
              </Link>
            </p>
          </div>
        ) : null}
        {empty ? (
          <p role="alert" className="text-sm text-destructive">
            The uploaded file contains no data rows.
          </p>
        ) : null}

        {!blocked && balance !== undefined ? (
          <p className="flex gap-2 text-sm text-muted-foreground" data-testid="credits-note">
            <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
            <span>
              Each property valued costs 1 credit, up to {formatCount(rowCount)}{" "}
              {plural(rowCount, "credit", "credits")} for this file. You have {balanceText(balance)}
              {runOutNote(balance, rowCount)}
            </span>
          </p>
        ) : null}
      </CardContent>
      <CardFooter className="flex flex-col-reverse gap-3 sm:flex-row sm:items-center sm:justify-between">
        <Button type="button" variant="outline" onClick={onBack} disabled={confirming}>
          <ArrowLeft aria-hidden="true" />
          Back to Upload
        </Button>
        <div className="flex flex-col items-stretch gap-2 sm:items-end">
          <p
            id={hintId}
            data-testid="mapping-hint"
            aria-live="polite"
            className={cn("text-sm text-amber-700 sm:text-right", hint === null && "sr-only")}
          >
            {hint ?? "The address columns are mapped."}
          </p>
          <div className="flex flex-col-reverse gap-2 sm:flex-row">
            {onPortfolio ? (
              <Button type="button" variant="outline" onClick={onPortfolio} disabled={blocked || confirming} aria-describedby={hintId}>
                <Briefcase aria-hidden="true" />
                Create Portfolio Instead
              </Button>
            ) : null}
            {/* Not disabled while the job is created, so focus stays here (then the upload zone takes it back). */}
            <PendingButton type="button" onClick={onConfirm} pending={confirming} disabled={blocked} aria-describedby={hintId}>
              <Play aria-hidden="true" />
              {confirming ? "Creating job…" : "Confirm Mapping & Process"}
            </PendingButton>
          </div>
        </div>
      </CardFooter>
    </Card>
  );
}

/**
 * What happens when the file costs more than the account has: a Free plan or a spent overage limit stops the job; a
 * paid plan without a limit goes on into overage. The same balance the header shows decides it.
 */
function runOutNote(b: Balance, rowCount: number): string {
  if (b.spendableCredits !== null && b.spendableCredits < rowCount) {
    return "; if they run out the job stops, and you can retry it after adding credits.";
  }
  if (b.spendableCredits === null && b.credits < rowCount) {
    return `; past them each property is billed as overage at ${formatMoney(b.overageRateCents)} a credit.`;
  }
  return ".";
}
