import { Link } from "react-router";
import { AlertCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";

/** Any path the route table does not know (product-and-account spec, section 2). */
export function NotFoundPage() {
  return (
    <main className="flex min-h-screen items-center justify-center bg-muted px-4">
      <Card className="w-full max-w-md">
        <CardContent className="pt-6">
          <div className="mb-4 flex items-center gap-2">
            <AlertCircle className="h-8 w-8 text-destructive" aria-hidden="true" />
            <h1 className="text-2xl font-bold">404 Page Not Found</h1>
          </div>
          <p className="text-sm text-muted-foreground">Did you forget to add the page to the router?</p>
          <Button asChild variant="outline" className="mt-6">
            <Link to="/">Back to Home</Link>
          </Button>
        </CardContent>
      </Card>
    </main>
  );
}
