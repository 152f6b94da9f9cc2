import { SearchX } from "lucide-react";
import { Card, CardContent } from "@/components/ui/card";

/** The result area after a 404: no one matched. Not charged (DESIGN section 5). */
export function PersonNotFound({ query, message }: { query: string; message: string }) {
  return (
    <Card data-testid="person-not-found" className="border-dashed">
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <span className="flex h-12 w-12 items-center justify-center rounded-full bg-muted">
          <SearchX className="h-6 w-6 text-muted-foreground" aria-hidden="true" />
        </span>
        <h2 className="text-lg font-semibold">No person found</h2>
        <p className="max-w-md break-words text-sm text-muted-foreground">
          {message}
          {query ? (
            <>
              {" "}
              (<span className="font-medium text-foreground">{query}</span>)
            </>
          ) : null}
          . Check the spelling of the name and the city and state, or try without the street address.
        </p>
        <p className="text-sm font-medium">No credits were used.</p>
      </CardContent>
    </Card>
  );
}
