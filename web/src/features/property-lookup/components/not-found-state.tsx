import { SearchX } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";

/** The result area after a 404: nothing to value at this address. Not charged (DESIGN section 5). */
export function NotFoundState({ address }: { address: string }) {
  return (
    <Card data-testid="not-found-result" className="border-dashed">
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <span className="flex h-12 w-12 items-center justify-center rounded-full bg-muted">
          <SearchX className="h-6 w-6 text-muted-foreground" aria-hidden="true" />
        </span>
        <h2 className="text-lg font-semibold">Property not found</h2>
        <p className="max-w-md text-sm text-muted-foreground">
          We have no market data for this address
          {address ? (
            <>
              {" "}
              (<span className="font-medium text-foreground">{address}</span>)
            </>
          ) : null}
          . Check the street number, street name and ZIP code, or try a nearby address. No credit was used.
        </p>
      </CardContent>
    </Card>
  );
}
