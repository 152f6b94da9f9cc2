import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { Mail, MessageSquare } from "lucide-react";
import { Badge } from "./components/pill";
import { Button } from "@/components/ui/button";
import { Field, fieldA11y } from "@/components/ui/field";
import { focusElement } from "@/components/ui/focus";
import { Label } from "@/components/ui/label";
import { PendingButton } from "@/components/ui/pending-button";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/use-toast";
import { errorMessage } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { cn } from "@/lib/utils";
import {
  useAssign,
  useCloseItem,
  useContactMessage,
  useConversation,
  useInbox,
  useReply,
  type InboxItem,
} from "./admin-api";
import { formatWhen, messageError } from "./admin-helpers";
import { AdminFrame, AdminLoadError, Loading, Pager, selectClass, operatorsOnly } from "./components/admin-frame";
import { Section } from "./components/section";

type Selected = { type: InboxItem["type"]; id: number };

/** Unread first, then newest: the server's order, kept here too so a poll never reshuffles it differently. */
export function inboxOrder(items: readonly InboxItem[]): InboxItem[] {
  return [...items].sort((a, b) => Number(b.unread) - Number(a.unread) || b.updatedAt.localeCompare(a.updatedAt));
}

/**
 * The support inbox (GET /api/admin/support): the dashboard's chats and the contact form's messages in one list,
 * unread first, read again every 5 s while the tab is visible. Opening an item shows its thread, where the operator
 * replies, takes it (assign to me) or closes it.
 */
function AdminSupportPageContent() {
  const [status, setStatus] = useState("open");
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Selected | null>(null);
  const inbox = useInbox(status, page);
  const items = inbox.data ? inboxOrder(inbox.data.data) : [];
  const unread = items.filter((i) => i.unread).length;

  return (
    <AdminFrame title="Support inbox" subtitle="Chats from the dashboard and messages from the contact form.">
      <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Section
          title="Conversations"
          description={<span role="status">{inbox.data ? `${unread} unread` : "\u00a0"}</span>}
          action={
            <div className="w-full space-y-1 sm:w-36">
              <Label htmlFor="inbox-status">Show</Label>
              <select
                id="inbox-status"
                className={selectClass}
                value={status}
                onChange={(e) => {
                  setStatus(e.target.value);
                  setPage(1);
                }}
              >
                <option value="open">Open</option>
                <option value="closed">Closed</option>
                <option value="all">All</option>
              </select>
            </div>
          }
        >
          {inbox.isPending ? (
            <Loading label="Loading the inbox" />
          ) : inbox.isError && !inbox.data ? (
            <AdminLoadError error={inbox.error} fallback="The inbox could not be loaded." onRetry={() => void inbox.refetch()} busy={inbox.isFetching} />
          ) : items.length === 0 ? (
            <p className="py-4 text-sm text-muted-foreground">Nothing here.</p>
          ) : (
            <>
              <ul className="divide-y rounded-md border" data-testid="inbox-list">
                {items.map((item) => {
                  const isSel = selected?.type === item.type && selected.id === item.id;
                  return (
                    <li key={`${item.type}-${item.id}`}>
                      <button
                        type="button"
                        aria-current={isSel ? "true" : undefined}
                        onClick={() => setSelected({ type: item.type, id: item.id })}
                        className={cn(
                          "flex w-full min-w-0 flex-col gap-1 px-3 py-3 text-left text-sm hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring",
                          isSel && "bg-accent",
                        )}
                      >
                        <span className="flex min-w-0 items-center gap-2">
                          {item.unread ? (
                            <>
                              <span className="h-2 w-2 shrink-0 rounded-full bg-primary" aria-hidden="true" />
                              <span className="sr-only">Unread:</span>
                            </>
                          ) : null}
                          <span className={cn("truncate", item.unread && "font-semibold")}>{item.name || item.email}</span>
                          <Badge variant="outline" className="ml-auto shrink-0">
                            {item.type === "conversation" ? "Chat" : "Contact form"}
                          </Badge>
                        </span>
                        {item.subject ? <span className="break-words font-medium">{item.subject}</span> : null}
                        {item.preview ? <span className="line-clamp-2 break-words text-muted-foreground">{item.preview}</span> : null}
                        <span className="text-xs text-muted-foreground">
                          {formatWhen(item.updatedAt)}
                          {item.assignee ? ` · ${item.assignee.email}` : " · Unassigned"}
                          {item.status !== "open" ? ` · ${item.status}` : ""}
                        </span>
                      </button>
                    </li>
                  );
                })}
              </ul>
              {inbox.data ? (
                <Pager pagination={inbox.data.pagination} onPage={setPage} label="Inbox" />
              ) : null}
            </>
          )}
        </Section>

        <div className="min-w-0">
          {selected === null ? (
            <p className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
              Choose a conversation or message to read it.
            </p>
          ) : selected.type === "conversation" ? (
            <ConversationView key={`c-${selected.id}`} id={selected.id} />
          ) : (
            <ContactView key={`m-${selected.id}`} id={selected.id} />
          )}
        </div>
      </div>
    </AdminFrame>
  );
}

/** Moves focus to the thread's heading once it has loaded, so the keyboard and a screen reader continue there. */
function useFocusOnLoad(ready: boolean) {
  const ref = useRef<HTMLHeadingElement>(null);
  const done = useRef(false);
  useEffect(() => {
    if (!ready || done.current || !ref.current) return;
    done.current = true;
    focusElement(ref.current);
  }, [ready]);
  return ref;
}

function ConversationView({ id }: { id: number }) {
  const conv = useConversation(id);
  const { user } = useAuth();
  const reply = useReply(id);
  const assign = useAssign(id);
  const close = useCloseItem({ type: "conversation", id });
  const [body, setBody] = useState("");
  const [error, setError] = useState<string | null>(null);
  const heading = useFocusOnLoad(!!conv.data);

  if (conv.isPending) return <Loading label="Loading the conversation" />;
  if (conv.isError && !conv.data)
    return <AdminLoadError error={conv.error} fallback="The conversation could not be loaded." onRetry={() => void conv.refetch()} />;
  const c = conv.data;
  const mine = !!c.assignee && !!user && c.assignee.id === user.id;
  const closed = c.status === "closed";

  const onReply = (e: FormEvent) => {
    e.preventDefault();
    if (reply.isPending) return;
    const invalid = messageError(body, "Reply");
    setError(invalid);
    if (invalid) {
      document.getElementById("reply-body")?.focus();
      return;
    }
    reply.mutate(
      { body: body.trim() },
      {
        onSuccess: () => {
          setBody("");
          toast({ title: "Reply sent", description: `To ${c.name || c.email || "the customer"}.` });
        },
        onError: (err) => setError(errorMessage(err, "The reply could not be sent. Please try again.")),
      },
    );
  };
  const onAssign = () =>
    assign.mutate(undefined, {
      onSuccess: () => toast({ title: "Assigned to you" }),
      onError: (err) => toast({ variant: "destructive", title: "Not assigned", description: errorMessage(err, "Please try again.") }),
    });
  const onClose = () =>
    close.mutate(undefined, {
      onSuccess: () => toast({ title: "Conversation closed" }),
      onError: (err) => toast({ variant: "destructive", title: "Not closed", description: errorMessage(err, "Please try again.") }),
    });

  return (
    <section aria-labelledby="thread-heading" className="space-y-4 rounded-lg border bg-card p-4 sm:p-6" data-testid="conversation">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id="thread-heading" ref={heading} className="break-words text-lg font-semibold focus:outline-none">
            {c.name || c.email || `Conversation ${c.id}`}
          </h2>
          <p className="break-words text-sm text-muted-foreground">
            {c.email}
            {c.accountId ? (
              <>
                {" · "}
                <Link to={`/admin/accounts/${c.accountId}`} className="text-primary underline-offset-4 hover:underline">
                  Open account
                </Link>
              </>
            ) : null}
          </p>
          <p className="text-xs text-muted-foreground">
            {closed ? "Closed" : "Open"} · {c.assignee ? `Assigned to ${mine ? "you" : c.assignee.email}` : "Unassigned"}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {!mine ? (
            <PendingButton type="button" size="sm" variant="outline" pending={assign.isPending} onClick={onAssign}>
              Assign to me
            </PendingButton>
          ) : null}
          {!closed ? (
            <PendingButton type="button" size="sm" variant="outline" pending={close.isPending} onClick={onClose}>
              Close conversation
            </PendingButton>
          ) : null}
        </div>
      </div>

      <div
        role="log"
        aria-label="Messages"
        tabIndex={0}
        className="max-h-[28rem] overflow-y-auto rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        data-testid="thread"
      >
        <ol className="space-y-3">
          {c.messages.map((m) => (
            <li key={m.id} className={cn("flex", m.from === "team" ? "justify-end" : "justify-start")}>
              <div
                className={cn(
                  "max-w-[85%] rounded-lg px-3 py-2 text-sm",
                  m.from === "team" ? "bg-primary text-primary-foreground" : "bg-muted",
                )}
              >
                <p className="text-xs font-medium opacity-80">
                  {m.from === "team" ? `${m.authorName} (team)` : m.authorName} · {formatWhen(m.createdAt)}
                </p>
                <p className="whitespace-pre-wrap break-words">{m.body}</p>
              </div>
            </li>
          ))}
        </ol>
      </div>

      <form onSubmit={onReply} noValidate className="space-y-2">
        <Field id="reply-body" label="Reply" error={error ?? undefined}>
          <Textarea rows={3} value={body} onChange={(e) => setBody(e.target.value)} {...fieldA11y("reply-body", error ?? undefined)} />
        </Field>
        <div className="flex justify-end">
          <PendingButton type="submit" pending={reply.isPending}>
            {reply.isPending ? "Sending..." : "Send reply"}
          </PendingButton>
        </div>
      </form>
    </section>
  );
}

function ContactView({ id }: { id: number }) {
  const msg = useContactMessage(id);
  const close = useCloseItem({ type: "contact", id });
  const heading = useFocusOnLoad(!!msg.data);
  if (msg.isPending) return <Loading label="Loading the message" />;
  if (msg.isError && !msg.data)
    return <AdminLoadError error={msg.error} fallback="The message could not be loaded." onRetry={() => void msg.refetch()} />;
  const m = msg.data;
  const name = [m.firstName, m.lastName].filter(Boolean).join(" ");
  const closed = m.status === "closed";
  return (
    <section aria-labelledby="contact-heading" className="space-y-4 rounded-lg border bg-card p-4 sm:p-6" data-testid="contact-message">
      <div className="min-w-0">
        <h2 id="contact-heading" ref={heading} className="break-words text-lg font-semibold focus:outline-none">
          {m.subject || "Contact form message"}
        </h2>
        <p className="break-words text-sm text-muted-foreground">
          {name ? `${name} · ` : ""}
          {m.email}
          {m.company ? ` · ${m.company}` : ""}
        </p>
        <p className="text-xs text-muted-foreground">
          {formatWhen(m.createdAt)} · {closed ? "Closed" : "Open"}
        </p>
      </div>
      <p className="whitespace-pre-wrap break-words rounded-md bg-muted p-3 text-sm">{m.message}</p>
      <div className="flex flex-wrap gap-2">
        {m.accountId ? (
          <Button asChild size="sm" variant="outline">
            <Link to={`/admin/accounts/${m.accountId}`}>Open account</Link>
          </Button>
        ) : null}
        {m.email ? (
          <Button asChild size="sm" variant="outline">
            <a href={`mailto:${m.email}?subject=${encodeURIComponent(`Re: ${m.subject || "your message"}`)}`}>
              <Mail aria-hidden="true" />
              Reply by email
            </a>
          </Button>
        ) : null}
        {!closed ? (
          <PendingButton
            type="button"
            size="sm"
            variant="outline"
            pending={close.isPending}
            onClick={() =>
              close.mutate(undefined, {
                onSuccess: () => toast({ title: "Message closed" }),
                onError: (err) => toast({ variant: "destructive", title: "Not closed", description: errorMessage(err, "Please try again.") }),
              })
            }
          >
            <MessageSquare aria-hidden="true" />
            Close message
          </PendingButton>
        ) : null}
      </div>
    </section>
  );
}

export const AdminSupportPage = operatorsOnly(AdminSupportPageContent, "AdminSupportPage");
