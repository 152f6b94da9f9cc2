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
	// PostCustomerMessage appends to the account's open conversation, or opens one.
	PostCustomerMessage(ctx context.Context, userID int64, body string, at time.Time) (Message, error)
	// CustomerMessagesAfter is the messages after id of the account's current conversation (a poll): it records
	// the look and marks the team's messages read.
	CustomerMessagesAfter(ctx context.Context, userID, after int64, at time.Time, max int) ([]Message, error)
	Inbox(ctx context.Context, status string, offset, limit int64) ([]InboxItem, int64, error)
	// Conversation is one conversation (ErrNotFound); markRead marks the customer's messages read by the team.
	Conversation(ctx context.Context, id int64, markRead bool, at time.Time, max int) (Conversation, error)
	// Reply appends the team's message and audits it; when the customer has not looked since awayBefore, the
	// mail is queued in the same transaction. ErrClosed for a closed conversation.
	Reply(ctx context.Context, adminID, id int64, body string, at, awayBefore time.Time, mail ReplyMail) (Message, bool, error)
	Assign(ctx context.Context, adminID, id int64, at time.Time) error
	CloseConversation(ctx context.Context, adminID, id int64, at time.Time) error
	ContactMessage(ctx context.Context, id int64, markRead bool, at time.Time) (ContactMessage, error)
	CloseContact(ctx context.Context, adminID, id int64, at time.Time) error
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

func checkBody(body string) (string, error) {
	b := strings.TrimSpace(body)
	n := utf8.RuneCountInString(b)
	if n < 1 || n > MaxBody {
		return "", apperr.Invalid("body", fmt.Sprintf("body must be 1 to %d characters", MaxBody))
	}
	if p := text.Problem(b); p != "" {
		return "", apperr.Invalid("body", "body "+p)
	}
	return b, nil
}

// Post adds the customer's message to their open conversation, or opens one.
func (s *Service) Post(ctx context.Context, u account.User, in BodyInput) (Message, error) {
	body, err := checkBody(in.Body)
	if err != nil {
		return Message{}, err
	}
	m, err := s.Store.PostCustomerMessage(ctx, u.ID, body, s.now())
	return m, storeErr(err)
}

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

// Conversation opens a conversation for an operator, marking the customer's messages read.
func (s *Service) Conversation(ctx context.Context, id int64) (Conversation, error) {
	c, err := s.Store.Conversation(ctx, id, true, s.now(), MaxMessages)
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
	return s.Conversation(ctx, id)
}

// Close closes the conversation; the customer's next message opens a new one.
func (s *Service) Close(ctx context.Context, admin account.User, id int64) (Conversation, error) {
	if err := s.Store.CloseConversation(ctx, admin.ID, id, s.now()); err != nil {
		return Conversation{}, storeErr(err)
	}
	return s.Conversation(ctx, id)
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
