import type * as React from "react";
import { TableScroll } from "@/components/ui/table-scroll";
import { Link } from "react-router";
import { Check, Gift, Minus, Building } from "lucide-react";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from "@/components/ui/accordion";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader } from "@/components/ui/card";
import { useAuth } from "@/lib/auth";
import { requestCount } from "@/lib/format";
import { cn } from "@/lib/utils";
import {
  ALL_PLANS,
  BATCH_FILE_MAX_MB,
  CUSTOM_PRICING_ABOVE_CREDITS,
  FREE_CREDITS,
  OVERAGE_PER_CREDIT_USD,
  PAID_PLANS,
  formatNumber,
  formatRateLimit,
  pricePerCredit,
  type Plan,
} from "./plans";

// Pricing (spec, product-and-account sections 2 and 9; DESIGN.md section 5): three paid plans, the free tier, a
// comparison table and an FAQ.

const OVERAGE = `$${OVERAGE_PER_CREDIT_USD.toFixed(2)}`;

function planFeatures(plan: Plan): string[] {
  const features = [
    `${formatNumber(plan.credits)} credits per month`,
    `${OVERAGE} per credit above the plan`,
    plan.rateLimitPerMinute === null
      ? "Unlimited requests per minute"
      : `${requestCount(plan.rateLimitPerMinute)} per minute per key`,
    `Batch uploads up to ${formatNumber(plan.batchSize)} properties`,
    "Unused credits roll over for one month",
    plan.support,
  ];
  if (plan.id === "enterprise") features.push("Custom overage pricing available");
  return features;
}

/**
 * Where a plan's button leads: a signed-in visitor straight to that plan's payment on the Billing screen, anyone
 * else to create an account first.
 */
function planHref(planId: Plan["id"], signedIn: boolean): string {
  return signedIn ? `/billing?plan=${planId}` : "/register";
}

function PlanCard({ plan, signedIn }: { plan: Plan; signedIn: boolean }) {
  const headingId = `plan-${plan.id}`;
  return (
    <article aria-labelledby={headingId} className="h-full">
      <Card
        className={cn(
          "relative flex h-full flex-col",
          plan.popular && "border-2 border-primary shadow-lg lg:-translate-y-2",
        )}
      >
        {plan.popular ? (
          <Badge className="absolute -top-3 left-1/2 -translate-x-1/2 px-3 py-1">Most Popular</Badge>
        ) : null}
        <CardHeader>
          <h3 id={headingId} className="text-xl font-semibold">
            {plan.name}
          </h3>
          <CardDescription>{plan.tagline}</CardDescription>
          <p className="pt-4">
            <span className="text-4xl font-extrabold tracking-tight">${plan.priceUsd}</span>
            <span className="text-muted-foreground">/month</span>
          </p>
          <p className="text-sm font-medium text-primary">{formatNumber(plan.credits)} credits</p>
        </CardHeader>
        <CardContent className="flex-1">
          <ul className="space-y-3 text-sm">
            {planFeatures(plan).map((f) => (
              <li key={f} className="flex gap-2">
                <Check className="mt-0.5 h-4 w-4 shrink-0 text-success" aria-hidden="true" />
                <span>{f}</span>
              </li>
            ))}
          </ul>
        </CardContent>
        <CardFooter>
          <Button asChild className="w-full" variant={plan.popular ? "default" : "outline"}>
            <Link to={planHref(plan.id, signedIn)}>Choose {plan.name}</Link>
          </Button>
        </CardFooter>
      </Card>
    </article>
  );
}

type Cell = React.ReactNode;

const yes = (
  <>
    <Check className="mx-auto h-4 w-4 text-success" aria-hidden="true" />
    <span className="sr-only">Included</span>
  </>
);
const no = (
  <>
    <Minus className="mx-auto h-4 w-4 text-muted-foreground" aria-hidden="true" />
    <span className="sr-only">Not included</span>
  </>
);

const COMPARISON_ROWS: ReadonlyArray<{ label: string; cell: (p: Plan) => Cell }> = [
  { label: "Monthly price", cell: (p) => `$${p.priceUsd}` },
  { label: "Credits included per month", cell: (p) => formatNumber(p.credits) },
  { label: "Effective price per credit", cell: (p) => (p.priceUsd === 0 ? "Free" : pricePerCredit(p)) },
  { label: "Overage above the plan", cell: (p) => (p.overage ? `${OVERAGE} / credit` : "Not available") },
  { label: "Rate limit per API key", cell: (p) => formatRateLimit(p) },
  { label: "Batch upload size", cell: (p) => `${formatNumber(p.batchSize)} properties` },
  { label: "Property valuation", cell: () => "1 credit" },
  { label: "Person lookup", cell: () => "5 credits" },
  { label: "Batch valuation", cell: () => "1 credit per property valued" },
  { label: "Not found or failed requests", cell: () => "Free" },
  { label: "Request history & analytics", cell: () => yes },
  { label: "CSV, XLSX and XLS uploads", cell: () => yes },
  { label: "99.9% uptime SLA", cell: (p) => (p.sla ? yes : no) },
  { label: "Support", cell: (p) => p.support },
];

function ComparisonTable() {
  return (
    <TableScroll className="rounded-lg border" label="Plan comparison">
      <table className="w-full min-w-[640px] text-sm">
        <caption className="sr-only">Plan comparison</caption>
        <thead className="bg-muted/60">
          <tr>
            <th scope="col" className="p-4 text-left font-semibold">
              Feature
            </th>
            {ALL_PLANS.map((p) => (
              <th
                key={p.id}
                scope="col"
                className={cn("p-4 text-center font-semibold", p.popular && "bg-primary/10 text-primary-strong")}
              >
                {p.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {COMPARISON_ROWS.map((row) => (
            <tr key={row.label} className="border-t">
              <th scope="row" className="p-4 text-left font-medium">
                {row.label}
              </th>
              {ALL_PLANS.map((p) => (
                <td key={p.id} className={cn("p-4 text-center", p.popular && "bg-primary/5")}>
                  {row.cell(p)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

const FAQ: ReadonlyArray<{ q: string; a: React.ReactNode }> = [
  {
    q: "What does a credit buy?",
    a: (
      <>
        A credit pays for one result. A property valuation costs 1 credit, a person lookup costs 5 credits, and a
        batch upload costs 1 credit for each property valued. Only results are charged: an address we cannot find,
        an address outside the markets we cover, a request that fails validation and an error on our side cost
        nothing.
      </>
    ),
  },
  {
    q: "Which addresses can I value?",
    a: (
      <>
        Homes in the markets loaded in this installation: the county or MLS records its operator imported (a
        development server holds a generated demo market), not any US address. An address more than 25 miles from
        every sale we hold is answered 404 <code>area_not_covered</code> with a message naming the place (&ldquo;We
        have no sales near 33131&rdquo;), and costs nothing, in a single lookup and as a batch row alike.
      </>
    ),
  },
  {
    q: "Do unused credits roll over?",
    a: (
      <>
        Yes. Unused credits roll over for one month: whatever is left of your plan's credits at the end of a
        billing period carries into the next one. Credits that are still unused at the end of that next period
        expire. Credits never expire in the middle of a period while your subscription is active.
      </>
    ),
  },
  {
    q: "What happens if I use more credits than my plan includes?",
    a: (
      <>
        On a paid plan your requests keep working and each credit above the plan is billed as overage at {OVERAGE}{" "}
        per credit, added to your next invoice. On the Billing screen you can set your own overage limit, a
        spending cap in dollars; once it is reached, calls that need credits answer 402 until the next period or
        until you raise the limit. Leave it empty for no limit. The Free plan has no overage.
      </>
    ),
  },
  {
    q: "Can I upgrade, downgrade or cancel at any time?",
    a: (
      <>
        Yes. Upgrades take effect immediately, with a prorated charge for the rest of the current billing period.
        Downgrades and cancellations take effect at the end of the billing period, so you keep the plan you paid for
        until then. Credits left when a cancellation takes effect are forfeited.
      </>
    ),
  },
  {
    q: "How is the confidence score calibrated?",
    a: (
      <>
        Every valuation carries its FSD (forecast standard deviation): two in three homes like it sell within ±FSD
        of our estimate. The confidence score is 1 − FSD, the convention HouseCanary and ClearCapital use, so 0.88
        means two in three sell within ±12%. Beside it, withinTenPercent is the chance of selling within 10%. We
        calibrate both on held-out sales the model never saw, not by guesswork. The low-high value range beside each
        estimate is an 80% interval, and an estimate whose range is over three times wide is not sold at all.
      </>
    ),
  },
  {
    q: "What are the rate limits?",
    a: (
      <>
        Limits apply per API key per minute: 60 requests on Free and Basic, 120 on Professional, and no plan cap on
        Enterprise. Each key can also carry its own lower limit. Every response tells you where you stand in the
        x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset headers; past the limit the API answers 429
        with a Retry-After header.
      </>
    ),
  },
  {
    q: "How large can a batch upload be?",
    a: (
      <>
        Up to 100 properties per upload on Free, 1,000 on Basic, 10,000 on Professional and 50,000 on Enterprise,
        in CSV, XLSX or XLS files up to {BATCH_FILE_MAX_MB} MB. Uploaded files are deleted within 24 hours.
      </>
    ),
  },
  {
    q: "Do I need a credit card to start?",
    a: (
      <>
        No. Every new account gets {FREE_CREDITS} free credits with no card needed, enough to try single lookups, a
        small batch and the API. Add a card only when you choose a paid plan; payments go through our card payment
        processor and we never store card numbers.
      </>
    ),
  },
  {
    q: "Do you offer volume pricing?",
    a: (
      <>
        Yes. If you need more than {formatNumber(CUSTOM_PRICING_ABOVE_CREDITS)} credits a month,{" "}
        <Link to="/contact-us" className="font-medium text-primary underline underline-offset-4 hover:decoration-2">
          contact our sales team
        </Link>{" "}
        for custom pricing, including custom overage rates.
      </>
    ),
  },
];

export function PricingPage() {
  const { user } = useAuth();
  const signedIn = user !== null;
  return (
    <PublicLayout>
      <div className="mx-auto max-w-6xl space-y-20 px-4 py-12 sm:px-6">
        <PageIntro
          title="Simple, transparent pricing"
          subtitle="Pay for results, not requests. Pick a monthly plan of credits, and pay only for what you use above it."
        />

        <section aria-labelledby="plans-heading" className="space-y-8">
          <h2 id="plans-heading" className="sr-only">
            Plans
          </h2>
          <div className="flex flex-col items-start gap-4 rounded-lg border border-primary/30 bg-primary/5 p-5 sm:flex-row sm:items-center sm:justify-between">
            <div className="flex gap-3">
              <Gift className="mt-0.5 h-5 w-5 shrink-0 text-primary" aria-hidden="true" />
              <div>
                <p className="font-semibold">Start on the Free tier</p>
                <p className="text-sm text-muted-foreground">
                  {FREE_CREDITS} free credits when you sign up and every month after, no card needed. Upgrade when you
                  are ready.
                </p>
              </div>
            </div>
            <Button asChild variant="outline">
              <Link to="/register">Create a free account</Link>
            </Button>
          </div>
          <ul className="grid gap-8 pt-4 lg:grid-cols-3">
            {PAID_PLANS.map((plan) => (
              <li key={plan.id}>
                <PlanCard plan={plan} signedIn={signedIn} />
              </li>
            ))}
          </ul>
          <p className="text-center text-sm text-muted-foreground">
            All paid plans: {OVERAGE} per credit above the plan, up to the overage limit you set. Prices in US dollars,
            billed monthly.
          </p>
          <div className="flex flex-col items-start gap-4 rounded-lg border bg-muted/40 p-5 sm:flex-row sm:items-center sm:justify-between">
            <div className="flex gap-3">
              <Building className="mt-0.5 h-5 w-5 shrink-0 text-muted-foreground" aria-hidden="true" />
              <div>
                <p className="font-semibold">Need more than {formatNumber(CUSTOM_PRICING_ABOVE_CREDITS)} credits a month?</p>
                <p className="text-sm text-muted-foreground">
                  We offer custom pricing for high volumes, with custom overage rates and a dedicated account manager.
                </p>
              </div>
            </div>
            <Button asChild variant="outline">
              <Link to="/contact-us">Contact Sales</Link>
            </Button>
          </div>
        </section>

        <section aria-labelledby="compare-heading" className="space-y-6">
          <div className="space-y-1">
            <h2 id="compare-heading" className="text-2xl font-bold tracking-tight">
              Compare plans
            </h2>
            {/* On a phone the table scrolls inside its box, and phones show no scrollbar: say there is more. */}
            <p className="text-sm text-muted-foreground md:hidden">Swipe the table sideways to see all four plans.</p>
          </div>
          <ComparisonTable />
        </section>

        <section aria-labelledby="faq-heading" className="mx-auto max-w-3xl space-y-6">
          <h2 id="faq-heading" className="text-2xl font-bold tracking-tight">
            Frequently asked questions
          </h2>
          <Accordion type="multiple" className="w-full">
            {FAQ.map((item, i) => (
              <AccordionItem key={item.q} value={`faq-${i}`}>
                <AccordionTrigger>{item.q}</AccordionTrigger>
                <AccordionContent className="leading-relaxed">{item.a}</AccordionContent>
              </AccordionItem>
            ))}
          </Accordion>
        </section>

        <section
          aria-labelledby="pricing-cta-heading"
          className="rounded-xl bg-primary px-6 py-12 text-center text-primary-foreground"
        >
          <h2 id="pricing-cta-heading" className="text-2xl font-bold tracking-tight">
            Try it before you pay
          </h2>
          <p className="mx-auto mt-3 max-w-xl text-primary-foreground">
            Sign up for {FREE_CREDITS} free credits, or read the API documentation first.
          </p>
          <div className="mt-6 flex flex-col justify-center gap-3 sm:flex-row">
            <Button asChild size="lg" variant="secondary">
              <Link to="/register">Start for free</Link>
            </Button>
            <Button
              asChild
              size="lg"
              variant="outline"
              className="border-primary-foreground/60 bg-transparent text-primary-foreground hover:bg-primary-strong hover:text-primary-foreground"
            >
              <Link to="/docs">Read the API docs</Link>
            </Button>
          </div>
        </section>
      </div>
    </PublicLayout>
  );
}
