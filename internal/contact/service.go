package contact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"valuator/internal/account"
	"valuator/internal/billing"
	"valuator/internal/notify"
	"valuator/internal/ratelimit"
)

// Store is what the contact form needs from the database (internal/store).
type Store interface {
	// CreateContactMessage stores a message and, in the same transaction, queues the mails that mails gives for
	// its id, so that a stored message always reaches a person.
	CreateContactMessage(ctx context.Context, m Message, mails ...func(id int64) []notify.Mail) (int64, error)
}

// ackLimit caps the acknowledgements one address gets: the contact form takes any address, and must not be a way
// to fill a stranger's inbox. Past it, the message still reaches support; only the acknowledgement is left out.
var ackLimit = ratelimit.Per(3, 24*time.Hour)

// Service takes the messages of the contact form.
type Service struct {
	store   Store
	limiter ratelimit.Limiter
	log     *slog.Logger
	now     func() time.Time
	support string
}

// NewService returns the contact service. limiter counts acknowledgements per address (the server's limiter of
// public forms); support is the address messages go to; now is optional (time.Now).
func NewService(st Store, limiter ratelimit.Limiter, log *slog.Logger, now func() time.Time, support string) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, limiter: limiter, log: log, now: now, support: support}
}

// Send checks and stores a message from ip. userID and plan are the signed-in sender's (0 and "" signed out): a
// signed-in sender is linked to their account, and a plan with priority support marks the message "Priority"
// where support sorts its inbox. The message is mailed to the support address (and acknowledged to the sender) by
// the mail job, queued in the transaction that stores it: the answer never waits on the mail server.
func (s *Service) Send(ctx context.Context, in Input, userID int64, plan, ip string) (int64, error) {
	m, err := in.Validate(account.ValidEmail)
	if err != nil {
		return 0, err
	}
	m.UserID, m.IP, m.CreatedAt = userID, ip, s.now()
	var p billing.Plan
	if userID != 0 {
		p = billing.Get(plan)
	}
	c := notify.ContactSupport{UserID: m.UserID, Plan: p.Name, Priority: m.UserID != 0 && p.PrioritySupport,
		FirstName: m.FirstName, LastName: m.LastName, Email: m.Email, Company: m.Company, Subject: m.Subject,
		Message: m.Message}
	ack := s.mayAcknowledge(ctx, m.Email)
	id, err := s.store.CreateContactMessage(ctx, m, func(id int64) []notify.Mail {
		return notify.ContactMails(id, c, m.CreatedAt, s.support, ack)
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("contact message received", "id", id, "subject", m.Subject, "user_id", m.UserID)
	return id, nil
}

// mayAcknowledge reports whether the address may get one more acknowledgement today (ackLimit). A failing limiter
// lets it through: an outage must not cost senders their acknowledgement.
func (s *Service) mayAcknowledge(ctx context.Context, email string) bool {
	sum := sha256.Sum256([]byte(strings.ToLower(email)))
	res, err := s.limiter.Allow(ctx, "contact-ack:"+hex.EncodeToString(sum[:]), ackLimit)
	if err != nil {
		s.log.Error("contact acknowledgement limiter", "err", err)
		return true
	}
	return res.Allowed
}
