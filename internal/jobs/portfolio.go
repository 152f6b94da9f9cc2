package jobs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/portfolio"
	"valuator/internal/store"
)

// Portfolios (issue 40): a periodic job revalues every portfolio's homes once a month (portfolio.Service.Revalue),
// and a job per alert posts its signed webhook. The periodic job runs on River's elected leader, hourly: it does
// nothing for a portfolio whose month is done, values a month's homes in the first run of the month, and resumes a
// paused portfolio on the first run after its account can pay again. That a home is valued and charged once a month
// does not rest on the leader: the database's UNIQUE (home, month) decides, in the transaction of the charge.

// RevalueInterval is how often the portfolio job runs: a new month's revaluation starts within this much of the
// month's start, and a paused portfolio resumes within this much of credits being added.
const RevalueInterval = time.Hour

type revalueArgs struct{}

func (revalueArgs) Kind() string { return "portfolio_revaluation" }

type revalueWorker struct {
	river.WorkerDefaults[revalueArgs]
	q *Queue
}

// Work runs the month's revaluation.
func (w *revalueWorker) Work(ctx context.Context, _ *river.Job[revalueArgs]) error {
	rep, err := w.q.cfg.Portfolios.Revalue(ctx)
	if rep.Valued+rep.Paused+rep.Resumed+rep.Alerts > 0 {
		w.q.cfg.Logger.Info("portfolio revaluation", "month", rep.Month, "valued", rep.Valued, "skipped", rep.Skipped,
			"failed", rep.Failed, "paused", rep.Paused, "resumed", rep.Resumed, "alerts", rep.Alerts)
	}
	return err
}

type portfolioWebhookArgs struct {
	AlertID int64 `json:"alert_id"`
}

func (portfolioWebhookArgs) Kind() string { return "portfolio_webhook" }

type portfolioWebhookWorker struct {
	river.WorkerDefaults[portfolioWebhookArgs]
	q *Queue
}

// EnqueuePortfolioAlert queues an alert's webhook inside the transaction that stores the alert (a
// portfolio.Enqueue), retried as a batch job's webhook is.
func (q *Queue) EnqueuePortfolioAlert(ctx context.Context, tx *sql.Tx, alertID int64) error {
	_, err := q.client.InsertTx(ctx, tx, portfolioWebhookArgs{AlertID: alertID},
		&river.InsertOpts{Queue: queueWebhooks, MaxAttempts: 8})
	return err
}

// Work posts the alert; an answer other than 2xx (or none) is an error, which River retries with backoff.
func (w *portfolioWebhookWorker) Work(ctx context.Context, job *river.Job[portfolioWebhookArgs]) error {
	return SendPortfolioWebhook(ctx, w.q.cfg.Store, w.q.cfg.Webhooks, w.q.cfg.Now(), job.Args.AlertID)
}

// PortfolioWebhookEvent is the body of a portfolio alert's webhook.
type PortfolioWebhookEvent struct {
	Event string `json:"event"` // portfolio.alert
	portfolio.Alert
}

// SendPortfolioWebhook posts stored alert alertID to its portfolio's webhook, signed as batch webhooks are (Sign,
// SignatureHeader) with the portfolio's webhook secret. A portfolio deleted meanwhile, or without a webhook, sends
// nothing.
func SendPortfolioWebhook(ctx context.Context, st *store.DB, client *http.Client, now time.Time, alertID int64) error {
	a, url, secret, err := st.PortfolioAlert(ctx, alertID)
	if err == portfolio.ErrNotFound || (err == nil && url == "") {
		return nil
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(PortfolioWebhookEvent{Event: "portfolio.alert", Alert: a})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return river.JobCancel(fmt.Errorf("webhook URL: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Valuator-Webhooks/1")
	req.Header.Set(SignatureHeader, Sign(secret, now, body))
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook for portfolio alert %d: %w", alertID, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("webhook for portfolio alert %d: %s answered %d", alertID, url, res.StatusCode)
	}
	return nil
}
