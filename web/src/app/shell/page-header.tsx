import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";

export interface PageHeaderAction {
  label: string;
  onClick?: () => void;
  /** An icon shown before the label (decorative). */
  icon?: ReactNode;
  disabled?: boolean;
}

interface PageHeaderProps {
  title: string;
  subtitle?: string;
  action?: PageHeaderAction;
}

/** The header every signed-in screen starts with: its title, a line about it, and at most one main action. */
export function PageHeader({ title, subtitle, action }: PageHeaderProps) {
  return (
    <div className="mb-6 flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
      <div className="space-y-1">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{title}</h1>
        {subtitle ? <p className="text-muted-foreground">{subtitle}</p> : null}
      </div>
      {action ? (
        <Button type="button" onClick={action.onClick} disabled={action.disabled} className="shrink-0">
          {action.icon}
          {action.label}
        </Button>
      ) : null}
    </div>
  );
}
