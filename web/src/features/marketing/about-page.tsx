import type { LucideIcon } from "lucide-react";
import { Link } from "react-router";
import { Gauge, HardDrive, ListChecks, Receipt, LineChart, Code2, Headphones } from "lucide-react";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";

// About (spec, product-and-account section 2): mission, values, team, links to /register and /contact-us.

const VALUES: ReadonlyArray<{ title: string; text: string; icon: LucideIcon }> = [
  {
    title: "Confidence you can check",
    text: "Our confidence score is not a mood. It is 1 − FSD, the industry's measure: two in three homes like this one sell within ±FSD of our estimate, calibrated on held-out sales the model never saw. When we are unsure, the number says so, the value range widens, and a number too loose to use is not sold.",
    icon: Gauge,
  },
  {
    title: "Every row accounted for",
    text: "A batch of fifty thousand properties comes back with fifty thousand rows: each one valued, or marked with the reason it could not be. A batch never silently drops a row, and a job survives a restart.",
    icon: ListChecks,
  },
  {
    title: "Pay for results",
    text: "You pay for answers, not attempts. An address we cannot find, a request with bad input or a failure on our side costs nothing, and every credit spent is recorded in a ledger you can read.",
    icon: Receipt,
  },
  {
    title: "Software you can run yourself",
    text: "Valuator is one binary. It runs on a laptop with an embedded database and a demo market, and scales out unchanged on PostgreSQL. No black box you cannot inspect, no lock-in you cannot leave.",
    icon: HardDrive,
  },
];

const TEAM: ReadonlyArray<{ title: string; text: string; icon: LucideIcon }> = [
  {
    title: "Valuation science",
    text: "Builds the valuation models: comparable sales, adjustments, value ranges, and the accuracy reports that keep the confidence score honest.",
    icon: LineChart,
  },
  {
    title: "Engineering",
    text: "Builds the API, the batch pipeline and the dashboard, and keeps them fast, secure and up 99.9% of the time.",
    icon: Code2,
  },
  {
    title: "Customer success",
    text: "Answers every message within 24 hours, helps teams integrate the API, and turns what customers ask for into the roadmap.",
    icon: Headphones,
  },
];

export function AboutPage() {
  return (
    <PublicLayout>
      <div className="mx-auto max-w-5xl space-y-16 px-4 py-12 sm:px-6">
        <PageIntro
          title="About Valuator"
          subtitle="Honest property valuations for the people who buy, sell, lend on and build with real estate."
        />

        <section aria-labelledby="mission-heading" className="space-y-4">
          <h2 id="mission-heading" className="text-2xl font-bold tracking-tight">
            Our mission
          </h2>
          <div className="max-w-3xl space-y-4 leading-relaxed text-muted-foreground">
            <p>
              Every real estate decision starts with the same question: what is this property worth? Agents pricing a
              listing, investors screening a portfolio, lenders checking collateral and developers building the next
              property app all need an answer that is fast, affordable and, above all, honest about how sure it is.
            </p>
            <p>
              Valuator answers that question for homes in the markets loaded in this installation, through a REST API
              or a dashboard, one property at a time or tens of thousands at once. An address outside those markets is
              told so plainly (&ldquo;We have no sales near 33131&rdquo;) instead of given a guess, and costs nothing.
              Each estimate comes with a value range and a calibrated confidence score, so you know when to rely on the
              number and when to look closer. Our valuations are estimates, not appraisals, and we say so.
            </p>
          </div>
        </section>

        <section aria-labelledby="values-heading" className="space-y-6">
          <h2 id="values-heading" className="text-2xl font-bold tracking-tight">
            Our values
          </h2>
          <ul className="grid gap-6 sm:grid-cols-2">
            {VALUES.map(({ title, text, icon: Icon }) => (
              <li key={title}>
                <Card className="h-full">
                  <CardHeader className="flex-row items-center gap-3 space-y-0">
                    <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-primary/10 text-primary">
                      <Icon className="h-5 w-5" aria-hidden="true" />
                    </span>
                    <CardTitle className="text-lg">{title}</CardTitle>
                  </CardHeader>
                  <CardContent className="text-sm leading-relaxed text-muted-foreground">{text}</CardContent>
                </Card>
              </li>
            ))}
          </ul>
        </section>

        <section aria-labelledby="team-heading" className="space-y-6">
          <h2 id="team-heading" className="text-2xl font-bold tracking-tight">
            Our team
          </h2>
          <p className="max-w-3xl leading-relaxed text-muted-foreground">
            Valuator is built by a small founding team of engineers and data scientists who have worked on mortgage
            risk, public property records and developer APIs. We are headquartered in San Francisco, with an office
            in New York, and we answer our own support email.
          </p>
          <ul className="grid gap-6 md:grid-cols-3">
            {TEAM.map(({ title, text, icon: Icon }) => (
              <li key={title} className="rounded-lg border p-6">
                <Icon className="h-6 w-6 text-primary" aria-hidden="true" />
                <h3 className="mt-4 font-semibold">{title}</h3>
                <p className="mt-2 text-sm leading-relaxed text-muted-foreground">{text}</p>
              </li>
            ))}
          </ul>
        </section>

        <section
          aria-labelledby="about-cta-heading"
          className="flex flex-col items-start gap-6 rounded-xl border bg-muted/40 p-8 md:flex-row md:items-center md:justify-between"
        >
          <div>
            <h2 id="about-cta-heading" className="text-xl font-bold tracking-tight">
              See it for yourself
            </h2>
            <p className="mt-2 text-muted-foreground">
              Start with 100 free credits, no card needed, or tell us what you are building.
            </p>
          </div>
          <div className="flex flex-col gap-3 sm:flex-row">
            <Button asChild>
              <Link to="/register">Create a free account</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to="/contact-us">Contact us</Link>
            </Button>
          </div>
        </section>
      </div>
    </PublicLayout>
  );
}
