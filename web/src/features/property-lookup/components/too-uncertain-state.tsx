import { CircleHelp } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";

interface TooUncertainStateProps {
  /** The address as the form sent it. */
  address: string;
  /** The server's sentence: why the value is too uncertain, and what may narrow it. */
  message: string;
}

/**
 * The result area after a 422 `valuation_too_uncertain`: the value's 80% range would be more than three times wide,
 * so it is not sold (DESIGN section 5). Nothing was charged.
 */
export function TooUncertainState({ address, message }: TooUncertainStateProps) {
  return (
    <Card data-testid="too-uncertain-result" className="border-dashed">
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <span className="flex h-12 w-12 items-center justify-center rounded-full bg-muted">
          <CircleHelp className="h-6 w-6 text-muted-foreground" aria-hidden="true" />
        </span>
        <h2 className="text-lg font-semibold">Too uncertain to value</h2>
        <p data-testid="too-uncertain-message" className="max-w-md text-sm">
          {message}
        </p>
        <p className="max-w-md text-sm text-muted-foreground">
          We would rather say nothing than sell you a number this loose
          {address ? (
            <>
              {" "}
              for <span className="font-medium text-foreground">{address}</span>
            </>
          ) : null}
          . No credit was used.
        </p>
      </CardContent>
    </Card>
  );
}
