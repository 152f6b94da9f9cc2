import type { ReactNode } from "react";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";

/** A card of a console page, headed by an h2 (the page's h1 is the frame's). */
export function Section({
  title,
  description,
  children,
  testId,
  action,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  testId?: string;
  /** A control beside the title (a filter, a button). */
  action?: ReactNode;
}) {
  return (
    <Card data-testid={testId}>
      <CardHeader className="flex flex-col gap-3 space-y-0 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 space-y-1.5">
          <h2 className="text-lg font-semibold leading-none tracking-tight">{title}</h2>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </div>
        {action}
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  );
}
