import type { ReactNode } from "react";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import { requestsAMinute } from "@/lib/format";
import { cn } from "@/lib/utils";
import { Link } from "react-router";
import { AlertTriangle, BookOpen, Clock, ShieldCheck } from "lucide-react";
import { CodeBlock } from "@/components/code-block";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ExampleResponse } from "@/components/example-response";
import {
  PLANS,
  PLAN_LABELS,
  PLAN_RATE_CAPS,
  RATE_LIMIT_MAX,
  RATE_LIMIT_MIN,
  planCapsSummary,
  planRateLimitLine,
  type Plan,
} from "../api-key-helpers";
import {
  EXAMPLE_402,
  EXAMPLE_429,
  SAMPLE_ADDRESS,
  VALUATION_PATH,
  batchCurlExample,
  curlExample,
  fetchExample,
} from "../docs-examples";

interface ApiDocsProps {
  /** Where the API answers: this site's own origin. */
  baseUrl: string;
  /** The key the curl sample uses (the user's first), or null for a placeholder. */
  sampleKey: string | null;
  plan: Plan;
}

/**
 * The built-in documentation of the public API (working-screens spec, "API Keys"): base URL, the valuation endpoint
 * with samples built from the real origin and key, the batch endpoints, errors, rate-limit headers and
 * guidelines. The full contract lives at /docs.
 */
export function ApiDocs({ baseUrl, sampleKey, plan }: ApiDocsProps) {
  return (
    <section data-testid="api-docs" aria-labelledby="api-docs-title" className="space-y-6">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end sm:justify-between">
        <div className="space-y-1">
          <h2 id="api-docs-title" className="text-xl font-semibold tracking-tight">
            API Documentation
          </h2>
          <p className="text-sm text-muted-foreground">
            Everything you need to value properties from your own software with the keys above.
          </p>
        </div>
        <Link
          to="/docs"
          className="inline-flex items-center gap-2 text-sm font-medium text-primary underline-offset-4 hover:underline"
        >
          <BookOpen className="h-4 w-4" aria-hidden="true" />
          Interactive API reference
        </Link>
      </div>

      <Card>
        <CardHeader>
          <CardTitle className="text-lg">Base URL and authentication</CardTitle>
          <CardDescription>Every call goes to this base URL, with your key in a header.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-3 text-sm">
          <dl className="grid gap-3 sm:grid-cols-[10rem_1fr]">
            <dt className="font-medium">Base URL</dt>
            <dd>
              <code data-testid="api-base-url" className="rounded bg-muted px-2 py-1 font-mono text-xs">
                {baseUrl}
              </code>
            </dd>
            <dt className="font-medium">Header</dt>
            <dd>
              <code className="rounded bg-muted px-2 py-1 font-mono text-xs">x-api-key: &lt;your key&gt;</code>
              <span className="ml-2 text-muted-foreground">
                (or <code className="font-mono text-xs">Authorization: Bearer &lt;your key&gt;</code>)
              </span>
            </dd>
          </dl>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle className="flex flex-wrap items-center gap-2 text-lg">
            <Badge variant="success">GET</Badge>
            <code className="font-mono text-base">{VALUATION_PATH}</code>
          </CardTitle>
          <CardDescription>
            Value one property: estimate with its 80% range and confidence, rent, details, comparable sales and price
            history. A valuation costs 1 credit; errors are never charged.
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-5 text-sm">
          <Callout tone="warning" icon={<AlertTriangle className="h-4 w-4" aria-hidden="true" />}>
            Use <strong>GET with query parameters</strong>. Do not send a JSON body: a request with a body is refused with
            400.
          </Callout>

          <div className="space-y-2">
            <h4 className="font-semibold">Query parameters</h4>
            <ParamTable
              rows={[
                ["address", "Required", `Street address with the unit, e.g. ${SAMPLE_ADDRESS.address}. Or the whole address on one line, leaving out city, state and zip.`],
                ["city", "Recommended", `City, e.g. ${SAMPLE_ADDRESS.city}.`],
                ["state", "Recommended", `Two-letter state code, e.g. ${SAMPLE_ADDRESS.state}.`],
                ["zip", "Recommended", `5-digit ZIP code (or ZIP+4), e.g. ${SAMPLE_ADDRESS.zip}.`],
                ["propertyType", "For a home not on record", "Single Family, Condo, Townhouse, Multi-Family, Manufactured or Other."],
                ["squareFeet", "For a home not on record", "Living area, 100 to 100,000."],
                ["bedrooms, bathrooms", "Optional", "Numbers from 0 to 50."],
                ["yearBuilt", "Optional", "1700 to 2100."],
                ["lotSize", "Optional", "Lot size in square feet."],
              ]}
            />
            <p data-testid="not-on-record-rule" className="text-muted-foreground">
              A home on record is valued from its record. A home that is not (
              <code className="font-mono text-xs">matchCode</code>{" "}
              <code className="font-mono text-xs">not_on_record</code>, or{" "}
              <code className="font-mono text-xs">unit_fallback</code> for a unit of a building on record) is valued
              only from the details you give: <code className="font-mono text-xs">propertyType</code> and{" "}
              <code className="font-mono text-xs">squareFeet</code> at least. Without them the answer is a free 404
              that says what to add; its <code className="font-mono text-xs">details</code> are exactly what you gave,
              null elsewhere. Input that is not an address is a free 400 naming the field.
            </p>
            <p data-testid="coverage-rule" className="text-muted-foreground">
              Coverage is the markets loaded in this installation, not any US address. An address more than 25 miles
              from every sale loaded is a free 404 with the code{" "}
              <code className="font-mono text-xs">area_not_covered</code> and a message naming its ZIP code (or its
              city and state): <code className="font-mono text-xs">We have no sales near 33131</code>. Giving the
              details does not change it; a batch row for such an address fails with the reason{" "}
              <code className="font-mono text-xs">area_not_covered</code> and is not charged.
            </p>
          </div>

          <div className="grid gap-4 xl:grid-cols-2 xl:items-start">
            <CodeBlock title="curl" code={curlExample(baseUrl, sampleKey)} />
            <CodeBlock title="JavaScript (fetch)" code={fetchExample(baseUrl)} />
          </div>
          {sampleKey ? (
            <p className="text-xs text-muted-foreground">The curl sample uses your newest key, so you can paste it as is.</p>
          ) : (
            <p className="text-xs text-muted-foreground">Generate a key and the curl sample will use it.</p>
          )}

          <div className="space-y-2">
            <h4 className="font-semibold">Example response (200)</h4>
            <ExampleResponse className="[&_pre]:max-h-96" />
            <p className="text-muted-foreground">
              <code className="font-mono text-xs">confidence</code> is 1 −{" "}
              <code className="font-mono text-xs">fsd</code>: two in three homes like this one sell within ±
              <code className="font-mono text-xs">fsd</code> of the estimate (0.85 and up is High, 0.70 and up Medium);{" "}
              <code className="font-mono text-xs">withinTenPercent</code> is the calibrated chance of selling within
              10%; <code className="font-mono text-xs">low</code> and{" "}
              <code className="font-mono text-xs">high</code> bound an 80% interval. Dollar amounts are whole US dollars;{" "}
              <code className="font-mono text-xs">details.lotSize</code> is in acres.
            </p>
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle className="text-lg">Batch jobs</CardTitle>
          <CardDescription>
            Value a whole spreadsheet in one job: each valued property costs 1 credit, charged as it is valued; rows
            that cannot be valued cost nothing. Your plan sets how many properties one upload may hold.
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <ul className="space-y-3 text-sm">
            <EndpointItem method="POST" path="/api/batch/upload">
              Submit a spreadsheet: multipart form data with the file in the field{" "}
              <code className="font-mono text-xs">file</code> (CSV, XLSX or XLS, up to 50MB). The address columns are
              detected; send <code className="font-mono text-xs">mapping</code> (JSON, column name to fullAddress,
              address, city, state, zip or ignore) to choose them yourself, and{" "}
              <code className="font-mono text-xs">webhookUrl</code> for a signed notification when the job ends. An{" "}
              <code className="font-mono text-xs">Idempotency-Key</code> header makes a retried upload return the first
              job. Answers 202 with the job id.
            </EndpointItem>
            <EndpointItem method="GET" path="/api/batch/status/{jobId}">
              The job's status and progress (total, processed, successful, failed) and a page of its results (
              <code className="font-mono text-xs">page</code>, <code className="font-mono text-xs">limit</code>).
            </EndpointItem>
            <EndpointItem method="GET" path="/api/batch/download/{jobId}">
              Every row with its result, as CSV (or <code className="font-mono text-xs">?format=xlsx</code>). Results are
              kept 24 hours after the job ends.
            </EndpointItem>
          </ul>
          <CodeBlock title="Upload with curl" code={batchCurlExample(baseUrl, sampleKey)} />
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle className="text-lg">Errors</CardTitle>
          <CardDescription>
            Every error answers with one JSON shape:{" "}
            <code className="font-mono text-xs">{`{"error": "...", "code": "...", "requestId": "..."}`}</code>. Quote the
            requestId when you contact support.
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-4 text-sm">
          <TableScroll className="rounded-md border" label="Error codes">
            {/* On a phone each status is a card (meaning, what to do), so no column hides out of sight. */}
            <table data-testid="api-error-codes" className="w-full sm:min-w-[560px]">
              <caption className="sr-only">Error codes</caption>
              <thead
                className={cn("bg-muted/50 text-left text-xs uppercase tracking-wide text-muted-foreground", cardTable.head)}
              >
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">Status</th>
                  <th scope="col" className="px-3 py-2 font-medium">Meaning</th>
                  <th scope="col" className="px-3 py-2 font-medium">What to do</th>
                </tr>
              </thead>
              <tbody className={cn("divide-y", cardTable.body)}>
                <ErrorRow status="400 Bad Request" meaning="Invalid format or missing required fields, or input that is not an address (no house number or street name, a ZIP code that does not exist or lies in another state); field names the first bad field, fields lists them all. A JSON body on the GET is refused too." todo="Fix the request; do not retry it unchanged." />
                <ErrorRow status="401 Unauthorized" meaning="Invalid or missing API key (missing, malformed, unknown or deleted)." todo="Check the x-api-key header and that the key still exists above." />
                <ErrorRow status="402 Payment Required" meaning="Insufficient credits. The body carries the overage billing details: balance, creditsRequired, plan, overageRateCents (price of a credit beyond your plan, 0 on Free), overageLimitCents (your overage limit, null when none is set) and creditBalance (plan credits left, overage used and its cost, the limit left, and a state: empty on Free, limit_reached on a paid plan)." todo="On Free, upgrade your plan; on a paid plan, raise or remove your overage limit on Billing & Credits." />
                <ErrorRow status="404 Not Found" meaning="The home is not on record and propertyType and squareFeet were not given (code property_not_found; the message says what to add; fields names them), the address cannot be placed (property_not_found), or it lies outside the markets loaded in this installation (code area_not_covered; the message names the place)." todo="Add the details named, or check the address; for area_not_covered, no change of the address will help until its area is loaded. Not charged." />
                <ErrorRow status="415 Unsupported Media Type" meaning="A batch upload whose file is not a CSV, XLSX or XLS spreadsheet (code invalid_file_type)." todo="Upload a .csv, .xlsx or .xls file; not charged." />
                <ErrorRow status="422 Unprocessable Entity" meaning="The valuation would be too uncertain to sell: its 80% range is more than three times wide (code valuation_too_uncertain)." todo="Add the home's details (type, living area, bedrooms) and retry; not charged." />
                <ErrorRow status="429 Too Many Requests" meaning="Rate limit exceeded for this key." todo="Wait the Retry-After seconds, then retry." />
                <ErrorRow status="503 Service Unavailable" meaning="The valuation engine is starting." todo="Retry after a short, growing delay." />
              </tbody>
            </table>
          </TableScroll>
          <div className="grid gap-4 xl:grid-cols-2 xl:items-start">
            <CodeBlock title="402 response" code={EXAMPLE_402} />
            <CodeBlock title="429 response" code={EXAMPLE_429} />
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle className="text-lg">Rate limits</CardTitle>
          <CardDescription>
            Each key has its own limit per minute ({RATE_LIMIT_MIN} to {RATE_LIMIT_MAX}), capped by your plan (
            {planCapsSummary()}). A key created without a limit gets the highest its plan allows.{" "}
            <PlanCapLine plan={plan} />
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-2 text-sm">
          {/* Written from the plan table (api-key-helpers.ts), so the docs and the limits a key gets cannot disagree. */}
          <ul data-testid="plan-rate-limits" className="list-disc space-y-1 pl-5">
            {PLANS.map((p) => (
              <li key={p} data-plan={p}>
                {planRateLimitLine(p)}
              </li>
            ))}
          </ul>
          <p>Every response, errors included, carries these headers:</p>
          <ParamTable
            head={["Header", "Value"]}
            rows={[
              ["x-ratelimit-limit", "Requests a minute this key may make: its own limit, capped by your plan."],
              ["x-ratelimit-remaining", "Requests left right now."],
              ["x-ratelimit-reset", "Seconds until the full budget is available again."],
              ["Retry-After", "On a 429 only: seconds to wait before trying again."],
            ]}
          />
        </CardContent>
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2 text-lg">
              <ShieldCheck className="h-5 w-5 text-primary" aria-hidden="true" />
              Security guidelines
            </CardTitle>
          </CardHeader>
          <CardContent>
            <ul className="list-disc space-y-2 pl-5 text-sm">
              <li>
                Keep keys on your server, in an environment variable or secret store. Never put one in a web page, a
                mobile app or a code repository: anyone who sees it can spend your credits.
              </li>
              <li>Use one key per application and environment (production, staging, a partner), so one can be deleted without stopping the others.</li>
              <li>
                If a key leaks, delete it here at once: it stops working immediately. Then generate a new one and deploy
                it.
              </li>
              <li>Always call over HTTPS, so the key never crosses the network in clear text.</li>
              <li>Watch the Last Used column: a key used when you did not expect it may have leaked.</li>
            </ul>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2 text-lg">
              <Clock className="h-5 w-5 text-primary" aria-hidden="true" />
              Rate-limit guidelines
            </CardTitle>
          </CardHeader>
          <CardContent>
            <ul className="list-disc space-y-2 pl-5 text-sm">
              <li>Watch x-ratelimit-remaining and slow down before it reaches 0.</li>
              <li>On a 429, respect Retry-After: wait that many seconds before the next call.</li>
              <li>
                Back off exponentially when 429 or 503 repeats (1 s, 2 s, 4 s... with a little random jitter) instead of
                retrying in a tight loop.
              </li>
              <li>
                Cache results: a valuation changes at most once a day, so keep answers for 24 hours rather than asking
                again for the same address.
              </li>
            </ul>
          </CardContent>
        </Card>
      </div>
    </section>
  );
}

function PlanCapLine({ plan }: { plan: Plan }) {
  const cap = PLAN_RATE_CAPS[plan];
  const label = PLAN_LABELS[plan];
  return cap === null ? (
    <span>Your {label} plan has no cap.</span>
  ) : (
    <span>
      Your {label} plan allows up to {requestsAMinute(cap)} per key.
    </span>
  );
}

function Callout({ tone, icon, children }: { tone: "warning"; icon: ReactNode; children: ReactNode }) {
  const tones = { warning: "border-amber-300 bg-amber-50 text-amber-900" };
  return (
    <div role="note" className={`flex gap-3 rounded-md border p-3 ${tones[tone]}`}>
      <span className="mt-0.5 shrink-0">{icon}</span>
      <p>{children}</p>
    </div>
  );
}

/**
 * Parameters or headers: the name (with whether it is needed, for a row of three) beside its description. Two columns
 * with no minimum width, so that on a phone the description wraps beside the name instead of hiding past the right
 * edge of a box that scrolls.
 */
function ParamTable({ rows, head }: { rows: string[][]; head?: [string, string] }) {
  const [nameHead, descriptionHead] = head ?? ["Parameter", "Description"];
  return (
    <TableScroll className="rounded-md border" label={head ? "Headers" : "Parameters"}>
      <table className="w-full text-sm">
        <thead className="bg-muted/50 text-left text-xs uppercase tracking-wide text-muted-foreground">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">{nameHead}</th>
            <th scope="col" className="px-3 py-2 font-medium">{descriptionHead}</th>
          </tr>
        </thead>
        <tbody className="divide-y">
          {rows.map((row) => {
            const [name, need, description] = row.length > 2 ? row : [row[0], undefined, row[1]];
            return (
              <tr key={name}>
                <td className="w-2/5 px-3 py-2 align-top [overflow-wrap:anywhere] sm:w-1/3">
                  <code className="font-mono text-xs">{name}</code>
                  {need ? <div className="text-xs text-muted-foreground">{need}</div> : null}
                </td>
                <td className="px-3 py-2 align-top">{description}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

function EndpointItem({ method, path, children }: { method: string; path: string; children: ReactNode }) {
  return (
    <li className="flex flex-col gap-1 rounded-md border p-3 sm:flex-row sm:gap-3">
      <div className="flex shrink-0 items-center gap-2">
        <Badge variant="outline">{method}</Badge>
        <code className="font-mono text-xs">{path}</code>
      </div>
      <p className="text-muted-foreground">{children}</p>
    </li>
  );
}

function ErrorRow({ status, meaning, todo }: { status: string; meaning: string; todo: string }) {
  return (
    <tr className={cardTable.row[2]}>
      <th scope="row" className={cn("whitespace-nowrap px-3 py-2 text-left align-top font-medium", cardTable.span)}>
        {status}
      </th>
      <td data-label="Meaning" className={cn("px-3 py-2 align-top", cardTable.cell, cardTable.span)}>
        {meaning}
      </td>
      <td data-label="What to do" className={cn("px-3 py-2 align-top text-muted-foreground", cardTable.cell, cardTable.span)}>
        {todo}
      </td>
    </tr>
  );
}
