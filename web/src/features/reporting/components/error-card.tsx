import { AlertCircle } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { errorMessage } from "@/lib/api";

interface ErrorCardProps {
  /** The spec's sentence ('Failed to fetch stats', 'Failed to fetch API keys'). */
  message: string;
  error: unknown;
  onRetry: () => void;
  retrying?: boolean;
  testId?: string;
}

/** A failed read shown in place: what failed, the server's reason when it gave one, and a way to try again. */
export function ErrorCard({ message, error, onRetry, retrying, testId }: ErrorCardProps) {
  const detail = errorMessage(error, "");
  return (
    <Card role="alert" data-testid={testId} className="border-destructive/40">
      <CardContent className="flex flex-col gap-3 pt-6 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex items-start gap-3">
          <AlertCircle className="mt-0.5 h-5 w-5 shrink-0 text-destructive" aria-hidden="true" />
          <div>
            <p className="font-medium">{message}</p>
            {detail ? <p className="text-sm text-muted-foreground">{detail}</p> : null}
          </div>
        </div>
        <Button type="button" variant="outline" size="sm" onClick={onRetry} disabled={retrying}>
          Retry
        </Button>
      </CardContent>
    </Card>
  );
}
