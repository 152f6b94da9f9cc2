import { Link } from "react-router";
import { Activity } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { formatResponseTime } from "@/lib/format";
import { serviceLabel } from "@/lib/services";
import type { UsageEntry } from "@/lib/types";
import { isSuccessStatus, relativeTime } from "../reporting-helpers";
import { ErrorCard } from "./error-card";

interface RecentActivityProps {
  entries: readonly UsageEntry[] | undefined;
  loading: boolean;
  error: unknown;
  onRetry: () => void;
  now?: number;
}

/** The latest calls, newest first: what was looked up, whether it worked, how long it took and when. */
export function RecentActivity({ entries, loading, error, onRetry, now = Date.now() }: RecentActivityProps) {
  return (
    <Card data-testid="recent-activity">
      <CardHeader className="flex-row items-center justify-between space-y-0">
        <CardTitle className="text-lg">Recent Activity</CardTitle>
        {entries && entries.length > 0 ? (
          <Button asChild variant="link" size="sm" className="h-auto p-0">
            <Link to="/history">View all</Link>
          </Button>
        ) : null}
      </CardHeader>
      <CardContent>
        {loading ? (
          <div className="flex justify-center py-8">
            <Spinner label="Loading recent activity" />
          </div>
        ) : error ? (
          <ErrorCard message="Failed to fetch usage history" error={error} onRetry={onRetry} />
        ) : !entries || entries.length === 0 ? (
          <div className="flex flex-col items-center gap-2 py-8 text-center">
            <Activity className="h-8 w-8 text-muted-foreground" aria-hidden="true" />
            <p className="font-medium">No activity yet</p>
            <p className="text-sm text-muted-foreground">Start using your API to see activity here</p>
          </div>
        ) : (
          <ul className="divide-y">
            {entries.map((e) => {
              const ok = isSuccessStatus(e.responseStatus);
              const what = e.propertyAddress?.trim() || serviceLabel(e.apiService);
              return (
                <li key={e.id} data-testid="activity-item" className="flex items-center justify-between gap-3 py-3">
                  <div className="min-w-0">
                    <p className="truncate text-sm font-medium" title={what}>
                      {what}
                    </p>
                    <p className="text-xs text-muted-foreground">
                      {e.apiKeyName ?? "Dashboard"} • Response: {e.responseStatus} • {formatResponseTime(e.responseTimeMs)} •{" "}
                      <time dateTime={e.createdAt} title={new Date(e.createdAt).toLocaleString()}>
                        {relativeTime(e.createdAt, now)}
                      </time>
                    </p>
                  </div>
                  <Badge variant={ok ? "success" : "destructive"} className="shrink-0">
                    {ok ? "Success" : "Error"}
                  </Badge>
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
