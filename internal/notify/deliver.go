package notify

import (
	"context"
	"log/slog"
	"time"

	"valuator/internal/mail"
)

// Outbox is the queue of mail (implemented by internal/store).
type Outbox interface {
	// ClaimMail takes up to limit mails due at now for lease: each one's next attempt is moved to now+lease and its
	// attempts counted, so that another sender (or a retry of this one) does not send it too, and a sender that
	// dies holding it gives it back when the lease ends.
	ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Queued, error)
	// MailDone records a mail's end: "sent", or why it was not ("off", "closed", "failed: ...").
	MailDone(ctx context.Context, id int64, outcome string, at time.Time) error
	// MailRetry puts a mail back to be tried again at next, with the problem of this attempt.
	MailRetry(ctx context.Context, id int64, problem string, next time.Time) error
}

// Delivery tunables.
const (
	// Lease is how long a claimed mail is left to its sender before another may take it.
	Lease = 5 * time.Minute
	// MaxAttempts is how often a mail is tried before it is given up: with the backoff below, a mail server may be
	// down for three days without an email being lost.
	MaxAttempts = 80
	// Stale is the age past which an alert, a batch result or a weekly report is no longer worth sending (it is
	// marked "expired"): news of a sign-in or a job a week late helps nobody. Contact messages and the emails about
	// money (a receipt, a refund, a plan change) never go stale: they are still true a week later.
	Stale = 7 * 24 * time.Hour
	// claimBatch is how many mails one claim takes.
	claimBatch = 50
)

// Backoff is the wait after a failed attempt (attempts counts it): 1 minute, doubling, at most an hour.
func Backoff(attempts int) time.Duration {
	d := time.Minute
	for i := 1; i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// Deliverer sends the outbox's due mail.
type Deliverer struct {
	Outbox Outbox
	Sender mail.Sender
	Links  Links
	Now    func() time.Time // optional: time.Now
	Log    *slog.Logger     // optional: none
}

// Deliver sends every due mail and returns how many were sent. A mail whose switch is off (or whose account is
// closed) is marked so and not sent; one the server refuses is tried again later.
func (d *Deliverer) Deliver(ctx context.Context) (sent int, err error) {
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for {
		batch, err := d.Outbox.ClaimMail(ctx, now(), Lease, claimBatch)
		if err != nil {
			return sent, err
		}
		for _, q := range batch {
			outcome := ""
			switch {
			case q.UserID != 0 && !q.Open:
				outcome = "closed"
			case q.Topic != "" && !q.Wanted:
				outcome = "off"
			case q.Topic != "" && !moneyKinds[q.Kind] && now().Sub(q.CreatedAt) > Stale:
				outcome = "expired"
			}
			if outcome == "" {
				msg, rerr := Render(q, d.Links)
				if rerr != nil {
					// A mail that cannot be rendered never will be: it is given up at once.
					log.Error("email cannot be rendered", "mail_id", q.ID, "kind", q.Kind, "err", rerr)
					outcome = "failed: " + rerr.Error()
				} else if serr := d.Sender.Send(ctx, msg); serr != nil {
					if ctx.Err() != nil {
						// Stopping: the mail goes back to the outbox when its lease ends.
						return sent, ctx.Err()
					}
					if q.Attempts < MaxAttempts {
						log.Warn("email not delivered; it will be tried again", "mail_id", q.ID, "kind", q.Kind,
							"attempt", q.Attempts, "err", serr)
						if err := d.Outbox.MailRetry(ctx, q.ID, serr.Error(), now().Add(Backoff(q.Attempts))); err != nil {
							return sent, err
						}
						continue
					}
					log.Error("email given up", "mail_id", q.ID, "kind", q.Kind, "attempts", q.Attempts, "err", serr)
					outcome = "failed: " + serr.Error()
				} else {
					outcome = "sent"
					sent++
				}
			}
			if err := d.Outbox.MailDone(ctx, q.ID, outcome, now()); err != nil {
				return sent, err
			}
		}
		if len(batch) < claimBatch {
			return sent, nil
		}
	}
}
