// Package support is the dashboard's live support chat and the operators' inbox (issue 27): a customer writes to
// the team from any screen and polls for answers while the panel is open; operators see every conversation and
// every contact-form message in one inbox, reply, take a conversation and close it. A reply to a customer who is
// not looking (no poll for OfflineAfter) is also emailed through the mail outbox. The database work goes through
// Store (internal/store); the operators' actions are audited like every other (internal/admin).
package support

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"valuator/internal/account"
	"valuator/internal/apperr"
	"valuator/internal/billing"
	"valuator/internal/notify"
	"valuator/internal/officehours"
	"valuator/internal/text"
)

// Tunables.
const (
	// MaxBody is the longest message.
	MaxBody = 4000
	// OfflineAfter: a customer who has not polled the conversation for this long is away, and a reply is emailed.
	OfflineAfter = 2 * time.Minute
	// MaxMessages is the most messages one answer carries (a conversation's newest).
	MaxMessages = 500
	previewLen  = 140
)

// What one account may write (issue 36, M-3: one free account posted 300 messages of 4,000 characters in 0.9 s,
// every poll then carried 1.3 MB and the operators' inbox was buried). A person chatting writes a few lines a
// minute; 10 a minute leaves room for quick short lines, and 200 a day for a long day of back and forth, while a
// script is stopped after 10 and, over a day, cannot post more than 200 messages (800,000 characters) however it
// paces itself. The operators' replies are not limited.
//
// The limits are counted from the stored messages (Store.PostCustomerMessage reads them and stores the message in
// one transaction, under the account's row lock) rather than with internal/ratelimit: the database is the one
// thing every instance shares and that survives a restart, so the count is exact however many instances run (the
// in-memory limiter is per process, and Redis is optional), parallel posts cannot all slip under the limit, and a
// refused message, which is not stored, does not count. It costs one query of at most MessagesPerDay rows a post.
const (
	MessagesPerMinute = 10
	MessagesPerDay    = 200
	// Day is the window MessagesPerDay counts in: the last 24 hours, not the calendar day (no burst at midnight).
	Day = 24 * time.Hour
)

// How big one conversation may grow. Without a cap a conversation grows for as long as nobody closes it, and
// every panel and every operator who opens it reads it. A customer's message is refused (409 conversation_full,
// naming body) once the open conversation holds MaxConversationMessages messages, or when it would take the
// characters of its messages past MaxConversationChars; nothing is deleted (the operators keep the whole history).
// The team's replies are never refused, so a full conversation can still be answered; when an operator closes it,
// the customer's next message opens a new one. MaxConversationMessages is MaxMessages, so one answer (the panel,
// the operator's view) holds the whole of a conversation the customer filled.
const (
	MaxConversationMessages = MaxMessages
	MaxConversationChars    = 100_000
)

// Who wrote a message.
const (
	FromCustomer = "customer"
	FromTeam     = "team"
)

// Statuses of conversations and contact messages in the inbox.
const (
	StatusOpen   = "open"
	StatusClosed = "closed"
)

// Errors the store answers.
var (
	ErrNotFound = errors.New("support: not found")
	// ErrClosed: the conversation is closed.
	ErrClosed = errors.New("support: conversation closed")
)

// Message is one message of a conversation.
type Message struct {
	ID         int64     `json:"id"`
	From       string    `json:"from"`
	AuthorName string    `json:"authorName"`
	Body       string    `json:"body"`
	CreatedAt  time.Time `json:"createdAt"`
}

// Person is an operator as the inbox names them.
type Person struct {
	ID    int64  `json:"id"`
	Email string `json:"email"`
}

// Conversation is one conversation with its messages.
type Conversation struct {
	ID        int64     `json:"id"`
	Status    string    `json:"status"`
	AccountID int64     `json:"accountId"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Assignee  *Person   `json:"assignee"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Messages  []Message `json:"messages"`
}

// CustomerConversation is a conversation as its customer sees it.
type CustomerConversation struct {
	ID       int64     `json:"id"`
	Status   string    `json:"status"`
	Messages []Message `json:"messages"`
}

// InboxItem is a conversation or a contact-form message in the operators' inbox.
type InboxItem struct {
	Type      string    `json:"type"`
	ID        int64     `json:"id"`
	AccountID *int64    `json:"accountId"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Subject   *string   `json:"subject"`
	Preview   string    `json:"preview"`
	Status    string    `json:"status"`
	Unread    bool      `json:"unread"`
	Assignee  *Person   `json:"assignee"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ContactMessage is a contact-form message as the inbox opens it.
type ContactMessage struct {
	ID        int64     `json:"id"`
	AccountID *int64    `json:"accountId"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	Email     string    `json:"email"`
	Company   string    `json:"company"`
	Subject   string    `json:"subject"`
	Message   string    `json:"message"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
}

// ReplyMail makes the email of a reply to an away customer (the store calls it with the stored message's id).
type ReplyMail func(messageID int64) notify.Mail

// Store is what the support rules need from the database.
type Store interface {
	// CustomerConversation is the account's open conversation, else its latest one (nil: none), and records that
	// the customer looked at it (seen) and read the team's messages (when markRead).
	CustomerConversation(ctx context.Context, userID int64, seen time.Time, markRead bool, max int) (*CustomerConversation, error)
	// PostCustomerMessage appends to the account's open conversation, or opens one. Under the account's row lock,
	// in the same transaction, it first reads what the account has written (Written) and calls admit with it; an
	// error from admit is returned as it is and nothing is stored.
	PostCustomerMessage(ctx context.Context, userID int64, body string, at time.Time, admit func(Written) error) (Message, error)
	// CustomerMessagesAfter is the messages after id of the account's current conversation (a poll): it records
	// the look and marks the team's messages read.
	CustomerMessagesAfter(ctx context.Context, userID, after int64, at time.Time, max int) ([]Message, error)
	Inbox(ctx context.Context, status string, offset, limit int64) ([]InboxItem, int64, error)
	// Conversation is one conversation (ErrNotFound) with its messages after id after (0: all); markRead marks the
	// customer's messages read by the team.
	Conversation(ctx context.Context, id, after int64, markRead bool, at time.Time, max int) (Conversation, error)
	// Reply appends the team's message and audits it; when the customer has not looked since awayBefore, the
	// mail is queued in the same transaction. ErrClosed for a closed conversation.
	Reply(ctx context.Context, adminID, id int64, body string, at, awayBefore time.Time, mail ReplyMail) (Message, bool, error)
	Assign(ctx context.Context, adminID, id int64, at time.Time) error
	CloseConversation(ctx context.Context, adminID, id int64, at time.Time) error
	ContactMessage(ctx context.Context, id int64, markRead bool, at time.Time) (ContactMessage, error)
	CloseContact(ctx context.Context, adminID, id int64, at time.Time) error
}

// Written is what an account has written, as the store reads it before a customer's message is stored.
type Written struct {
	// Recent are the times of the account's messages (in any of its conversations) of the last Day, newest first:
	// at most MessagesPerDay of them, which is all the limits need.
	Recent []time.Time
	// Messages and Chars are the open conversation's size: its messages (the team's too) and their characters
	// (0 and 0 when there is none, and the message opens one).
	Messages, Chars int
}

// Service implements the support rules.
type Service struct {
	Store Store
	Hours officehours.Hours
	Now   func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// Panel is GET /api/support: the office hours and the customer's conversation.
type Panel struct {
	Hours        officehours.Status    `json:"hours"`
	Conversation *CustomerConversation `json:"conversation"`
}

// Panel is what the support panel shows the customer; opening it counts as looking at the conversation.
func (s *Service) Panel(ctx context.Context, userID int64) (Panel, error) {
	now := s.now()
	c, err := s.Store.CustomerConversation(ctx, userID, now, true, MaxMessages)
	if err != nil {
		return Panel{}, storeErr(err)
	}
	return Panel{Hours: s.Hours.StatusAt(now), Conversation: c}, nil
}

// BodyInput is the body of a message.
type BodyInput struct {
	Body string `json:"body"`
}

// checkBody validates a message, the customer's or an operator's: 1 to MaxBody characters of text a person reads
// as it was stored, without the text-direction controls names refuse too (text.MessageProblem, issue 36, L-3).
func checkBody(body string) (string, error) {
	b := strings.TrimSpace(body)
	n := utf8.RuneCountInString(b)
	if n < 1 || n > MaxBody {
		return "", apperr.Invalid("body", fmt.Sprintf("body must be 1 to %d characters", MaxBody))
	}
	if p := text.MessageProblem(b); p != "" {
		return "", apperr.Invalid("body", "body "+p)
	}
	return b, nil
}

// Post adds the customer's message to their open conversation, or opens one, unless the account is over its
// limits (429) or the conversation is full (409).
func (s *Service) Post(ctx context.Context, u account.User, in BodyInput) (Message, error) {
	body, err := checkBody(in.Body)
	if err != nil {
		return Message{}, err
	}
	now := s.now()
	m, err := s.Store.PostCustomerMessage(ctx, u.ID, body, now, func(w Written) error {
		if err := overLimit(w.Recent, now); err != nil {
			return err
		}
		return conversationFull(w, utf8.RuneCountInString(body))
	})
	return m, storeErr(err)
}

// overLimit is the 429 of an account that has written MessagesPerMinute messages in the last minute or
// MessagesPerDay in the last Day (recent newest first), saying when it can write again: when the oldest message
// that holds it at the limit leaves the window (of the two windows, the later).
func overLimit(recent []time.Time, now time.Time) error {
	var wait time.Duration
	var msg string
	for _, l := range []struct {
		n      int
		per    time.Duration
		window string
	}{
		{MessagesPerMinute, time.Minute, "in the last minute"},
		{MessagesPerDay, Day, "in the last 24 hours"},
	} {
		if len(recent) < l.n || !recent[l.n-1].After(now.Add(-l.per)) {
			continue
		}
		if w := recent[l.n-1].Add(l.per).Sub(now); w > wait {
			wait, msg = w, fmt.Sprintf("You have sent %d messages %s, the most the support chat takes.", l.n, l.window)
		}
	}
	if wait <= 0 {
		return nil
	}
	secs := int((wait + time.Second - 1) / time.Second)
	return apperr.RateLimited(fmt.Sprintf("%s You can write again in %s.", msg, waitText(secs)), secs)
}

// waitText is a wait in words, to the second under two minutes, else rounded up to the minute: "42 seconds",
// "18 minutes", "23 hours 41 minutes".
func waitText(secs int) string {
	if secs < 120 {
		return text.Count(secs, "second", "seconds")
	}
	mins := (secs + 59) / 60
	if mins < 120 {
		return text.Count(mins, "minute", "minutes")
	}
	h, m := mins/60, mins%60
	if m == 0 {
		return text.Count(h, "hour", "hours")
	}
	return text.Count(h, "hour", "hours") + " " + text.Count(m, "minute", "minutes")
}

// conversationFull is the 409 of a message the open conversation has no room for (MaxConversationMessages,
// MaxConversationChars).
func conversationFull(w Written, chars int) error {
	room := MaxConversationChars - w.Chars
	switch {
	case w.Messages >= MaxConversationMessages || room <= 0:
		return apperr.Conflict("conversation_full", "body", fmt.Sprintf("This conversation is full: a conversation "+
			"keeps at most %d messages and %s characters. The team can still answer it here; once they close it, "+
			"your next message starts a new conversation.", MaxConversationMessages, thousands(MaxConversationChars)))
	case chars > room:
		return apperr.Conflict("conversation_full", "body", fmt.Sprintf("body is %s characters, and this conversation "+
			"has room for %s more (a conversation keeps at most %s characters): write a shorter message.",
			thousands(chars), thousands(room), thousands(MaxConversationChars)))
	}
	return nil
}

// thousands is n with comma separators: 100,000.
func thousands(n int) string { return billing.Thousands(int64(n)) }

// After is the customer's poll: the messages after id (0: all) of their current conversation.
func (s *Service) After(ctx context.Context, userID, after int64) ([]Message, error) {
	ms, err := s.Store.CustomerMessagesAfter(ctx, userID, after, s.now(), MaxMessages)
	return ms, storeErr(err)
}

// Inbox is a page of the operators' inbox: unread first, then the most recently updated.
func (s *Service) Inbox(ctx context.Context, status string, offset, limit int64) ([]InboxItem, int64, error) {
	switch status {
	case "":
		status = StatusOpen
	case StatusOpen, StatusClosed, "all":
	default:
		return nil, 0, apperr.Invalid("status", "status must be open, closed or all")
	}
	items, total, err := s.Store.Inbox(ctx, status, offset, limit)
	return items, total, storeErr(err)
}

// Conversation opens a conversation for an operator, marking the customer's messages read: its messages after id
// after (0: all, up to MaxMessages, the newest), so that the operator's view, which reads it again every few
// seconds, asks only for what it does not hold yet.
func (s *Service) Conversation(ctx context.Context, id, after int64) (Conversation, error) {
	c, err := s.Store.Conversation(ctx, id, after, true, s.now(), MaxMessages)
	return c, storeErr(err)
}

// Reply answers a conversation; a customer who has not looked for OfflineAfter gets the reply by email too.
func (s *Service) Reply(ctx context.Context, admin account.User, id int64, in BodyInput) (Message, error) {
	body, err := checkBody(in.Body)
	if err != nil {
		return Message{}, err
	}
	now := s.now()
	author := admin.FullName
	if author == "" {
		author = "Valuator team"
	}
	m, _, err := s.Store.Reply(ctx, admin.ID, id, body, now, now.Add(-OfflineAfter), func(messageID int64) notify.Mail {
		return notify.NewSupportReply(notify.SupportReply{ConversationID: id, MessageID: messageID, Author: author,
			Body: body, At: now})
	})
	return m, storeErr(err)
}

// Assign gives the conversation to the calling operator.
func (s *Service) Assign(ctx context.Context, admin account.User, id int64) (Conversation, error) {
	if err := s.Store.Assign(ctx, admin.ID, id, s.now()); err != nil {
		return Conversation{}, storeErr(err)
	}
	return s.Conversation(ctx, id, 0)
}

// Close closes the conversation; the customer's next message opens a new one.
func (s *Service) Close(ctx context.Context, admin account.User, id int64) (Conversation, error) {
	if err := s.Store.CloseConversation(ctx, admin.ID, id, s.now()); err != nil {
		return Conversation{}, storeErr(err)
	}
	return s.Conversation(ctx, id, 0)
}

// Contact opens a contact-form message for an operator, marking it read.
func (s *Service) Contact(ctx context.Context, id int64) (ContactMessage, error) {
	m, err := s.Store.ContactMessage(ctx, id, true, s.now())
	return m, storeErr(err)
}

// CloseContact marks a contact-form message handled.
func (s *Service) CloseContact(ctx context.Context, admin account.User, id int64) (ContactMessage, error) {
	if err := s.Store.CloseContact(ctx, admin.ID, id, s.now()); err != nil {
		return ContactMessage{}, storeErr(err)
	}
	return s.Contact(ctx, id)
}

// SubjectLabel is a contact message's subject as the form showed it.
func SubjectLabel(subject string) string {
	if l := notify.ContactSubjects[subject]; l != "" {
		return l
	}
	return subject
}

// Preview is the start of a message for the inbox.
func Preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= previewLen {
		return s
	}
	return string([]rune(s)[:previewLen-1]) + "…"
}

func storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return apperr.NotFound("not_found", "No such conversation or message")
	case errors.Is(err, ErrClosed):
		return apperr.Conflict("conversation_closed", "", "This conversation is closed; the customer's next message opens a new one.")
	}
	if _, ok := apperr.As(err); ok {
		return err
	}
	return apperr.Internal(err)
}
