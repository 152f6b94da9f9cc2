import { useEffect, useRef, type ReactNode } from "react";
import { Link, useSearchParams } from "react-router";
import { CheckCircle2, LinkIcon, UserX } from "lucide-react";
import { PageIntro, PublicLayout } from "@/components/public-layout";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader } from "@/components/ui/card";
import { errorMessage } from "@/lib/api";
import type { OptOutConfirmed } from "@/lib/types";
import { isBadToken, isGone, useConfirmOptOut } from "./opt-out-api";

// /opt-out/confirm?token=...: the page the emailed link opens. It explains what confirming does and removes the
// listing only when the button is pressed: mail scanners open links on their own, so loading this page must change
// nothing. The answer (or why the link no longer works) replaces the button and takes the focus.

export const DEAD_LINK_TEXT = "This link has expired or was already used. Ask again from the opt-out page.";
const BAD_LINK_TEXT = "This link is not valid. Ask again from the opt-out page.";

const sectionTitle = "text-xl font-semibold leading-none tracking-tight";

/** Focuses the element when it appears, so that keyboard and screen-reader users land on the outcome. */
function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), []);
  return ref;
}

function Removed({ answer }: { answer: OptOutConfirmed }) {
  const ref = useFocusOnMount<HTMLDivElement>();
  const { listing } = answer;
  const place = [listing.city, listing.state_code].filter(Boolean).join(", ");
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="status"
      data-testid="opt-out-removed"
      className="flex items-start gap-3 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      <CheckCircle2 className="mt-0.5 h-5 w-5 shrink-0 text-primary" aria-hidden="true" />
      <div className="min-w-0 space-y-3">
        <p className="break-words">{answer.message}</p>
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted-foreground">Listing removed</dt>
          <dd className="break-words font-medium" data-testid="removed-listing">
            {listing.name}
            {place ? `, ${place}` : ""}
          </dd>
        </dl>
      </div>
    </div>
  );
}

function DeadLink({ text }: { text: string }) {
  const ref = useFocusOnMount<HTMLDivElement>();
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="alert"
      data-testid="opt-out-dead-link"
      className="space-y-3 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-ring"
    >
      <p>{text}</p>
      <Button asChild variant="outline">
        <Link to="/opt-out">Go to the opt-out page</Link>
      </Button>
    </div>
  );
}

export function OptOutConfirmPage() {
  const [params] = useSearchParams();
  const token = params.get("token")?.trim() ?? "";
  const confirm = useConfirmOptOut();

  let body: ReactNode;
  if (!token) {
    body = <DeadLink text="This link is incomplete: it carries no token. Ask again from the opt-out page." />;
  } else if (confirm.isSuccess) {
    body = <Removed answer={confirm.data} />;
  } else if (confirm.isError && isGone(confirm.error)) {
    body = <DeadLink text={DEAD_LINK_TEXT} />;
  } else if (confirm.isError && isBadToken(confirm.error)) {
    // A token that is not one of ours (cut short by a mail program, say): the server says so.
    body = <DeadLink text={errorMessage(confirm.error, BAD_LINK_TEXT)} />;
  } else {
    body = (
      <div className="space-y-4">
        <p className="text-muted-foreground">
          Confirming deletes the one listing your opt-out request matched from the directory behind person lookup,
          everywhere it appears (including where the name is shown as someone&apos;s relative or associate), and keeps
          it out of future imports. It cannot be undone, and the link then stops working.
        </p>
        {confirm.isError ? (
          <p role="alert" className="text-sm font-medium text-destructive">
            {errorMessage(confirm.error, "Failed to remove the listing. Please try again.")}
          </p>
        ) : null}
        <Button type="button" onClick={() => confirm.mutate(token)} disabled={confirm.isPending} className="w-full sm:w-auto">
          <UserX aria-hidden="true" />
          {confirm.isPending ? "Removing..." : "Remove my listing"}
        </Button>
      </div>
    );
  }

  return (
    <PublicLayout>
      <div className="mx-auto max-w-3xl space-y-10 px-4 py-12 sm:px-6">
        <PageIntro title="Confirm your opt-out" subtitle="Remove your listing from the directory behind person lookup." />
        <Card>
          <CardHeader>
            <h2 className={`${sectionTitle} flex items-center gap-2`}>
              <LinkIcon className="h-5 w-5 text-muted-foreground" aria-hidden="true" />
              {!token || (confirm.isError && (isGone(confirm.error) || isBadToken(confirm.error)))
                ? "This link does not work"
                : confirm.isSuccess
                  ? "Your listing is removed"
                  : "Remove your listing"}
            </h2>
          </CardHeader>
          <CardContent>{body}</CardContent>
        </Card>
      </div>
    </PublicLayout>
  );
}
