package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/batch"
	"valuator/internal/netguard"
)

type webhookArgs struct {
	JobID int64 `json:"job_id"`
}

func (webhookArgs) Kind() string { return "batch_webhook" }

type webhookWorker struct {
	river.WorkerDefaults[webhookArgs]
	q *Queue
}

// SignatureHeader carries the webhook's signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">, keyed
// with the job's webhook secret (returned when the job was created). The timestamp lets a receiver refuse replays.
const SignatureHeader = "X-Valuator-Signature"

// Sign computes the signature header's value for a body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// WebhookEvent is the body of a webhook.
type WebhookEvent struct {
	Event         string    `json:"event"` // batch.completed or batch.failed
	JobID         int64     `json:"jobId"`
	Status        string    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	Progress      Progress  `json:"progress"`
	CreditsUsed   int64     `json:"creditsUsed"`
	DownloadURL   string    `json:"downloadUrl"`
	FinishedAt    time.Time `json:"finishedAt"`
}

// Progress is a job's counts, as the public status shows them.
type Progress struct {
	Total      int `json:"total"`
	Processed  int `json:"processed"`
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
}

// Work posts the event; an answer other than 2xx (or no answer) is an error, which River retries with backoff
// (up to 8 attempts over about an hour and a half).
func (w *webhookWorker) Work(ctx context.Context, job *river.Job[webhookArgs]) error {
	q := w.q
	j, err := q.cfg.Store.BatchJobForWorker(ctx, job.Args.JobID)
	if err != nil || j.WebhookURL == "" {
		return err
	}
	ev := WebhookEvent{Event: "batch.completed", JobID: j.ID, Status: j.Status, StatusMessage: j.StatusMessage,
		Progress:    Progress{Total: j.Total, Processed: j.Processed, Successful: j.Successful, Failed: j.Failed},
		CreditsUsed: j.CreditsUsed, DownloadURL: q.cfg.BaseURL + fmt.Sprintf("/api/batch/download/%d", j.ID)}
	if j.Status != batch.StatusCompleted {
		ev.Event = "batch." + j.Status
	}
	if j.FinishedAt != nil {
		ev.FinishedAt = *j.FinishedAt
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return river.JobCancel(fmt.Errorf("webhook URL: %w", err)) // cannot get better by retrying
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Valuator-Webhooks/1")
	req.Header.Set(SignatureHeader, Sign(j.WebhookSecret, q.cfg.Now(), body))
	res, err := q.cfg.Webhooks.Do(req)
	if err != nil {
		return fmt.Errorf("webhook for batch job %d: %w", j.ID, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("webhook for batch job %d: %s answered %d", j.ID, j.WebhookURL, res.StatusCode)
	}
	return nil
}

// webhookClient sends webhooks with a 10 s timeout and no redirects. Unless allowPrivate, it refuses to connect to
// any special-purpose address (netguard.Refused: loopback, private, link-local, shared, translation prefixes and
// the rest), checked on the address actually dialled (after DNS, so a name that resolves somewhere else when the
// webhook is sent than when the job was created is still caught), so that a webhook URL cannot reach the
// server's own network.
func webhookClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = refuseSpecialAddress
	}
	tr := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: 5 * time.Second, MaxIdleConns: 10}
	return &http.Client{Timeout: 10 * time.Second, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// refuseSpecialAddress is the dialer's check of the address it is about to connect to ("ip:port").
func refuseSpecialAddress(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || netguard.Refused(ap.Addr()) {
		return errPrivateAddress
	}
	return nil
}

var errPrivateAddress = errors.New("webhooks may not be sent to private, loopback or other special-purpose addresses")

// WebhookClient is the client for webhooks: private addresses allowed only in development.
func WebhookClient(allowPrivate bool) *http.Client { return webhookClient(allowPrivate) }

type cleanupArgs struct{}

func (cleanupArgs) Kind() string { return "batch_cleanup" }

type cleanupWorker struct {
	river.WorkerDefaults[cleanupArgs]
	q *Queue
}

// Work deletes the rows and results of jobs finished over 24 hours ago, and uploaded files as old.
func (w *cleanupWorker) Work(ctx context.Context, _ *river.Job[cleanupArgs]) error {
	now := w.q.cfg.Now()
	jobs, files, err := w.q.cfg.Store.PurgeBatches(ctx, now.Add(-batch.Retention), now)
	if err == nil && jobs+files > 0 {
		w.q.cfg.Logger.Info("deleted old batch data", "jobs", jobs, "files", files)
	}
	return err
}
