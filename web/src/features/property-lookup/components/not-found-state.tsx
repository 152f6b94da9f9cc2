import { SearchX } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";

interface NotFoundStateProps {
  /** The address as the form sent it. */
  address: string;
  /** The server's sentence: what to add for a home that is not on record, or "Property not found". */
  message: string;
  /** The 404 named the details a home not on record is valued from (property type and square feet). */
  needsDetails: boolean;
}

/**
 * The result area after a 404: a home not on record whose details were not given (the server's message says
 * which to add; the form marks them), or an address we have no market data for. Not charged (DESIGN section 5).
 */
export function NotFoundState({ address, message, needsDetails }: NotFoundStateProps) {
  const where = address ? (
    <>
      {" "}
      (<span className="font-medium text-foreground">{address}</span>)
    </>
  ) : null;
  return (
    <Card data-testid="not-found-result" className="border-dashed">
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <span className="flex h-12 w-12 items-center justify-center rounded-full bg-muted">
          <SearchX className="h-6 w-6 text-muted-foreground" aria-hidden="true" />
        </span>
        {needsDetails ? (
          <>
            <h2 className="text-lg font-semibold">Not on record</h2>
            <p data-testid="not-found-message" className="max-w-md text-sm">
              {message}
            </p>
            <p className="max-w-md text-sm text-muted-foreground">
              We have no record of this home
              {where}, so we value it only from the details you give. Fill them in under Optional details above and
              search again. No credit was used.
            </p>
          </>
        ) : (
          <>
            <h2 className="text-lg font-semibold">Property not found</h2>
            {message && message !== "Property not found" ? (
              <p data-testid="not-found-message" className="max-w-md text-sm">
                {message}
              </p>
            ) : null}
            <p className="max-w-md text-sm text-muted-foreground">
              We have no market data for this address
              {where}. Check the street number, street name and ZIP code, or try a nearby address. No credit was
              used.
            </p>
          </>
        )}
      </CardContent>
    </Card>
  );
}
