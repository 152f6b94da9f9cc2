import { useEffect, useRef, type ReactNode } from "react";
import { Link, useSearchParams } from "react-router";
import { BellOff, CheckCircle2, MailX } from "lucide-react";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader } from "@/components/ui/card";
import { errorMessage } from "@/lib/api";
import { isBadToken, tokenTopic, TOPICS, useUnsubscribe } from "./unsubscribe-api";

// /unsubscribe?token=...: the page an email's unsubscribe link opens, no sign-in needed. It says which emails will
// stop and turns them off only when the button is pressed: mail scanners open links on their own, so loading this
// page must change nothing. (Mail clients that offer one-click unsubscribe post to the API directly, RFC 8058.)

export const BAD_LINK_TEXT =
  "This unsubscribe link is not valid. Open the link from the email as it is, or turn the emails off in Settings.";

const sectionTitle = "text-xl font-semibold leading-none tracking-tight";

/** Focuses the element when it appears, so that keyboard and screen-reader users land on the outcome. */
function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}

function Outcome({ role, testId, children }: { role: "status" | "alert"; testId: string; children: ReactNode }) {
  const ref = useFocusOnMount<HTMLDivElement>();
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role={role}
      data-testid={testId}
      className="space-y-3 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      {children}
    </div>
  );
}

function SettingsLink({ label }: { label: string }) {
  return (
    <Button asChild variant="outline">
      <Link to="/settings">{label}</Link>
    </Button>
  );
}

export function UnsubscribePage() {
  const [params] = useSearchParams();
  const token = params.get("token")?.trim() ?? "";
  const topic = tokenTopic(token);
  const unsubscribe = useUnsubscribe();

  let title: string;
  let body: ReactNode;
  if (!topic || (unsubscribe.isError && isBadToken(unsubscribe.error))) {
    title = "This link does not work";
    const text = !token
      ? "This link is incomplete: it carries no token. Open the link from the email as it is."
      : topic
        ? errorMessage(unsubscribe.error, BAD_LINK_TEXT)
        : BAD_LINK_TEXT;
    body = (
      <Outcome role="alert" testId="unsubscribe-bad-link">
        <p>{text}</p>
        <SettingsLink label="Go to Settings" />
      </Outcome>
    );
  } else if (unsubscribe.isSuccess) {
    title = "You are unsubscribed";
    body = (
      <Outcome role="status" testId="unsubscribe-done">
        <p className="flex items-start gap-2">
          <CheckCircle2 className="mt-0.5 h-5 w-5 shrink-0 text-primary" aria-hidden="true" />
          <span>
            You will no longer receive {TOPICS[topic].emails}. &ldquo;{TOPICS[topic].label}&rdquo; is now off; you can
            turn it on again in Settings.
          </span>
        </p>
        <SettingsLink label="Open Settings" />
      </Outcome>
    );
  } else {
    title = `Stop ${TOPICS[topic].label.toLowerCase()}`;
    body = (
      <div className="space-y-4">
        <p data-testid="unsubscribe-what">
          Unsubscribing stops {TOPICS[topic].emails}: it turns &ldquo;{TOPICS[topic].label}&rdquo; off in your
          settings. Other emails stay as they are.
        </p>
        {unsubscribe.isError ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {errorMessage(unsubscribe.error, "Failed to unsubscribe. Please try again.")}
          </p>
        ) : null}
        <Button
          type="button"
          onClick={() => unsubscribe.mutate(token)}
          disabled={unsubscribe.isPending}
          className="w-full sm:w-auto"
        >
          <BellOff aria-hidden="true" />
          {unsubscribe.isPending ? "Unsubscribing..." : "Unsubscribe"}
        </Button>
      </div>
    );
  }

  return (
    <PublicLayout>
      <div className="mx-auto max-w-3xl space-y-10 px-4 py-12 sm:px-6">
        <PageIntro title="Unsubscribe" subtitle="Choose which Valuator emails you receive." />
        <Card>
          <CardHeader>
            <h2 className={`${sectionTitle} flex items-center gap-2`}>
              <MailX className="h-5 w-5 text-muted-foreground" aria-hidden="true" />
              {title}
            </h2>
          </CardHeader>
          <CardContent>{body}</CardContent>
        </Card>
      </div>
    </PublicLayout>
  );
}
