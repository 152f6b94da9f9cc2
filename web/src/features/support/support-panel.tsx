import { useEffect, useRef, useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, fieldA11y } from "@/components/ui/field";
import { PendingButton } from "@/components/ui/pending-button";
import { Spinner } from "@/components/ui/spinner";
import { Textarea } from "@/components/ui/textarea";
import { ApiError, errorMessage } from "@/lib/api";
import { cn } from "@/lib/utils";
import {
  availability,
  fetchNewer,
  fetchSupport,
  mergeMessages,
  sendMessage,
  SUPPORT_MESSAGE_MAX,
  SUPPORT_PATH,
  SUPPORT_POLL_MS,
  type SupportMessage,
} from "./support-api";

/**
 * The dashboard's live chat with the team (issue 27), opened by the header's Support button (the phone menu's on a
 * phone). It is the app's dialog: focus is trapped inside and given back to what opened it on close.
 */
export function SupportPanel({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="flex max-h-[90vh] max-w-lg flex-col gap-3 p-4 sm:p-6">{open ? <SupportChat /> : null}</DialogContent>
    </Dialog>
  );
}

/** The panel's content: mounted while the panel is open, so it reads and polls only then. */
export function SupportChat() {
  const support = useQuery({ queryKey: [SUPPORT_PATH], queryFn: fetchSupport, staleTime: 0, gcTime: 0 });
  const [messages, setMessages] = useState<SupportMessage[]>([]);
  const [closed, setClosed] = useState(false);
  const [pollFailed, setPollFailed] = useState(false);
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const lastId = useRef(0);
  const log = useRef<HTMLDivElement>(null);

  const loaded = support.isSuccess;
  useEffect(() => {
    if (!support.data) return;
    const conv = support.data.conversation;
    setMessages((m) => mergeMessages(m, conv?.messages ?? []));
    setClosed(conv?.status === "closed");
  }, [support.data]);

  useEffect(() => {
    lastId.current = messages.length ? messages[messages.length - 1]!.id : 0;
    const el = log.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages]);

  // Once the thread is in, the message box takes focus: while it loaded, the dialog put focus on its only control,
  // the Close button (the X). Focus the person has moved elsewhere in the panel is left alone.
  useEffect(() => {
    if (!loaded) return;
    const box = document.getElementById("support-message");
    const dialog = box?.closest<HTMLElement>("[role='dialog']");
    const active = document.activeElement;
    const onStart = !active || active === document.body || active === dialog || (dialog?.contains(active) && active.textContent === "Close");
    if (box && onStart) box.focus();
  }, [loaded]);

  // New messages every 3 s while the panel is open (this component is mounted only then) and the tab is visible;
  // each read asks only for what is newer than the last message shown. A failed read is retried on the next tick.
  useEffect(() => {
    if (!loaded) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      if (document.visibilityState !== "hidden") {
        try {
          const newer = await fetchNewer(lastId.current);
          if (stopped) return;
          setPollFailed(false);
          if (newer.length) setMessages((m) => mergeMessages(m, newer));
        } catch (err) {
          if (stopped) return;
          if (!(err instanceof ApiError && err.status === 401)) setPollFailed(true);
        }
      }
      if (!stopped) timer = setTimeout(() => void tick(), SUPPORT_POLL_MS);
    };
    timer = setTimeout(() => void tick(), SUPPORT_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [loaded]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (sending) return;
    const body = text.trim();
    const invalid =
      body.length === 0
        ? "Message is required."
        : text.length > SUPPORT_MESSAGE_MAX
          ? `Message must be at most ${SUPPORT_MESSAGE_MAX.toLocaleString("en-US")} characters.`
          : null;
    setError(invalid);
    if (invalid) {
      document.getElementById("support-message")?.focus();
      return;
    }
    setSending(true);
    try {
      const sent = await sendMessage(body);
      setMessages((m) => mergeMessages(m, [sent]));
      setClosed(false);
      setText("");
    } catch (err) {
      setError(errorMessage(err, "Your message could not be sent. Please try again."));
    } finally {
      setSending(false);
    }
  };

  const hours = support.data?.hours;
  return (
    <>
      <DialogHeader className="pr-6">
        <DialogTitle>Support</DialogTitle>
        <DialogDescription>
          {hours ? (
            <span data-testid="support-availability" className="flex flex-wrap items-center gap-x-2">
              <span
                aria-hidden="true"
                className={cn("inline-block h-2 w-2 rounded-full", hours.open ? "bg-green-600" : "bg-muted-foreground")}
              />
              <span>{availability(hours)}.</span>
            </span>
          ) : (
            "Write to the Valuator team; a person replies here."
          )}
        </DialogDescription>
        {hours ? <p className="text-xs text-muted-foreground">Office hours: {hours.text}</p> : null}
      </DialogHeader>

      {support.isPending ? (
        <div className="flex justify-center py-6">
          <Spinner label="Loading your conversation" />
        </div>
      ) : support.isError ? (
        <div role="alert" className="space-y-2 py-4 text-center text-sm">
          <p>{errorMessage(support.error, "Support could not be loaded.")}</p>
          <Button type="button" variant="outline" size="sm" onClick={() => void support.refetch()}>
            Retry
          </Button>
        </div>
      ) : (
        <>
          {/* The log (read out as messages arrive) scrolls; it takes focus so the keyboard can scroll it too. The
              list keeps its own role, so its items stay list items. */}
          <div
            ref={log}
            role="log"
            aria-label="Conversation with the Valuator team"
            tabIndex={0}
            className="min-h-24 flex-1 overflow-y-auto rounded-md border bg-muted/30 p-3 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
            data-testid="support-thread"
          >
            <ol className="space-y-3">
              {messages.length === 0 ? (
                <li className="text-sm text-muted-foreground">
                  No messages yet. Ask us anything about your account, credits or the API.
                </li>
              ) : (
                messages.map((m) => (
                  <li key={m.id} className={cn("flex", m.from === "customer" ? "justify-end" : "justify-start")}>
                    <div
                      className={cn(
                        "max-w-[85%] rounded-lg px-3 py-2 text-sm",
                        m.from === "customer" ? "bg-primary text-primary-foreground" : "border bg-background",
                      )}
                    >
                      <p className="text-xs font-medium opacity-80">
                        {m.from === "customer" ? "You" : `${m.authorName}, Valuator team`}
                      </p>
                      <p className="whitespace-pre-wrap break-words">{m.body}</p>
                    </div>
                  </li>
                ))
              )}
            </ol>
          </div>
          {closed ? (
            <p className="text-xs text-muted-foreground">This conversation is closed. A new message starts a new one.</p>
          ) : null}
          {pollFailed ? (
            <p role="status" className="text-xs text-muted-foreground">
              Cannot reach the server just now; still trying.
            </p>
          ) : null}
          <form onSubmit={(e) => void onSubmit(e)} noValidate className="space-y-2">
            <Field id="support-message" label="Your message" error={error ?? undefined}>
              <Textarea
                rows={3}
                value={text}
                onChange={(e) => setText(e.target.value)}
                onKeyDown={(e) => {
                  // Enter sends, as in any chat; Shift+Enter starts a new line.
                  if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                    e.preventDefault();
                    e.currentTarget.form?.requestSubmit();
                  }
                }}
                {...fieldA11y("support-message", error ?? undefined)}
              />
            </Field>
            <div className="flex items-center justify-between gap-2">
              <p className="text-xs text-muted-foreground">Enter sends; Shift+Enter for a new line.</p>
              <PendingButton type="submit" pending={sending}>
                {sending ? "Sending..." : "Send"}
              </PendingButton>
            </div>
          </form>
        </>
      )}
    </>
  );
}
