import { CircleHelp } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";

interface TooUncertainStateProps {
  /** The address as the form sent it. */
  address: string;
  /** The server's sentence: why the home is not valued, and what may help. */
  message: string;
  /** A 422 `outside_records` (a fact far outside the records of the area) rather than `valuation_too_uncertain`. */
  outsideRecords?: boolean;
}

/**
 * The result area after a 422: a value that is not sold (DESIGN section 5), and nothing was charged. Either the
 * value's 80% range would be more than three times wide (`valuation_too_uncertain`), or a fact given for a home not
 * on record lies far outside what the records of its area and type hold (`outside_records`), where any value would
 * be a guess.
 */
export function TooUncertainState({ address, message, outsideRecords = false }: TooUncertainStateProps) {
  return (
    <Card data-testid={outsideRecords ? "outside-records-result" : "too-uncertain-result"} className="border-dashed">
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <span className="flex h-12 w-12 items-center justify-center rounded-full bg-muted">
          <CircleHelp className="h-6 w-6 text-muted-foreground" aria-hidden="true" />
        </span>
        <h2 className="text-lg font-semibold">{outsideRecords ? "Outside our records" : "Too uncertain to value"}</h2>
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
