import type { ReactNode } from "react";
import { Card, CardContent } from "@/components/ui/card";
import { cn } from "@/lib/utils";

interface StatCardProps {
  testId: string;
  title: string;
  value: ReactNode;
  note: ReactNode;
  icon: ReactNode;
  /** A hover explanation of the figure (what it counts, over which period). */
  hint?: string;
  noteClassName?: string;
}

/** One of the four summary cards: a title, the figure and a short note under it. */
export function StatCard({ testId, title, value, note, icon, hint, noteClassName }: StatCardProps) {
  return (
    <Card data-testid={testId} title={hint}>
      <CardContent className="space-y-2 pt-6">
        <div className="flex items-center justify-between gap-2">
          <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
          <span className="text-muted-foreground [&_svg]:h-4 [&_svg]:w-4" aria-hidden="true">
            {icon}
          </span>
        </div>
        <p className="text-2xl font-bold tabular-nums" data-testid={`${testId}-value`}>
          {value}
        </p>
        <p className={cn("text-xs text-muted-foreground", noteClassName)} data-testid={`${testId}-note`}>
          {note}
        </p>
      </CardContent>
    </Card>
  );
}
