package batch

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/netguard"
	"valuator/internal/text"
)

// Job is a stored batch job.
type Job struct {
	ID              int64
	UserID          int64
	APIKeyID        int64  // 0: uploaded in the dashboard
	APIKeyName      string // kept after the key is deleted
	FileName        string
	FileSHA256      string
	Mapping         string // JSON
	Status          string
	StatusMessage   string
	Total           int
	Processed       int
	Successful      int
	Failed          int
	Dropped         int
	CreditsUsed     int64
	CreditsRecorded int64
	WebhookURL      string
	WebhookSecret   string
	IdempotencyKey  string
	// InputBytes is the size of the job's stored inputs, counted against the owner's storage quota until the
	// job's rows are purged.
	InputBytes int64
	// UploadID, when creating a job, is the preview it is made from: the preview's stored data is deleted in the
	// transaction that creates the job. It is not read back.
	UploadID   int64
	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time
	PurgedAt   *time.Time
}

// StoredRow is one property of a job as stored: its input and, once valued, its result (both JSON).
type StoredRow struct {
	Idx    int
	Status string
	Input  []byte
	Result []byte
}

var (
	// ErrNoBatch means the user has no such job (another user's job included) or no such upload.
	ErrNoBatch = errors.New("no such batch job")
	// ErrIdempotencyReuse means an Idempotency-Key was used before for a different file.
	ErrIdempotencyReuse = errors.New("idempotency key reused for a different file")
	// ErrBatchState means the job's status does not allow the change (cancel a completed job, retry a running one).
	ErrBatchState = errors.New("the job's status does not allow this")
)

// Enqueue adds the queue's job for a batch job inside the transaction that changes it, so a job is queued if and
// only if the change is committed. The store knows nothing of the queue.
type Enqueue func(ctx context.Context, tx *sql.Tx, jobID int64) error

// Store is what the batch rules need from the database (internal/store).
type Store interface {
	// SaveBatchFile keeps a preview's table (content) until a job is made from it or it expires.
	SaveBatchFile(ctx context.Context, userID int64, name, sha string, content []byte, at time.Time) (int64, error)
	BatchFile(ctx context.Context, userID, id int64) (name, sha string, content []byte, err error)
	// CreateBatchJob stores a job with its rows and queues it, in one transaction (see store.CreateBatchJob for
	// idempotency keys and previews).
	CreateBatchJob(ctx context.Context, j Job, inputs [][]byte, enqueue Enqueue) (Job, bool, error)
	BatchJobs(ctx context.Context, userID int64, limit int) ([]Job, error)
	BatchJob(ctx context.Context, userID, id int64) (Job, error)
	BatchRows(ctx context.Context, userID, jobID int64, status string, offset, limit int) ([]StoredRow, int, error)
	BatchRowsAfter(ctx context.Context, userID, jobID int64, afterIdx, limit int) ([]StoredRow, error)
	CancelBatchJob(ctx context.Context, userID, jobID int64, at time.Time) (Job, error)
	RetryBatchJob(ctx context.Context, userID, jobID int64, enqueue Enqueue) (Job, error)
	// CreditTerms is what a charge to the user is checked against (credit.CanPay).
	CreditTerms(ctx context.Context, userID int64) (balance int64, plan string, overageLimitCents *int64, err error)
}

// Queue queues the valuation of a job inside the store's transaction (jobs.Queue).
type Queue interface {
	EnqueueBatch(ctx context.Context, tx *sql.Tx, jobID int64) error
}

// Resolver looks up a host's addresses (net.Resolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Service creates batch jobs and reads, cancels and retries them.
type Service struct {
	store    Store
	queue    Queue
	log      *slog.Logger
	now      func() time.Time
	dev      bool
	resolver Resolver
}

// Deps wires a Service.
type Deps struct {
	Store  Store
	Queue  Queue
	Logger *slog.Logger
	Now    func() time.Time // optional: time.Now
	// Dev is development mode: webhooks may be http:// and reach local receivers.
	Dev bool
	// Resolver looks up the addresses of a webhook URL's host when a job is created (optional:
	// net.DefaultResolver). Only production checks them.
	Resolver Resolver
}

// NewService returns the batch service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Resolver == nil {
		d.Resolver = net.DefaultResolver
	}
	return &Service{store: d.Store, queue: d.Queue, log: d.Logger, now: d.Now, dev: d.Dev, resolver: d.Resolver}
}

var (
	errUploadGone = apperr.NotFound("upload_not_found",
		"This upload is no longer available (uploads are kept 24 hours); please upload the file again")
	errNoJob = apperr.NotFound("job_not_found", "Batch job not found")
	// ErrResultsGone answers for a job whose rows were purged (Job.PurgedAt).
	ErrResultsGone = &apperr.Error{Kind: apperr.KindGone, Code: "results_deleted",
		Message: "This job's results were deleted 24 hours after it finished"}
)

// SaveUpload keeps the table of a previewed file (EncodeTable) for the job the user makes from it, and returns
// the upload's id.
func (s *Service) SaveUpload(ctx context.Context, userID int64, name, sha string, table []byte) (int64, error) {
	return s.store.SaveBatchFile(ctx, userID, name, sha, table, s.now())
}

// Upload is a preview of the user's: the file's name, its SHA-256 and the kept table.
func (s *Service) Upload(ctx context.Context, userID, id int64) (name, sha string, table []byte, err error) {
	name, sha, table, err = s.store.BatchFile(ctx, userID, id)
	if errors.Is(err, ErrNoBatch) {
		err = errUploadGone
	}
	return name, sha, table, err
}

// NewJob is a job to create: whose it is, the table and its mapping.
type NewJob struct {
	UserID  int64
	Plan    string
	KeyID   int64  // 0: made in the dashboard
	KeyName string // the key's name when KeyID is set
	// FileName and FileSHA are the uploaded file's (FileSHA makes an idempotency key's repeat recognisable).
	FileName, FileSHA string
	Table             *Table
	Mapping           Mapping
	Webhook           string
	IdempotencyKey    string
	// UploadID, when not 0, is the preview the table came from: it is deleted when the job is created.
	UploadID int64
}

// Create checks and creates a batch job from a table and its mapping, and queues it. created is false when an
// earlier upload with the same idempotency key made the job; secret is the webhook's signing secret, given only
// when the job is created.
func (s *Service) Create(ctx context.Context, n NewJob) (job Job, created bool, secret string, err error) {
	if err := n.Mapping.Validate(n.Table.Headers); err != nil {
		return Job{}, false, "", err
	}
	rows, dropped := Apply(n.Table, n.Mapping)
	if len(rows) == 0 {
		return Job{}, false, "", &apperr.Error{Kind: apperr.KindInvalid, Code: "no_addresses", Field: "mapping",
			Message: "No row has an address in the mapped columns", Extra: map[string]any{"title": "Empty File"}}
	}
	if err := CheckSize(len(rows), n.Plan); err != nil {
		return Job{}, false, "", err
	}
	if err := s.checkWebhookURL(ctx, n.Webhook); err != nil {
		return Job{}, false, "", err
	}
	// A job that could not value a single property is refused now rather than failing at its first row.
	if err := s.canPayOneRow(ctx, n.UserID); err != nil {
		return Job{}, false, "", err
	}
	inputs := make([][]byte, len(rows))
	for i, row := range rows {
		if inputs[i], err = json.Marshal(row); err != nil {
			return Job{}, false, "", err
		}
	}
	mappingJSON, _ := json.Marshal(n.Mapping)
	if n.Webhook != "" {
		secret = NewWebhookSecret()
	}
	j := Job{UserID: n.UserID, APIKeyID: n.KeyID, APIKeyName: n.KeyName, FileName: n.FileName, FileSHA256: n.FileSHA,
		Mapping: string(mappingJSON), Dropped: dropped, WebhookURL: n.Webhook, WebhookSecret: secret,
		IdempotencyKey: n.IdempotencyKey, UploadID: n.UploadID, CreatedAt: s.now()}
	job, created, err = s.store.CreateBatchJob(ctx, j, inputs, s.queue.EnqueueBatch)
	switch {
	case errors.Is(err, ErrIdempotencyReuse):
		return job, false, "", apperr.Conflict("idempotency_key_reused", "Idempotency-Key",
			"This Idempotency-Key was used for a different file; use a new key for a new upload")
	case errors.Is(err, ErrNoBatch):
		return job, false, "", errUploadGone // made into a job by a request of a moment ago
	}
	if !created {
		secret = "" // shown once, when the job is created
	}
	return job, created, secret, err
}

// canPayOneRow refuses a job (new, or retried) while the balance cannot pay for a single row.
func (s *Service) canPayOneRow(ctx context.Context, userID int64) error {
	balance, plan, limit, err := s.store.CreditTerms(ctx, userID)
	if err != nil {
		return err
	}
	return credit.CanPay(balance, credit.BatchCostPerRow, plan, limit)
}

// NewWebhookSecret makes a webhook's signing secret (batch jobs', portfolios').
func NewWebhookSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "whsec_" + hex.EncodeToString(b)
}

// CheckWebhookURL is the one check of a webhook URL (batch jobs', portfolios'): checkWebhookURL.
func (s *Service) CheckWebhookURL(ctx context.Context, raw string) error {
	return s.checkWebhookURL(ctx, raw)
}

// checkWebhookURL accepts an absolute http(s) URL; https only in production. In production its host must also
// resolve to at least one address a webhook may reach (netguard): a URL that can only reach the server's own
// network is refused now, with the job, rather than failing silently when the job ends. The sending client checks
// the address it dials again, since what a name resolves to can change in between.
func (s *Service) checkWebhookURL(ctx context.Context, raw string) error {
	if raw == "" {
		return nil
	}
	msg := "webhookUrl must be an absolute https:// URL"
	if s.dev {
		msg = "webhookUrl must be an absolute http:// or https:// URL"
	}
	if p := text.Problem(raw); p != "" {
		return apperr.Invalid("webhookUrl", "webhookUrl "+p)
	}
	u, err := url.Parse(raw)
	ok := err == nil && (u.Scheme == "https" || (u.Scheme == "http" && s.dev)) && u.Host != "" && len(raw) <= 2000
	if !ok {
		return apperr.Invalid("webhookUrl", msg)
	}
	if s.dev {
		return nil // development sends webhooks to local receivers
	}
	return s.checkWebhookHost(ctx, u.Hostname())
}

// webhookLookupTimeout bounds the DNS lookup of a webhook's host while the job's creation waits.
const webhookLookupTimeout = 5 * time.Second

func (s *Service) checkWebhookHost(ctx context.Context, host string) error {
	refused := apperr.Invalid("webhookUrl", fmt.Sprintf(
		"webhookUrl must reach a public address; %s is a private, loopback or reserved address", host))
	if addr, err := netip.ParseAddr(host); err == nil {
		if netguard.Refused(addr) {
			return refused
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, webhookLookupTimeout)
	defer cancel()
	addrs, err := s.resolver.LookupNetIP(ctx, "ip", host)
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return apperr.Invalid("webhookUrl", fmt.Sprintf("webhookUrl's host %s does not exist", host))
	case err != nil:
		// A lookup that failed for a while (a timeout, a DNS server down) says nothing about the host; the
		// sending client checks the address it connects to.
		s.log.Warn("webhook host lookup failed", "host", host, "err", err)
		return nil
	}
	for _, a := range addrs {
		if !netguard.Refused(a) {
			return nil
		}
	}
	return apperr.Invalid("webhookUrl", fmt.Sprintf(
		"webhookUrl must reach a public address; %s resolves only to private, loopback or reserved addresses", host))
}

// Jobs are the user's latest 100 jobs, newest first.
func (s *Service) Jobs(ctx context.Context, userID int64) ([]Job, error) {
	return s.store.BatchJobs(ctx, userID, 100)
}

// Job is one of the user's jobs: another user's job is not found, as one that does not exist.
func (s *Service) Job(ctx context.Context, userID, id int64) (Job, error) {
	j, err := s.store.BatchJob(ctx, userID, id)
	if errors.Is(err, ErrNoBatch) {
		return j, errNoJob
	}
	return j, err
}

// Cancel cancels one of the user's pending or processing jobs; rows valued so far keep their results.
func (s *Service) Cancel(ctx context.Context, userID, id int64) (Job, error) {
	j, err := s.Job(ctx, userID, id)
	if err == nil {
		j, err = s.store.CancelBatchJob(ctx, userID, j.ID, s.now())
	}
	if errors.Is(err, ErrBatchState) {
		err = apperr.Conflict("job_not_cancellable", "status", fmt.Sprintf("A %s job cannot be cancelled", j.Status))
	}
	return j, err
}

// Retry queues one of the user's failed or cancelled jobs again; it continues with the rows not yet valued.
func (s *Service) Retry(ctx context.Context, userID, id int64) (Job, error) {
	j, err := s.Job(ctx, userID, id)
	if err == nil && CanRetry(j.Status) && j.Processed < j.Total {
		// Retrying a job stopped for want of credits is refused while the balance still cannot pay.
		err = s.canPayOneRow(ctx, userID)
	}
	if err == nil {
		j, err = s.store.RetryBatchJob(ctx, userID, j.ID, s.queue.EnqueueBatch)
	}
	if errors.Is(err, ErrBatchState) {
		msg := fmt.Sprintf("A %s job cannot be retried; only failed or cancelled jobs can", j.Status)
		if j.PurgedAt != nil {
			msg = "This job's rows were deleted 24 hours after it finished; upload the file again"
		}
		err = apperr.Conflict("job_not_retryable", "status", msg)
	}
	return j, err
}

// Results is a page of a job's results (status "" for every row), and how many match in all.
func (s *Service) Results(ctx context.Context, j Job, status string, page, limit int) ([]Result, int, error) {
	if j.PurgedAt != nil {
		return nil, 0, ErrResultsGone
	}
	rows, total, err := s.store.BatchRows(ctx, j.UserID, j.ID, status, (page-1)*limit, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Result, len(rows))
	for i, row := range rows {
		if out[i], err = resultOf(row); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// downloadPage is how many rows a download reads from the store at a time: enough that the queries cost little
// next to writing, few enough that a page of results is a few hundred kilobytes.
const downloadPage = 1000

// AllResults yields every row's result of a job in file order, reading the store a page at a time, so that a
// download of 50,000 rows holds one page in memory, not the job.
func (s *Service) AllResults(ctx context.Context, j Job) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		after := -1
		for {
			rows, err := s.store.BatchRowsAfter(ctx, j.UserID, j.ID, after, downloadPage)
			if err != nil {
				yield(Result{}, err)
				return
			}
			for _, row := range rows {
				res, err := resultOf(row)
				if !yield(res, err) || err != nil {
					return
				}
			}
			if len(rows) < downloadPage {
				return
			}
			after = rows[len(rows)-1].Idx
		}
	}
}

// resultOf is a row's result, or for a row not yet valued, its input marked pending.
func resultOf(row StoredRow) (Result, error) {
	var res Result
	if row.Result != nil {
		err := json.Unmarshal(row.Result, &res)
		return res, err
	}
	var in Row
	if err := json.Unmarshal(row.Input, &in); err != nil {
		return res, err
	}
	parts := []string{}
	for _, p := range []string{in.Address, in.City, strings.TrimSpace(in.State + " " + in.ZIP)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return Result{Line: in.Line, Address: in.Address, FullAddress: strings.Join(parts, ", "), Status: RowPending}, nil
}
