import type * as React from "react";
import type { LucideIcon } from "lucide-react";
import { Link } from "react-router";
import { AlertTriangle, BookOpen, CreditCard, FileSpreadsheet, Gauge, KeyRound, Rocket, TrendingUp } from "lucide-react";
import { SupportEmailLink } from "@/components/support-email-link";
import { CodeBlock } from "@/components/code-block";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { ExampleResponse } from "@/components/example-response";
import { EXAMPLE_ADDRESS_LINE, EXAMPLE_QUERY, EXAMPLE_REQUEST } from "@/lib/example-valuation";
import { BATCH_FILE_MAX_MB, FREE_CREDITS, OVERAGE_PER_CREDIT_USD } from "./plans";
import { cardTable, TableScroll } from "@/components/ui/table-scroll";
import { cn } from "@/lib/utils";

// The Help Center (/help-center), linked from the contact page's 'Visit Help Center' button: task-oriented
// answers about getting started, keys, credits, batches, confidence and errors.

const OVERAGE = `$${OVERAGE_PER_CREDIT_USD.toFixed(2)}`;
const a = "font-medium text-primary underline underline-offset-4 hover:decoration-2";

interface Topic {
  id: string;
  title: string;
  summary: string;
  icon: LucideIcon;
  articles: ReadonlyArray<{ q: string; a: React.ReactNode }>;
}

// The first call values the home of the product's example valuation (a demo home), and the answer shown is this
// server's own answer for it (lib/example-valuation.ts).
const FIRST_CALL = `curl "https://YOUR_VALUATOR_HOST/api/v1/property/valuation?${EXAMPLE_QUERY}" \\
  -H "x-api-key: YOUR_API_KEY"`;

const ERROR_BODY = `{
  "error": "Insufficient credits",
  "code": "insufficient_credits",
  "requestId": "01JD2W4S7XH0V6Q4C6N9XK1E2B"
}`;

// Homes of the demo market, so the file can be uploaded as it is on a development server.
const SAMPLE_CSV = `address,city,state,zip
${EXAMPLE_REQUEST.address},${EXAMPLE_REQUEST.city},${EXAMPLE_REQUEST.state},${EXAMPLE_REQUEST.zip}
1525 47th Ave,Denver,CO,80202
8244 Kensington Dr,Atlanta,GA,30308`;

const ERRORS: ReadonlyArray<{ status: string; meaning: string; fix: React.ReactNode }> = [
  {
    status: "400 Bad Request",
    meaning: "The input is invalid: a required field is missing or malformed.",
    fix: (
      <>
        Read <code>error</code>, and <code>field</code>/<code>fields</code>, which name every bad field. Fix the input
        and retry. Nothing was charged.
      </>
    ),
  },
  {
    status: "401 Unauthorized",
    meaning: "The API key or session is missing, invalid, revoked or expired.",
    fix: (
      <>
        Check that the <code>x-api-key</code> header carries an active key from the API Keys screen, with no extra
        spaces. In the dashboard, sign in again.
      </>
    ),
  },
  {
    status: "402 Payment Required",
    meaning: "You are out of credits, or you reached your overage limit.",
    fix: (
      <>
        The response shows your balance, the overage rate and your limit. Upgrade your plan, raise or remove your
        overage limit on the Billing screen, or wait for your next billing period.
      </>
    ),
  },
  {
    status: "404 Not Found",
    meaning:
      "We could not find the property (or person) you asked for, the path is wrong, or the address lies outside the markets loaded in this installation (code area_not_covered: “We have no sales near 33131”).",
    fix: (
      <>
        Check the spelling of the street, the ZIP code and the unit. Try the address as it appears on the county
        record. For <code>area_not_covered</code>, the address is more than 25 miles from every sale we hold: no
        spelling will change that until records of that area are loaded. Not-found lookups cost nothing.
      </>
    ),
  },
  {
    status: "415 Unsupported Media Type",
    meaning: "The uploaded file is not a spreadsheet we read.",
    fix: (
      <>
        Upload a <code>.csv</code>, <code>.xlsx</code> or <code>.xls</code> file. Nothing was charged.
      </>
    ),
  },
  {
    status: "422 Unprocessable Entity",
    meaning: "The valuation would be too uncertain to be useful (code valuation_too_uncertain).",
    fix: (
      <>
        Its 80% range would be more than three times wide, so we do not sell it, and nothing was charged. Add the
        property's details (type, living area, bedrooms) if you know them, and try again.
      </>
    ),
  },
  {
    status: "429 Too Many Requests",
    meaning: "The API key went over its rate limit for the current minute.",
    fix: (
      <>
        Wait the number of seconds in the <code>Retry-After</code> header (also <code>retryAfter</code> in the body),
        then retry. Pace requests with the <code>x-ratelimit-remaining</code> header, or use a batch upload for large
        volumes.
      </>
    ),
  },
  {
    status: "5xx Server Error",
    meaning: "Something failed on our side.",
    fix: (
      <>
        Retry after a short pause. If it persists, send us the <code>requestId</code> from the response. Failed
        requests cost nothing.
      </>
    ),
  },
];

const TOPICS: readonly Topic[] = [
  {
    id: "getting-started",
    title: "Getting started",
    summary: "Create an account, value your first property and make your first API call.",
    icon: Rocket,
    articles: [
      {
        q: "How do I create an account?",
        a: (
          <p>
            <Link to="/register" className={a}>
              Register
            </Link>{" "}
            with your name, email and a password of at least 8 characters. Your account starts with {FREE_CREDITS}{" "}
            free credits and needs no card.
          </p>
        ),
      },
      {
        q: "How do I value my first property?",
        a: (
          <p>
            After signing in, open <strong>Single Lookup</strong>, enter the street address, city, state and ZIP code,
            and submit. You get the estimated value, a low-high range, the confidence score and the property details.
            Each valuation costs 1 credit.
          </p>
        ),
      },
      {
        q: "Which addresses can I value?",
        a: (
          <p>
            Homes in the markets loaded in this installation: the county or MLS records its operator imported (a
            development server holds a generated demo market), not any US address. An address more than 25 miles
            from every sale we hold is answered 404 <code>area_not_covered</code> with the place named (&ldquo;We
            have no sales near 33131&rdquo;), free, and a batch row for it fails with that reason, uncharged.
          </p>
        ),
      },
      {
        q: "How do I make my first API call?",
        a: (
          <>
            <p>
              Create a key on the <strong>API Keys</strong> screen, then send it in the <code>x-api-key</code> header:
            </p>
            <CodeBlock title="First API call" code={FIRST_CALL} />
            <p>It answers with the estimate, its range and confidence, the home's details, rent and comparable sales:</p>
            <ExampleResponse className="[&_pre]:max-h-80" />
            <p>
              Every endpoint, parameter and response is described in the{" "}
              <Link to="/docs" className={a}>
                API documentation
              </Link>
              , where you can also try calls from your browser.
            </p>
          </>
        ),
      },
    ],
  },
  {
    id: "api-keys",
    title: "API keys and authentication",
    summary: "Create, protect and limit the keys your code uses.",
    icon: KeyRound,
    articles: [
      {
        q: "How do API calls authenticate?",
        a: (
          <p>
            Public API calls (<code>/api/v1/*</code> and <code>/api/batch/*</code>) take an API key in the{" "}
            <code>x-api-key</code> header. The dashboard uses your sign-in session instead, so you never need a key to
            use the web app.
          </p>
        ),
      },
      {
        q: "How do I keep my keys safe?",
        a: (
          <ul>
            <li>Keep keys on your server. Never put them in a web page, a mobile app or a public repository.</li>
            <li>Use one key per application or environment, so you can revoke one without stopping the others.</li>
            <li>If a key may have leaked, revoke it on the API Keys screen at once and create a new one.</li>
            <li>We store keys hashed and encrypted; you can copy a key again from the API Keys screen.</li>
          </ul>
        ),
      },
      {
        q: "How do rate limits work?",
        a: (
          <p>
            Each key has its own limit per minute (from 1 to 1,000; a new key starts at your plan's cap), capped by your plan: 60 on Free and
            Basic, 120 on Professional, no cap on Enterprise. Every response carries <code>x-ratelimit-limit</code>,{" "}
            <code>x-ratelimit-remaining</code> and <code>x-ratelimit-reset</code>, so your code can slow down before it
            hits the limit.
          </p>
        ),
      },
    ],
  },
  {
    id: "credits-and-billing",
    title: "Credits and billing",
    summary: "What a credit buys, overage, rollover and plan changes.",
    icon: CreditCard,
    articles: [
      {
        q: "What does each request cost?",
        a: (
          <p>
            A property valuation costs 1 credit, a person lookup 5 credits, and a batch 1 credit for each property
            valued. Only results are charged: not-found lookups, invalid requests and errors on our side cost nothing.
            Every charge appears in your credit history on the Billing screen.
          </p>
        ),
      },
      {
        q: "What happens when I run out of credits?",
        a: (
          <p>
            On a paid plan, requests continue as overage at {OVERAGE} per credit, up to the overage limit you set on the
            Billing screen (leave it empty for no limit). Once you reach it, or when a Free account runs out, requests
            answer 402 until your next period or until you upgrade. The dashboard warns you when fewer than 50 credits
            are left.
          </p>
        ),
      },
      {
        q: "Do unused credits roll over?",
        a: (
          <p>
            Yes, for one month: unused plan credits carry into the next billing period, and expire at its end if still
            unused.
          </p>
        ),
      },
      {
        q: "How do plan changes work?",
        a: (
          <p>
            Upgrades take effect immediately with a prorated charge. Downgrades and cancellations take effect at the end
            of the billing period. Credits left when a cancellation takes effect are forfeited. See{" "}
            <Link to="/pricing" className={a}>
              Pricing
            </Link>{" "}
            for every plan's figures.
          </p>
        ),
      },
    ],
  },
  {
    id: "batch-uploads",
    title: "Batch uploads and column mapping",
    summary: "Value a spreadsheet of properties and download the results.",
    icon: FileSpreadsheet,
    articles: [
      {
        q: "What files can I upload?",
        a: (
          <p>
            CSV, XLSX and XLS files up to {BATCH_FILE_MAX_MB} MB. One upload can hold up to 100 properties on Free, 1,000
            on Basic, 10,000 on Professional and 50,000 on Enterprise. Blank rows are skipped.
          </p>
        ),
      },
      {
        q: "How are my columns mapped?",
        a: (
          <>
            <p>
              We detect the address columns from their names and contents, and show you the mapping before anything is
              charged. A file needs either one column with the full address (
              <code>{EXAMPLE_ADDRESS_LINE}</code>) or four columns: street, city, state and ZIP. Change
              any column's type from the mapping screen; other columns are ignored.
            </p>
            <CodeBlock title="Sample CSV" code={SAMPLE_CSV} />
          </>
        ),
      },
      {
        q: "How do I follow a job and get the results?",
        a: (
          <p>
            The job queue on the Batch Upload screen shows each job's status and progress. When a job completes,
            download the results: every input row comes back, either valued or with the reason it could not be. Uploaded
            files are deleted within 24 hours, so download your results promptly.
          </p>
        ),
      },
    ],
  },
  {
    id: "confidence",
    title: "Valuation confidence and ranges",
    summary: "What the confidence score and the value range mean.",
    icon: Gauge,
    articles: [
      {
        q: "What does the confidence score mean?",
        a: (
          <p>
            Confidence, from 0 to 1, is 1 minus the valuation's FSD (forecast standard deviation): two in three homes
            like this one sell within ±FSD of the estimate. A valuation with confidence 0.88 has an FSD of 0.12, so
            about two in three such homes sell within 12% of it. This is the convention HouseCanary and ClearCapital
            use, and it is calibrated on held-out sales, not guessed. 0.85 and up is High, 0.70 and up is Medium, and
            below that calls for a closer look. Each valuation also gives withinTenPercent, the chance of selling
            within 10%.
          </p>
        ),
      },
      {
        q: "What is the value range?",
        a: (
          <p>
            The low and high values form an 80% interval: the sale price should fall inside it about 8 times in 10. A
            wide range means fewer or less similar comparable sales. When the high value would be more than three
            times the low one, the estimate is too uncertain to be useful: we answer why instead, and do not charge
            for it.
          </p>
        ),
      },
      {
        q: "Why is my confidence low?",
        a: (
          <p>
            Usually because there are few recent sales of similar homes nearby, the property is unusual for its area,
            or its record is missing details such as living area. If a unit number is not on record, we value the
            building instead and say so in the response's <code>matchCode</code>.
          </p>
        ),
      },
    ],
  },
  {
    id: "markets",
    title: "Market statistics",
    summary: "What a ZIP code's market is doing, and what it costs.",
    icon: TrendingUp,
    articles: [
      {
        q: "What do market statistics return?",
        a: (
          <p>
            For a ZIP code, from our own records: the sales and rents of the last 12 months (count, median, mean,
            lowest and highest, median price per square foot, split by property type and by bedrooms), the median and
            quartiles of our current values of every home on record there, the engine's monthly price index with its
            change over 1 and 12 months (the index of the ZIP code's area: its own where its sales support one, else its 3-digit ZIP area's, its metro's or the whole market's, named in the answer), and the sales count and median sale price and rent of each month. Ask{" "}
            <code>GET /api/v1/markets?zip=98103</code> (up to 120 months of history with <code>historyMonths</code>, one
            property type with <code>propertyType</code>), or open the Markets screen after signing in. We hold no
            listings, so there is no days-on-market figure.
          </p>
        ),
      },
      {
        q: "What do they cost?",
        a: (
          <p>
            1 credit per ZIP code, like a valuation. <code>GET /api/v1/markets/compare</code> puts up to five ZIP codes
            side by side for 1 credit each; a ZIP code with no records costs nothing (a 404, or listed as not found in
            a comparison), and neither does a request we refuse.
          </p>
        ),
      },
      {
        q: "Why is a figure missing?",
        a: (
          <p>
            A figure made of fewer than 5 records is left out, with the reason ("Fewer than 5 sales in the last 12
            months."), never shown as the median of two sales. A quiet ZIP code, a rare property type or a month with
            few sales is therefore listed as omitted rather than given a number that would mislead.
          </p>
        ),
      },
    ],
  },
];

function ErrorsTopic() {
  return (
    <section id="errors" aria-labelledby="errors-heading" className="scroll-mt-20 space-y-4">
      <div className="flex items-center gap-3">
        <span className="flex h-10 w-10 items-center justify-center rounded-lg bg-primary/10 text-primary">
          <AlertTriangle className="h-5 w-5" aria-hidden="true" />
        </span>
        <h2 id="errors-heading" className="text-2xl font-bold tracking-tight">
          Errors and what to do
        </h2>
      </div>
      <p className="leading-relaxed text-muted-foreground">
        Every error answers with the same JSON shape. Quote the <code>requestId</code> when you contact support, so we
        can find your request in our logs.
      </p>
      <CodeBlock title="Error response" code={ERROR_BODY} />
      <TableScroll className="rounded-lg border" label="HTTP status codes">
        {/* On a phone each status is a card (what it means, what to do), so no column hides out of sight. */}
        <table className="w-full text-sm sm:min-w-[640px]">
          <caption className="sr-only">HTTP status codes and what to do</caption>
          <thead className={cn("bg-muted/60", cardTable.head)}>
            <tr>
              <th scope="col" className="p-3 text-left font-semibold">
                Status
              </th>
              <th scope="col" className="p-3 text-left font-semibold">
                What it means
              </th>
              <th scope="col" className="p-3 text-left font-semibold">
                What to do
              </th>
            </tr>
          </thead>
          <tbody className={cardTable.body}>
            {ERRORS.map((err) => (
              <tr key={err.status} className={cn("border-t align-top", cardTable.row[2])}>
                <th
                  scope="row"
                  className={cn("whitespace-nowrap p-3 text-left font-mono font-medium", cardTable.span)}
                >
                  {err.status}
                </th>
                <td data-label="What it means" className={cn("p-3 text-muted-foreground", cardTable.cell, cardTable.span)}>
                  {err.meaning}
                </td>
                <td data-label="What to do" className={cn("p-3 text-muted-foreground", cardTable.cell, cardTable.span)}>
                  {err.fix}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

export function HelpCenterPage() {
  return (
    <PublicLayout>
      <div className="mx-auto max-w-5xl space-y-14 px-4 py-12 sm:px-6">
        <PageIntro title="Help Center" subtitle="Answers to the most common questions about Valuator." />

        <nav aria-label="Help topics">
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {[...TOPICS, { id: "errors", title: "Errors and what to do", summary: "400, 401, 402, 404, 415, 422, 429 and more.", icon: AlertTriangle }].map(
              (t) => (
                <li key={t.id}>
                  <a
                    href={`#${t.id}`}
                    className="flex h-full gap-3 rounded-lg border p-4 transition-colors hover:border-primary/50 hover:bg-muted/40"
                  >
                    <t.icon className="mt-0.5 h-5 w-5 shrink-0 text-primary" aria-hidden="true" />
                    <span>
                      <span className="block font-medium">{t.title}</span>
                      <span className="block text-sm text-muted-foreground">{t.summary}</span>
                    </span>
                  </a>
                </li>
              ),
            )}
          </ul>
        </nav>

        {TOPICS.map((t) => (
          <section key={t.id} id={t.id} aria-labelledby={`${t.id}-heading`} className="scroll-mt-20 space-y-6">
            <div className="flex items-center gap-3">
              <span className="flex h-10 w-10 items-center justify-center rounded-lg bg-primary/10 text-primary">
                <t.icon className="h-5 w-5" aria-hidden="true" />
              </span>
              <h2 id={`${t.id}-heading`} className="text-2xl font-bold tracking-tight">
                {t.title}
              </h2>
            </div>
            <div className="space-y-6">
              {t.articles.map((art) => (
                <article key={art.q} className="space-y-3">
                  <h3 className="text-lg font-semibold">{art.q}</h3>
                  <div className="space-y-3 leading-relaxed text-muted-foreground [&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_code]:py-0.5 [&_code]:text-sm [&_li]:ml-5 [&_li]:list-disc [&_ul]:space-y-1.5 [&_figure_code]:bg-transparent [&_figure_code]:p-0">
                    {art.a}
                  </div>
                </article>
              ))}
            </div>
          </section>
        ))}

        <ErrorsTopic />

        <section
          aria-labelledby="more-help-heading"
          className="flex flex-col items-start gap-6 rounded-xl border bg-muted/40 p-8 md:flex-row md:items-center md:justify-between"
        >
          <div>
            <h2 id="more-help-heading" className="text-xl font-bold tracking-tight">
              Still need help?
            </h2>
            <p className="mt-2 text-muted-foreground">
              Browse the full API reference, or write to us at <SupportEmailLink />. We reply within 24 hours.
            </p>
          </div>
          <div className="flex flex-col gap-3 sm:flex-row">
            <Button asChild variant="outline">
              <Link to="/docs">
                <BookOpen aria-hidden="true" />
                Read the API docs
              </Link>
            </Button>
            <Button asChild>
              <Link to="/contact-us">Contact support</Link>
            </Button>
          </div>
        </section>
      </div>
    </PublicLayout>
  );
}
