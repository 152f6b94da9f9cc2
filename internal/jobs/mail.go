package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/mail"
	"valuator/internal/notify"
	"valuator/internal/store"
)

// The account's emails (notify) are rows of the mail outbox, queued in the transactions that decide them; these
// periodic jobs send them (mail) and queue the weekly reports (weekly). Like the billing jobs, they run on River's
// elected leader, and are idempotent besides: a mail is claimed before it is sent, and a weekly report has one
// unique key per account and week in the database, so several instances, overlaps and retries send nothing twice.

// MailInterval is how often the outbox is sent: a contact message or a sign-in alert reaches its inbox within
// about this long (when the mail server is up).
const MailInterval = 30 * time.Second

// MailRetention is how long a sent (or given up) mail stays in the outbox before it is deleted.
const MailRetention = 30 * 24 * time.Hour

// TopEndpoints is how many endpoints a weekly report lists.
const TopEndpoints = 3

type mailArgs struct{}

func (mailArgs) Kind() string { return "mail_outbox" }

type mailWorker struct {
	river.WorkerDefaults[mailArgs]
	q *Queue
}

// Work sends the due mail and deletes mail dealt with long ago.
func (w *mailWorker) Work(ctx context.Context, _ *river.Job[mailArgs]) error {
	cfg := w.q.cfg
	sent, err := DeliverMail(ctx, cfg.Store, cfg.Mailer, w.q.links(), cfg.Now)
	if sent > 0 {
		cfg.Logger.Info("emails sent", "count", sent)
	}
	if err != nil {
		return err
	}
	_, err = cfg.Store.PurgeMail(ctx, cfg.Now().Add(-MailRetention))
	return err
}

// links are the links of the queue's emails.
func (q *Queue) links() notify.Links {
	return notify.Links{BaseURL: q.cfg.BaseURL, Signer: q.cfg.Unsubscribe}
}

// DeliverMail sends every due mail of the outbox through sender (see notify.Deliverer) and returns how many were
// sent.
func DeliverMail(ctx context.Context, st *store.DB, sender mail.Sender, links notify.Links, now func() time.Time) (int, error) {
	d := &notify.Deliverer{Outbox: st, Sender: sender, Links: links, Now: now}
	return d.Deliver(ctx)
}

type weeklyArgs struct{}

func (weeklyArgs) Kind() string { return "weekly_reports" }

type weeklyWorker struct {
	river.WorkerDefaults[weeklyArgs]
	q *Queue
}

// Work queues the weekly reports that are due; the mail job sends them.
func (w *weeklyWorker) Work(ctx context.Context, _ *river.Job[weeklyArgs]) error {
	n, err := QueueWeeklyReports(ctx, w.q.cfg.Store, w.q.cfg.Now())
	if n > 0 {
		w.q.cfg.Logger.Info("weekly reports queued", "count", n)
	}
	return err
}

// WeeklySchedule runs the weekly report job on Mondays at 08:00 UTC (a river.PeriodicSchedule).
type WeeklySchedule struct{}

// Next is the first Monday 08:00 UTC after current.
func (WeeklySchedule) Next(current time.Time) time.Time { return notify.NextReportTime(current) }

// QueueWeeklyReports queues the report of the latest week that is due at now (notify.ReportWeek) for every open
// account with the weekly report on and any activity that week, and returns how many it queued. An account's report
// of a week is queued once, however often (or on however many instances at once) this runs: its key is unique.
func QueueWeeklyReports(ctx context.Context, st *store.DB, now time.Time) (int, error) {
	start, end := notify.ReportWeek(now)
	queued := 0
	var after int64
	for {
		ids, err := st.WeeklySubscribers(ctx, after, 500)
		if err != nil {
			return queued, err
		}
		for _, id := range ids {
			after = id
			r, err := st.WeeklyActivity(ctx, id, start, end, TopEndpoints)
			if err != nil {
				return queued, err
			}
			if r.Calls == 0 {
				continue // a quiet week gets no email
			}
			ok, err := st.QueueMail(ctx, notify.NewWeeklyReport(id, r, now))
			if err != nil {
				return queued, err
			}
			if ok {
				queued++
			}
		}
		if len(ids) < 500 {
			return queued, nil
		}
	}
}
