import * as React from "react";
import { Label } from "./label";
import { cn } from "@/lib/utils";

interface FieldProps {
  /** The id of the control, so the label and the error are tied to it. */
  id: string;
  label: React.ReactNode;
  /** The validation message for this field, if any. */
  error?: string;
  hint?: React.ReactNode;
  className?: string;
  children: React.ReactNode;
}

/**
 * A labelled form control with its validation message. The message element's id is `${id}-error`, which the control
 * should reference with aria-describedby (see fieldA11y).
 */
export function Field({ id, label, error, hint, className, children }: FieldProps) {
  return (
    <div className={cn("space-y-2", className)}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && !error ? <p className="text-xs text-muted-foreground">{hint}</p> : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-sm font-medium text-destructive">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The aria attributes that tie a control to its Field's error message. */
export function fieldA11y(id: string, error?: string) {
  return {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-error` : undefined,
  } as const;
}
