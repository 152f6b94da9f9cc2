import { Link } from "react-router";
import { ArrowRight, FileSpreadsheet, KeyRound } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useAuth } from "@/lib/auth";
import { batchLimitLine } from "@/features/marketing/plans";

// The two promo banners of the spec ("Property Lookup"): batch upload and API keys. The batch banner states the
// user's own plan limit and the next plan's, from the one plan table (the Batch page says the same sentence).
export function PromoBanners() {
  const { user } = useAuth();
  return (
    <div className="grid gap-4 md:grid-cols-2" aria-label="More ways to value properties" role="region">
      <div className="flex flex-col justify-between gap-4 rounded-lg border bg-gradient-to-br from-blue-50 to-background p-5">
        <div className="flex gap-3">
          <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-md bg-blue-100 text-blue-700">
            <FileSpreadsheet className="h-5 w-5" aria-hidden="true" />
          </span>
          <div>
            <h2 className="font-semibold">Valuing a whole portfolio?</h2>
            <p className="text-sm text-muted-foreground">
              Upload a CSV or Excel file and get every valuation back in one file.
            </p>
            <p data-testid="promo-batch-limit" className="mt-1 text-sm text-muted-foreground">
              {batchLimitLine(user?.plan)}.
            </p>
          </div>
        </div>
        <Button asChild variant="outline" className="self-start">
          <Link to="/batch-upload">
            Try Batch Upload
            <ArrowRight aria-hidden="true" />
          </Link>
        </Button>
      </div>
      <div className="flex flex-col justify-between gap-4 rounded-lg border bg-gradient-to-br from-emerald-50 to-background p-5">
        <div className="flex gap-3">
          <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-md bg-emerald-100 text-emerald-700">
            <KeyRound className="h-5 w-5" aria-hidden="true" />
          </span>
          <div>
            <h2 className="font-semibold">Build valuations into your app</h2>
            <p className="text-sm text-muted-foreground">
              Create an API key and call the same valuation from your own software with one GET request.
            </p>
          </div>
        </div>
        <Button asChild variant="outline" className="self-start">
          <Link to="/api-keys">
            Get an API Key
            <ArrowRight aria-hidden="true" />
          </Link>
        </Button>
      </div>
    </div>
  );
}
