import { MapPinOff, SearchX } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";

interface NotFoundStateProps {
  /** The address as the form sent it. */
  address: string;
  /** The server's sentence: what to add for a home that is not on record, or "Property not found". */
  message: string;
  /** The 404 named the details a home not on record is valued from (property type and square feet). */
  needsDetails: boolean;
  /**
   * A 404 `area_not_covered`: the address lies outside the markets loaded in this installation; the message names
   * the place ("We have no sales near 33131").
   */
  areaNotCovered?: boolean;
}

/**
 * The result area after a 404: an address outside the markets loaded in this installation (`area_not_covered`, the
 * server's message names the place), a home not on record whose details were not given (the server's message says
 * which to add; the form marks them), or an address we cannot place. Not charged (DESIGN section 5).
 */
export function NotFoundState({ address, message, needsDetails, areaNotCovered = false }: NotFoundStateProps) {
  const where = address ? (
    <>
      {" "}
      (<span className="font-medium text-foreground">{address}</span>)
    </>
  ) : null;
  if (areaNotCovered) {
    return (
      <Card data-testid="area-not-covered-result" className="border-dashed">
        <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
          <span className="flex h-12 w-12 items-center justify-center rounded-full bg-muted">
            <MapPinOff className="h-6 w-6 text-muted-foreground" aria-hidden="true" />
          </span>
          <h2 className="text-lg font-semibold">Outside our markets</h2>
          <p data-testid="area-not-covered-message" className="max-w-md text-sm">
            {message}
          </p>
          <p className="max-w-md text-sm text-muted-foreground">
            We value homes in the markets loaded in this installation, and this address{where} is more than 25 miles
            from every sale we hold, so any number would be a guess. No credit was used.
          </p>
        </CardContent>
      </Card>
    );
  }
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
