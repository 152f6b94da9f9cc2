// Package jobs runs the durable background work of batch valuation on River, in the same database as the store:
// valuing the rows of a batch job, the signed webhook when a job finishes, and the daily clean-up of old results.
// `valuator serve` runs the workers in process; `valuator worker` runs them alone.
//
// Exactly once: a row leaves "pending" only in the store transaction that saves its result and charges it
// (store.SaveBatchChunk), so a worker killed at any point leaves every row either valued and charged or pending,
// and whoever resumes the job values only the pending ones.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/billing"
	"valuator/internal/mail"
	"valuator/internal/metrics"
	"valuator/internal/notify"
	"valuator/internal/portfolio"
	"valuator/internal/store"
	"valuator/internal/valuation"
)

// Valuer values one address (valuation.Service).
type Valuer interface {
	Lookup(ctx context.Context, in valuation.Input) (*valuation.Result, error)
}

// Config wires the queue.
type Config struct {
	Store  *store.DB
	Valuer Valuer // nil: this client only queues work (no workers)
	Logger *slog.Logger
	Now    func() time.Time
	// BaseURL makes the download link in webhooks absolute.
	BaseURL string
	// Workers runs the workers (serve and worker); false only queues.
	Workers bool
	// Slice is how long one run of a batch job lasts before it hands over to the next run (default 10 s). Short
	// runs let a dead worker's job be rescued soon without ever rescuing a live one.
	Slice time.Duration
	// RescueAfter is when a running job whose worker stopped answering is run again (default 2 minutes; must
	// exceed Slice by far).
	RescueAfter time.Duration
	// PollInterval is how often idle workers look for new jobs (default 200 ms).
	PollInterval time.Duration
	// Webhooks sends webhooks (nil: a client with a 10 s timeout that refuses private addresses).
	Webhooks *http.Client
	// Billing closes billing periods in a periodic job (nil: no such job; `serve` and `worker` always set it).
	Billing *billing.Service
	// Mailer sends balance alerts and the mail outbox (sign-in alerts, batch results, weekly reports, contact
	// messages) in periodic jobs, and the weekly reports are queued by one (nil: no such jobs; `serve` and `worker`
	// always set it). It should deliver before it returns (not mail.Async): a failed delivery is then tried again.
	Mailer mail.Sender
	// Unsubscribe signs the unsubscribe links of the emails (nil: emails carry none; `serve` and `worker` set it).
	Unsubscribe *notify.Signer
	// Portfolios revalues portfolios in a monthly periodic job (nil: no such job; `serve` and `worker` set it).
	Portfolios *portfolio.Service
	// Metrics counts the batch rows saved and their credits (optional).
	Metrics *metrics.Metrics
	// Trainer trains the partitions of the market in jobs (training.go; nil: this client takes no training jobs,
	// though it may queue them).
	Trainer Trainer
}

// Queue is the job queue.
type Queue struct {
	client *river.Client[*sql.Tx]
	cfg    Config
	// stopping is set by Stop: running batch jobs then hand their run back at the end of the chunk they are on.
	stopping atomic.Bool
}

// New makes the queue on the store's database.
func New(cfg Config) (*Queue, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Slice <= 0 {
		cfg.Slice = 10 * time.Second
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = 2 * time.Minute
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 200 * time.Millisecond
	}
	if cfg.Webhooks == nil {
		cfg.Webhooks = webhookClient(false)
	}
	q := &Queue{cfg: cfg}
	rc := &river.Config{
		Logger:            riverLogger(cfg.Logger),
		FetchPollInterval: cfg.PollInterval,
		FetchCooldown:     min(cfg.PollInterval, 100*time.Millisecond),
		// A run lasts one slice; the timeout only catches a run that hangs. A job still "running" well past
		// both is one whose worker died: it is run again.
		JobTimeout:           3 * cfg.Slice,
		RescueStuckJobsAfter: max(cfg.RescueAfter, 4*cfg.Slice),
		MaxAttempts:          10,
	}
	if cfg.Workers {
		if cfg.Valuer == nil {
			return nil, errors.New("jobs: workers need a valuer")
		}
		workers := river.NewWorkers()
		river.AddWorker(workers, &batchWorker{q: q})
		river.AddWorker(workers, &webhookWorker{q: q})
		river.AddWorker(workers, &cleanupWorker{q: q})
		river.AddWorker(workers, &periodWorker{q: q})
		river.AddWorker(workers, &alertWorker{q: q})
		river.AddWorker(workers, &mailWorker{q: q})
		river.AddWorker(workers, &weeklyWorker{q: q})
		river.AddWorker(workers, &retentionWorker{q: q})
		river.AddWorker(workers, &portfolioWebhookWorker{q: q})
		if cfg.Portfolios != nil {
			river.AddWorker(workers, &revalueWorker{q: q})
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: 2},
			queueWebhooks:      {MaxWorkers: 4},
		}
		if cfg.Trainer != nil {
			river.AddWorker(workers, &trainWorker{q: q})
			rc.Queues[queueTraining] = river.QueueConfig{MaxWorkers: 1}
		}
		rc.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
				func() (river.JobArgs, *river.InsertOpts) { return cleanupArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			// Closed accounts erased after their retention (retention.go).
			river.NewPeriodicJob(river.PeriodicInterval(RetentionInterval),
				func() (river.JobArgs, *river.InsertOpts) { return retentionArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
		}
		if cfg.Portfolios != nil {
			rc.PeriodicJobs = append(rc.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(RevalueInterval),
				func() (river.JobArgs, *river.InsertOpts) { return revalueArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}))
		}
		if cfg.Billing != nil {
			rc.PeriodicJobs = append(rc.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(PeriodInterval),
				func() (river.JobArgs, *river.InsertOpts) { return periodArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}))
		}
		if cfg.Mailer != nil {
			rc.PeriodicJobs = append(rc.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(AlertInterval),
				func() (river.JobArgs, *river.InsertOpts) { return alertArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
				river.NewPeriodicJob(river.PeriodicInterval(MailInterval),
					func() (river.JobArgs, *river.InsertOpts) { return mailArgs{}, nil },
					&river.PeriodicJobOpts{RunOnStart: true}),
				// On start too, so that a report whose Monday run was missed (no instance up) still goes out; the
				// report's unique key keeps it to once a week.
				river.NewPeriodicJob(WeeklySchedule{},
					func() (river.JobArgs, *river.InsertOpts) { return weeklyArgs{}, nil },
					&river.PeriodicJobOpts{RunOnStart: true}))
		}
	}
	client, err := river.NewClient(cfg.Store.QueueDriver(), rc)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	q.client = client
	return q, nil
}

// Start starts the workers (no-op for a queue-only client). Cancelling ctx stops them abruptly (River cancels the
// running jobs' contexts); a process that stops on purpose starts them with a context that outlives its drain and
// calls Stop instead.
func (q *Queue) Start(ctx context.Context) error {
	if !q.cfg.Workers {
		return nil
	}
	return q.client.Start(ctx)
}

// Stop stops taking jobs and lets the running ones end: a batch job ends its run at the end of the chunk it is
// valuing (saved and charged in one transaction) and hands the rest back to the queue (JobSnooze(0)), where
// another process takes it at once. If ctx ends first, the running jobs are cancelled: their unsaved chunk stays
// pending and the job is run again after RescueAfter, so a row is never lost nor charged twice either way.
func (q *Queue) Stop(ctx context.Context) error {
	if !q.cfg.Workers {
		return nil
	}
	q.stopping.Store(true)
	err := q.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		cut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = q.client.StopAndCancel(cut)
	}
	return err
}

const queueWebhooks = "webhooks"

// EnqueueBatch queues the valuation of a batch job inside the store's transaction (a batch.Enqueue). It is not
// deduplicated: a retry right after a run ended may find that run's queue entry not yet marked done, and must still
// be queued. Two runs on one job are harmless (a row is saved and charged by whichever saves it first), and a run
// that finds its job not processing simply ends.
func (q *Queue) EnqueueBatch(ctx context.Context, tx *sql.Tx, jobID int64) error {
	_, err := q.client.InsertTx(ctx, tx, batchArgs{JobID: jobID}, nil)
	return err
}

// enqueueWebhook queues a job's webhook inside the transaction that finishes the job.
func (q *Queue) enqueueWebhook(ctx context.Context, tx *sql.Tx, jobID int64) error {
	_, err := q.client.InsertTx(ctx, tx, webhookArgs{JobID: jobID}, &river.InsertOpts{Queue: queueWebhooks, MaxAttempts: 8})
	return err
}
