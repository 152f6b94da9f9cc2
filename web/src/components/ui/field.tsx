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
  /**
   * An example of what to type ("98103", shown as "e.g. 98103"): under the control, in the muted colour (6.1:1 on
   * the card, over the 4.5:1 of WCAG AA), and never in the box, so that an empty field cannot pass for a filled one
   * (issue 33). It stays beside an error, which it helps to fix. Its element's id is `${id}-example`, which the
   * control references with fieldA11y(id, error, true): it describes the control and is no part of its label, whose
   * name stays exact. Under the control rather than between the label and the control, so that the controls of a
   * row line up whether or not each has an example.
   */
  example?: string;
  className?: string;
  children: React.ReactNode;
}

/**
 * A labelled form control with its validation message. The message element's id is `${id}-error`, which the control
 * should reference with aria-describedby (see fieldA11y).
 */
export function Field({ id, label, error, hint, example, className, children }: FieldProps) {
  return (
    <div className={cn("space-y-2", className)}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {example ? (
        <p id={`${id}-example`} className="text-xs text-muted-foreground">
          {`e.g. ${example}`}
        </p>
      ) : null}
      {hint && !error ? <p className="text-xs text-muted-foreground">{hint}</p> : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-sm font-medium text-destructive">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The aria attributes that tie a control to its Field's error message and, when the Field shows one (`example`),
 * to its example.
 */
export function fieldA11y(id: string, error?: string, example = false) {
  const describedBy = [example ? `${id}-example` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return {
    id,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy || undefined,
  } as const;
}
