package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/billing"
	"valuator/internal/mail"
	"valuator/internal/notify"
	"valuator/internal/store"
)

// The billing jobs are River periodic jobs: River runs a periodic job only on its elected leader, so one instance
// runs them however many serve, and each is idempotent besides (a period is closed under its account's row lock
// only while its end is still due; an alert is marked sent once), so an overlap or a retry changes nothing twice.

// PeriodInterval is how often due billing periods are closed (and open payments expired). A period closes within
// this much of its end, an unpaid payment within this much of its 24 hours.
const PeriodInterval = 5 * time.Minute

// AlertInterval is how often queued balance alerts are mailed.
const AlertInterval = time.Minute

type periodArgs struct{}

func (periodArgs) Kind() string { return "billing_periods" }

type periodWorker struct {
	river.WorkerDefaults[periodArgs]
	q *Queue
}

// Work closes every billing period that has ended, closes the open payments that are due and makes the provider
// calls closed payments owe (Service.Housekeep).
func (w *periodWorker) Work(ctx context.Context, _ *river.Job[periodArgs]) error {
	res, err := w.q.cfg.Billing.Housekeep(ctx)
	if res != (billing.HousekeepResult{}) {
		w.q.cfg.Logger.Info("billing housekeeping", "periods_closed", res.Periods, "payments_closed", res.Payments,
			"provider_calls", res.ProviderCalls)
	}
	return err
}

type alertArgs struct{}

func (alertArgs) Kind() string { return "billing_alerts" }

type alertWorker struct {
	river.WorkerDefaults[alertArgs]
	q *Queue
}

// Work mails the queued alerts.
func (w *alertWorker) Work(ctx context.Context, _ *river.Job[alertArgs]) error {
	_, err := SendAlerts(ctx, w.q.cfg.Store, w.q.cfg.Mailer, w.q.links(), w.q.cfg.Now())
	return err
}

// SendAlerts mails every queued balance alert whose user's settings ask for it ("Low balance alerts" on; "Email
// notifications" governs other emails) and marks each one dealt with: "sent", "off" (not wanted) or the delivery
// error. Each alert carries the link, and the List-Unsubscribe headers, that turn the usage alerts off. It returns
// how many were sent.
func SendAlerts(ctx context.Context, st *store.DB, sender mail.Sender, links notify.Links, now time.Time) (int, error) {
	sent := 0
	for {
		alerts, err := st.PendingAlerts(ctx, 100)
		if err != nil || len(alerts) == 0 {
			return sent, err
		}
		for _, a := range alerts {
			outcome := "off"
			if a.Wanted {
				subject, text := billing.AlertMail(a.Kind, a.FullName, a.Balance, billing.Get(a.Plan), a.OverageLimitCents,
					links.BaseURL)
				if page, _ := links.Unsubscribe(a.UserID, notify.TopicUsage); page != "" {
					text += "To stop these emails, open: " + page + "\n"
				}
				outcome = "sent"
				msg := mail.Message{To: a.Email, Subject: subject, Text: text, Headers: links.Headers(a.UserID, notify.TopicUsage)}
				if err := sender.Send(ctx, msg); err != nil {
					outcome = fmt.Sprintf("failed: %v", err)
				} else {
					sent++
				}
			}
			if err := st.MarkAlert(ctx, a.ID, outcome, now); err != nil {
				return sent, err
			}
		}
		if len(alerts) < 100 {
			return sent, nil
		}
	}
}
