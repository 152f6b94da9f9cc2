// Package server is the HTTP layer: routes, middleware and handlers. Handlers decode and validate input, call a
// domain service and encode the answer; the rules live in the domain packages.
package server

import (
	"context"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/apikey"
	"valuator/internal/apperr"
	"valuator/internal/billing"
	"valuator/internal/config"
	"valuator/internal/contact"
	"valuator/internal/credit"
	"valuator/internal/gate"
	"valuator/internal/mail"
	"valuator/internal/metrics"
	"valuator/internal/notify"
	"valuator/internal/person"
	"valuator/internal/ratelimit"
	"valuator/internal/store"
	"valuator/internal/support"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

// Store is what the handlers need from the database beyond the domain services.
type Store interface {
	Ping(ctx context.Context) error
	CreateContactMessage(ctx context.Context, m contact.Message, mails ...func(id int64) []notify.Mail) (int64, error)
	DisableNotification(ctx context.Context, userID int64, topic string, at time.Time) error
	Meter(ctx context.Context, rec usage.Record, cost int64, description string) (int64, error)
	RecordUsage(ctx context.Context, rec usage.Record) error
	UsageHistory(ctx context.Context, userID int64, f usage.Filter) ([]usage.Entry, int, error)
	UsageStats(ctx context.Context, userID int64, from, to, monthStart, lastMonthStart time.Time) (usage.Stats, error)
	CreateAPIKey(ctx context.Context, userID int64, name, hash string, sealed []byte, preview string, rateLimit,
		maxKeys int, at time.Time) (store.APIKeyRow, error)
	APIKeys(ctx context.Context, userID int64) ([]store.APIKeyRow, error)
	DeleteAPIKey(ctx context.Context, userID, keyID int64, at time.Time) error
	KeyOwner(ctx context.Context, hash string) (store.KeyOwner, error)
	CreditTerms(ctx context.Context, userID int64) (balance int64, plan string, overageLimitCents *int64, err error)
	SetOverageLimit(ctx context.Context, userID int64, cents *int64, at time.Time) error
	CreditHistory(ctx context.Context, userID, before int64, limit int) ([]credit.Entry, bool, error)
	Payments(ctx context.Context, userID, before int64, limit int) ([]billing.PaymentRecord, bool, error)
	Payment(ctx context.Context, userID, id int64) (billing.PaymentRecord, error)
	MeterPersonLookup(ctx context.Context, rec usage.Record, cost int64, description string, a store.PersonAudit) (int64, error)
	RecordPersonLookup(ctx context.Context, rec usage.Record, a store.PersonAudit) error
	PersonAudits(ctx context.Context, userID int64, f store.PersonAuditFilter, before int64, limit int) ([]store.PersonAudit, bool, error)
	PersonMisses(ctx context.Context, userID int64, since time.Time) (int, time.Time, error)
	OptedOutNames(ctx context.Context, states, names []string) (map[string]bool, error)
	PeopleNamed(ctx context.Context, lastKey, state string) ([]person.Candidate, error)
	RecordOptOutRequest(ctx context.Context, r store.OptOutRecord) error
	ConfirmOptOut(ctx context.Context, tokenHash string, now time.Time) (person.Candidate, error)
	DemoResident(ctx context.Context) (person.Candidate, error)

	SaveBatchFile(ctx context.Context, userID int64, name, sha string, content []byte, at time.Time) (int64, error)
	BatchFile(ctx context.Context, userID, id int64) (name, sha string, content []byte, err error)
	CreateBatchJob(ctx context.Context, j store.BatchJob, inputs [][]byte, enqueue store.Enqueue) (store.BatchJob, bool, error)
	BatchJobs(ctx context.Context, userID int64, limit int) ([]store.BatchJob, error)
	BatchJob(ctx context.Context, userID, id int64) (store.BatchJob, error)
	BatchRows(ctx context.Context, userID, jobID int64, status string, offset, limit int) ([]store.BatchRow, int, error)
	BatchRowsAfter(ctx context.Context, userID, jobID int64, afterIdx, limit int) ([]store.BatchRow, error)
	CancelBatchJob(ctx context.Context, userID, jobID int64, at time.Time) (store.BatchJob, error)
	RetryBatchJob(ctx context.Context, userID, jobID int64, enqueue store.Enqueue) (store.BatchJob, error)
}

// Deps wires a Server. Every field is required unless it says otherwise.
type Deps struct {
	Config   config.Config
	Logger   *slog.Logger
	Store    Store
	Accounts *account.Service
	// Valuation values properties.
	Valuation *valuation.Service
	// OpenAPI is the contract as JSON, served at /api/openapi.json.
	OpenAPI []byte
	// Web is the built single-page app (index.html and assets/); it may be empty before the first web build.
	Web fs.FS
	// FormLimiter limits unauthenticated forms (sign-up, reset requests, contact) per client address.
	FormLimiter ratelimit.Limiter
	// APILimiter limits public API calls per key per minute (memory, or Redis to share budgets across instances).
	APILimiter ratelimit.Limiter
	// Sealer encrypts API keys with the server secret.
	Sealer *apikey.Sealer
	// Queue queues batch jobs (jobs.Queue).
	Queue BatchQueue
	// Touches collects API keys' last use; the caller flushes it to the store.
	Touches *apikey.Touches
	Now     func() time.Time // optional; time.Now
	// SpreadsheetReads bounds how many uploaded spreadsheets this process reads at once (optional; a gate of
	// DefaultSpreadsheetReads slots). Every route that reads one takes a slot before it reads the request body.
	SpreadsheetReads *gate.Gate
	// SpreadsheetWait is how long an upload waits for a slot before it is answered 429 (optional; 10 s).
	SpreadsheetWait time.Duration
	// UploadDir holds uploads while their bodies arrive (optional: DataDir/tmp/uploads).
	UploadDir string
	// UploadPace is the slowest an upload's body may arrive (optional: DefaultUploadPace).
	UploadPace Pace
	// Resolver looks up the addresses of a webhook URL's host when a job is created (optional;
	// net.DefaultResolver). Only production checks them.
	Resolver Resolver
	// Billing runs plans and payments (its Provider nil: payments are not configured).
	Billing *billing.Service
	// People finds people (the local directory, or Whitepages).
	People person.Provider
	// Mailer sends the opt-out confirmation links (the one mail path: SMTP, or the log in development).
	Mailer mail.Sender
	// DemoAccount is the demo account's sign-in, which GET /api/auth/demo gives the sign-in page (optional: set
	// only in development when the demo account exists; production never answers it).
	DemoAccount *DemoAccount
	// Metrics counts requests, valuations and charges (optional: nil counts nothing).
	Metrics *metrics.Metrics
	// Unsubscribe checks the tokens of emails' unsubscribe links (optional: derived from Config.Secret, as the
	// senders of those emails derive theirs).
	Unsubscribe *notify.Signer
	// Admin is the operators' console and Support the support chat and inbox (issue 27).
	Admin   *admin.Service
	Support *support.Service
}

// DemoAccount is the sign-in of the demo account a development server seeds.
type DemoAccount struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// Resolver looks up a host's addresses (net.Resolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DefaultSpreadsheetReads is the number of spreadsheets read at once: one a core, and at least two so that one
// large file does not hold up every other upload. Reading a 50 MB workbook takes a few hundred megabytes and a
// core for a few seconds; eight at once took a server from 0.4 to 2.4 GB.
func DefaultSpreadsheetReads() int { return max(2, runtime.GOMAXPROCS(0)) }

// defaultSpreadsheetWait is long enough for the reads ahead to finish (a few seconds each), short enough that a
// client is told to come back rather than left hanging.
const defaultSpreadsheetWait = 10 * time.Second

// Server answers every HTTP request of the product.
type Server struct {
	cfg         config.Config
	log         *slog.Logger
	store       Store
	accounts    *account.Service
	valuation   *valuation.Service
	openAPI     []byte
	spa         *spa
	formLimiter ratelimit.Limiter
	apiLimiter  ratelimit.Limiter
	sealer      *apikey.Sealer
	queue       BatchQueue
	touches     *apikey.Touches
	now         func() time.Time
	mux         *http.ServeMux
	reads       *gate.Gate
	readWait    time.Duration
	uploads     *gate.Quota
	downloads   *gate.Quota
	uploadDir   string
	uploadPace  Pace
	resolver    Resolver
	billing     *billing.Service
	people      person.Provider
	mailer      mail.Sender
	demo        *DemoAccount
	metrics     *metrics.Metrics
	unsub       *notify.Signer
	admin       *admin.Service
	support     *support.Service
}

// New returns the product's HTTP handler.
func New(d Deps) http.Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.SpreadsheetReads == nil {
		d.SpreadsheetReads = gate.New(DefaultSpreadsheetReads())
	}
	if d.SpreadsheetWait <= 0 {
		d.SpreadsheetWait = defaultSpreadsheetWait
	}
	if d.Resolver == nil {
		d.Resolver = net.DefaultResolver
	}
	if d.UploadDir == "" {
		d.UploadDir = filepath.Join(d.Config.DataDir, "tmp", "uploads")
	}
	if d.UploadPace == (Pace{}) {
		d.UploadPace = DefaultUploadPace
	}
	s := &Server{
		cfg:         d.Config,
		log:         d.Logger,
		store:       d.Store,
		accounts:    d.Accounts,
		valuation:   d.Valuation,
		openAPI:     d.OpenAPI,
		spa:         newSPA(d.Web),
		formLimiter: d.FormLimiter,
		apiLimiter:  d.APILimiter,
		sealer:      d.Sealer,
		queue:       d.Queue,
		touches:     d.Touches,
		now:         d.Now,
		mux:         http.NewServeMux(),
		reads:       d.SpreadsheetReads,
		readWait:    d.SpreadsheetWait,
		uploads:     gate.NewQuota(UploadsPerAccount, 0),
		downloads:   gate.NewQuota(DownloadsPerAccount, DownloadsPerProcess()),
		uploadDir:   d.UploadDir,
		uploadPace:  d.UploadPace,
		resolver:    d.Resolver,
		billing:     d.Billing,
		people:      d.People,
		mailer:      d.Mailer,
		demo:        d.DemoAccount,
		metrics:     d.Metrics,
		unsub:       unsubscribeSigner(d),
		admin:       d.Admin,
		support:     d.Support,
	}
	s.routes()
	s.removeStaleUploads()
	return s.observe(s.secure(http.HandlerFunc(s.dispatch)))
}

// dispatch routes the request. Paths that match no route are the single-page app's (GET and HEAD), except
// under /api/, which answers JSON: 404, or 405 with Allow when the path exists for other methods.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		// Through the mux itself, which fills the path values ({id}) that Handler does not.
		s.mux.ServeHTTP(w, r)
		return
	}
	// Let the mux tell 404 from 405 without sending its plain-text body.
	probe := &probeWriter{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		allow := probe.header.Get("Allow")
		w.Header().Set("Allow", allow)
		s.writeError(w, r, &apperr.Error{Kind: apperr.KindMethodNotAllowed, Code: "method_not_allowed",
			Message: r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + allow})
		return
	}
	if isAPIPath(r.URL.Path) {
		s.writeError(w, r, apperr.NotFound("not_found", "No API endpoint at "+r.URL.Path))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.writeError(w, r, &apperr.Error{Kind: apperr.KindMethodNotAllowed, Code: "method_not_allowed",
			Message: r.Method + " is not allowed on " + r.URL.Path})
		return
	}
	s.spa.ServeHTTP(w, r)
}

func isAPIPath(p string) bool {
	return p == "/api" || strings.HasPrefix(p, "/api/")
}

// probeWriter records what the mux's fallback handler would answer, and discards the body.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header         { return p.header }
func (p *probeWriter) Write(b []byte) (int, error) { return len(b), nil }
func (p *probeWriter) WriteHeader(code int)        { p.status = code }
