import type { LucideIcon } from "lucide-react";
import { Link } from "react-router";
import {
  ArrowRight,
  BarChart3,
  CheckCircle2,
  Code2,
  FileSpreadsheet,
  Server,
  ShieldCheck,
  Zap,
} from "lucide-react";
import { PublicLayout } from "@/components/public-layout";
import { CodeBlock } from "@/components/code-block";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ExampleResponse } from "@/components/example-response";
import { EXAMPLE_QUERY } from "@/lib/example-valuation";

// The landing page (spec, product-and-account sections 1 and 2): hero, six features, an example request and
// response, and a closing call to action. The example response is this server's own answer for a demo home
// (lib/example-valuation.ts), so a visitor who copies the request gets the same numbers.

interface Feature {
  title: string;
  description: string;
  icon: LucideIcon;
}

const FEATURES: readonly Feature[] = [
  {
    title: "Instant Valuations",
    description:
      "A value in well under a second for any address in the markets loaded in this installation, from real-time market data, automated valuation models (AVMs) and a comparative market analysis of nearby sales.",
    icon: Zap,
  },
  {
    title: "Batch Processing",
    description:
      "Upload a CSV of thousands of properties, track the job's status while it runs and download the results when it is done. Every row comes back, valued or with the reason it was not.",
    icon: FileSpreadsheet,
  },
  {
    title: "Analytics Dashboard",
    description:
      "Usage statistics, performance metrics and a searchable request history, so you always know what you called, what it cost and how fast it answered.",
    icon: BarChart3,
  },
  {
    title: "Enterprise Security",
    description:
      "API key authentication, per-key rate limiting and encrypted connections end to end. Keys and passwords are never stored in plain text.",
    icon: ShieldCheck,
  },
  {
    title: "Developer Friendly",
    description:
      "REST endpoints with JSON responses, an OpenAPI contract with interactive documentation, and SDK libraries so you can ship in an afternoon.",
    icon: Code2,
  },
  {
    title: "99.9% Uptime",
    description:
      "A 99.9% uptime SLA guarantee, a global CDN in front of the API and 24/7 monitoring behind it.",
    icon: Server,
  },
];

const EXAMPLE_PATH = `/api/v1/property/valuation?${EXAMPLE_QUERY}`;

function exampleOrigin(): string {
  // The example uses the host the page came from, so it can be pasted as it is against a self-hosted server.
  return typeof window !== "undefined" && window.location.origin.startsWith("http")
    ? window.location.origin
    : "https://valuator.dev";
}

const STEPS = [
  { title: "Create a free account", text: "Sign up with your email. You get 100 credits right away, no card needed." },
  { title: "Create an API key", text: "Make a key on the API Keys screen and set its own rate limit if you like." },
  { title: "Value properties", text: "Call the API, look up single addresses in the dashboard, or upload a CSV." },
] as const;

export function LandingPage() {
  const curl = [
    `curl "${exampleOrigin()}${EXAMPLE_PATH}" \\`,
    `  -H "Authorization: Bearer YOUR_API_KEY"`,
  ].join("\n");

  return (
    <PublicLayout>
      {/* Hero */}
      <section className="relative overflow-hidden border-b bg-gradient-to-b from-blue-50 to-background">
        <div className="mx-auto max-w-6xl px-4 py-20 text-center sm:px-6 sm:py-28">
          <Badge variant="secondary" className="mb-6 gap-1.5 px-3 py-1 text-sm font-medium">
            <CheckCircle2 className="h-4 w-4 text-success" aria-hidden="true" />
            100 free credits · no card needed
          </Badge>
          <h1 className="mx-auto max-w-3xl text-4xl font-extrabold tracking-tight sm:text-6xl">
            Property Valuation Made Simple
          </h1>
          <p className="mx-auto mt-6 max-w-2xl text-lg text-muted-foreground">
            Value homes by address in the markets loaded in this installation, through a REST API or the dashboard,
            one at a time or fifty thousand at once. Every estimate comes with a value range and a confidence score
            that means what it says; an address outside those markets is told so, free.
          </p>
          <div className="mt-10 flex flex-col items-center justify-center gap-3 sm:flex-row">
            <Button asChild size="lg">
              <Link to="/register">
                Start Free Trial
                <ArrowRight aria-hidden="true" />
              </Link>
            </Button>
            <Button asChild size="lg" variant="outline">
              <Link to="/docs">View Documentation</Link>
            </Button>
          </div>
          <p className="mt-4 text-sm text-muted-foreground">
            Start with 100 free credits. No credit card required.
          </p>
        </div>
      </section>

      {/* Features */}
      <section aria-labelledby="features-heading" className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
        <div className="mx-auto max-w-2xl text-center">
          <h2 id="features-heading" className="text-3xl font-bold tracking-tight">
            Everything you need to value property at scale
          </h2>
          <p className="mt-4 text-muted-foreground">
            One API for single lookups, large batches and the numbers behind them.
          </p>
        </div>
        <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {FEATURES.map(({ title, description, icon: Icon }) => (
            <li key={title}>
              <Card className="h-full transition-shadow hover:shadow-md">
                <CardHeader>
                  <span className="mb-2 flex h-10 w-10 items-center justify-center rounded-lg bg-primary/10 text-primary">
                    <Icon className="h-5 w-5" aria-hidden="true" />
                  </span>
                  <CardTitle className="text-lg">{title}</CardTitle>
                </CardHeader>
                <CardContent>
                  <CardDescription className="text-sm leading-relaxed">{description}</CardDescription>
                </CardContent>
              </Card>
            </li>
          ))}
        </ul>
      </section>

      {/* Example request and response */}
      <section aria-labelledby="example-heading" className="border-y bg-muted/40">
        <div className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
          <div className="mx-auto max-w-2xl text-center">
            <h2 id="example-heading" className="text-3xl font-bold tracking-tight">
              Simple, powerful API
            </h2>
            <p className="mt-4 text-muted-foreground">
              One GET request with your API key returns the estimate, how sure we are, and the facts it rests on.
            </p>
          </div>
          <div className="mt-12 grid gap-6 lg:grid-cols-2">
            <div className="min-w-0 space-y-3">
              <h3 className="text-lg font-semibold">Request</h3>
              <p className="break-all font-mono text-sm text-muted-foreground">
                <span className="font-semibold text-foreground">GET</span> {EXAMPLE_PATH}
              </p>
              <CodeBlock title="Request" code={curl} />
            </div>
            <div className="min-w-0 space-y-3">
              <h3 className="text-lg font-semibold">Response</h3>
              <p className="text-sm text-muted-foreground">
                <span className="font-mono">confidence</span> is 1 − <span className="font-mono">fsd</span>: two in
                three homes like this one sell within ±<span className="font-mono">fsd</span> of the estimate.
              </p>
              <ExampleResponse className="[&_pre]:max-h-[28rem]" />
            </div>
          </div>
        </div>
      </section>

      {/* How it works */}
      <section aria-labelledby="steps-heading" className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
        <h2 id="steps-heading" className="text-center text-3xl font-bold tracking-tight">
          Up and running in minutes
        </h2>
        <ol className="mt-12 grid gap-6 md:grid-cols-3">
          {STEPS.map((s, i) => (
            <li key={s.title} className="rounded-lg border p-6">
              <span className="flex h-8 w-8 items-center justify-center rounded-full bg-primary text-sm font-bold text-primary-foreground">
                {i + 1}
              </span>
              <h3 className="mt-4 font-semibold">{s.title}</h3>
              <p className="mt-2 text-sm text-muted-foreground">{s.text}</p>
            </li>
          ))}
        </ol>
      </section>

      {/* Closing call to action */}
      <section aria-labelledby="cta-heading" className="bg-primary text-primary-foreground">
        <div className="mx-auto max-w-4xl px-4 py-16 text-center sm:px-6">
          <h2 id="cta-heading" className="text-3xl font-bold tracking-tight">
            Ready to value your first property?
          </h2>
          <p className="mx-auto mt-4 max-w-xl text-primary-foreground">
            Create an account and get 100 free credits. No credit card required, no sales call.
          </p>
          <Button asChild size="lg" variant="secondary" className="mt-8">
            <Link to="/register">Create your free account</Link>
          </Button>
        </div>
      </section>
    </PublicLayout>
  );
}
