import type * as React from "react";
import { PageIntro, PublicLayout } from "@/components/public-layout";

// The frame shared by the Privacy Policy and the Terms of Service: a title, the last-updated date the spec gives
// ('last updated January 21, 2025'), a table of contents and numbered sections with real headings.

export const LEGAL_LAST_UPDATED = "January 21, 2025";

export interface LegalSection {
  id: string;
  heading: string;
  body: React.ReactNode;
}

interface LegalDocumentProps {
  title: string;
  intro: React.ReactNode;
  sections: readonly LegalSection[];
}

export function LegalDocument({ title, intro, sections }: LegalDocumentProps) {
  return (
    <PublicLayout>
      <div className="mx-auto max-w-3xl space-y-10 px-4 py-12 sm:px-6">
        <PageIntro title={title}>
          <p className="text-sm text-muted-foreground">Last updated: {LEGAL_LAST_UPDATED}</p>
        </PageIntro>

        <div className="space-y-4 leading-relaxed text-muted-foreground">{intro}</div>

        <nav aria-label="Contents" className="rounded-lg border bg-muted/40 p-5">
          <h2 className="text-sm font-semibold uppercase tracking-wide text-muted-foreground">Contents</h2>
          <ol className="mt-3 grid list-decimal gap-1.5 pl-5 text-sm sm:grid-cols-2">
            {sections.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className="text-primary underline-offset-4 hover:underline">
                  {s.heading}
                </a>
              </li>
            ))}
          </ol>
        </nav>

        {sections.map((s, i) => (
          <section key={s.id} id={s.id} aria-labelledby={`${s.id}-heading`} className="scroll-mt-20 space-y-3">
            <h2 id={`${s.id}-heading`} className="text-xl font-semibold tracking-tight">
              {i + 1}. {s.heading}
            </h2>
            <div className="space-y-3 leading-relaxed text-muted-foreground [&_li]:ml-5 [&_li]:list-disc [&_strong]:text-foreground [&_ul]:space-y-1.5">
              {s.body}
            </div>
          </section>
        ))}
      </div>
    </PublicLayout>
  );
}
