import * as React from "react";
import { cn } from "@/lib/utils";
import { Button, type ButtonProps } from "./button";

export interface PendingButtonProps extends ButtonProps {
  /** The button's action is running: it looks and reads as unavailable, and presses are ignored. */
  pending: boolean;
}

/**
 * A button (a form's submit button, say) that stays focusable while its action runs: it is aria-disabled rather than
 * disabled, because a disabled button loses focus and the keyboard and screen-reader user is dropped on the page's
 * body. Presses are ignored while pending; for a submit button that includes Enter in a field of its form (the
 * browser submits through the button's click).
 */
export const PendingButton = React.forwardRef<HTMLButtonElement, PendingButtonProps>(
  ({ pending, onClick, className, ...props }, ref) => (
    <Button
      ref={ref}
      aria-disabled={pending || undefined}
      data-pending={pending || undefined}
      className={cn(pending && "cursor-wait opacity-50", className)}
      onClick={(e) => {
        if (pending) {
          e.preventDefault();
          return;
        }
        onClick?.(e);
      }}
      {...props}
    />
  ),
);
PendingButton.displayName = "PendingButton";
