// Package server is the HTTP layer: routes, middleware and handlers. Handlers decode and validate input, call a
// domain service and encode the answer; the rules live in the domain packages.
package server

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/apikey"
	"valuator/internal/apperr"
	"valuator/internal/batch"
	"valuator/internal/billing"
	"valuator/internal/clock"
	"valuator/internal/config"
	"valuator/internal/contact"
	"valuator/internal/gate"
	"valuator/internal/metrics"
	"valuator/internal/notify"
	"valuator/internal/officehours"
	"valuator/internal/person"
	"valuator/internal/portfolio"
	"valuator/internal/ratelimit"
	"valuator/internal/sdks"
	"valuator/internal/support"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

// Pinger tells whether the database answers (store.DB), for the readiness check.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps wires a Server. Every field is required unless it says otherwise.
type Deps struct {
	Config config.Config
	Logger *slog.Logger
	// DB is pinged by the readiness check; everything else reaches the database through the services.
	DB       Pinger
	Accounts *account.Service
	// APIKeys creates, lists and authenticates API keys.
	APIKeys *apikey.Service
	// Usage reads the history and statistics of calls.
	Usage *usage.Service
	// Batches creates and reads batch jobs.
	Batches *batch.Service
	// People looks people up, keeps the lookups' audit log and takes opt-outs.
	People *person.Service
	// Contact takes the contact form's messages.
	Contact *contact.Service
	// Valuation values properties.
	Valuation *valuation.Service
	// Portfolios keeps accounts' portfolios of homes (issue 40; optional: nil answers its routes 503).
	Portfolios *portfolio.Service
	// OpenAPI is the contract as JSON, served at /api/openapi.json.
	OpenAPI []byte
	// Web is the built single-page app (index.html and assets/); it may be empty before the first web build.
	Web fs.FS
	// FormLimiter limits unauthenticated forms (sign-up, reset requests, contact) per client address.
	FormLimiter ratelimit.Limiter
	// APILimiter limits public API calls per key per minute (memory, or Redis to share budgets across instances).
	APILimiter ratelimit.Limiter
	// Touches collects API keys' last use; the caller flushes it to the store.
	Touches *apikey.Touches
	Now     func() time.Time // optional; time.Now
	// Clock, when it is settable (VALUATOR_CLOCK, development only), adds POST /api/dev/clock, with which an
	// end-to-end test lets time pass instead of sleeping; Now should then be its Now (optional).
	Clock *clock.Clock
	// SpreadsheetReads bounds how many uploaded spreadsheets this process reads at once (optional; a gate of
	// DefaultSpreadsheetReads slots). Every route that reads one takes a slot before it reads the request body.
	SpreadsheetReads *gate.Gate
	// SpreadsheetWait is how long an upload waits for a slot before it is answered 429 (optional; 10 s).
	SpreadsheetWait time.Duration
	// UploadDir holds uploads while their bodies arrive (optional: DataDir/tmp/uploads).
	UploadDir string
	// UploadPace is the slowest an upload's body may arrive (optional: DefaultUploadPace).
	UploadPace Pace
	// DownloadStall is how long a download may go without its client taking any of the file before the connection
	// is aborted and its download slot given back (optional: DefaultDownloadStall). The slots themselves are
	// DownloadsPerProcess, at most DownloadsPerAccount of them for one account.
	DownloadStall time.Duration
	// Billing runs plans and payments (its Provider nil: payments are not configured).
	Billing *billing.Service
	// DemoAccount is the demo account's sign-in, which GET /api/auth/demo gives the sign-in page (optional: set
	// only in development when the demo account exists; production never answers it).
	DemoAccount *DemoAccount
	// Metrics counts requests, valuations and charges (optional: nil counts nothing).
	Metrics *metrics.Metrics
	// Unsubscribe checks the tokens of emails' unsubscribe links (optional: derived from Config.Secret, as the
	// senders of those emails derive theirs).
	Unsubscribe *notify.Signer
	// Admin is the operators' console and Support the support chat and inbox (issue 27). GET /api/site states the
	// chat's office hours; a server built without the chat states Config.SupportHours (officeHours).
	Admin   *admin.Service
	Support *support.Service
	// SDKs are the client packages built into the binary (internal/sdks), which GET /api/sdks describes and the
	// GOPROXY, npm and PEP 503 routes hand out (optional: nil answers GET /api/sdks with 503 and the rest 404).
	SDKs *sdks.Catalog
	// Drain, once started, turns GET /readyz to 503 `draining` while every other route keeps serving (optional: nil
	// never drains). `serve` starts it on SIGTERM (docs/operations.md, "Restarts and rolling deploys").
	Drain *Drain
}

// DemoAccount is the sign-in of the demo account a development server seeds.
type DemoAccount struct {
	Email    string `json:"email"`
	Password string `json:"password"`
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
	db          Pinger
	accounts    *account.Service
	apiKeys     *apikey.Service
	usage       *usage.Service
	batches     *batch.Service
	people      *person.Service
	contact     *contact.Service
	valuation   *valuation.Service
	portfolios  *portfolio.Service
	openAPI     []byte
	spa         *spa
	formLimiter ratelimit.Limiter
	apiLimiter  ratelimit.Limiter
	touches     *apikey.Touches
	now         func() time.Time
	clock       *clock.Clock
	mux         *http.ServeMux
	reads       *gate.Gate
	readWait    time.Duration
	uploads     *gate.Quota
	downloads   *gate.Quota
	stall       time.Duration // Deps.DownloadStall
	uploadDir   string
	uploadPace  Pace
	billing     *billing.Service
	demo        *DemoAccount
	metrics     *metrics.Metrics
	unsub       *notify.Signer
	admin       *admin.Service
	support     *support.Service
	hours       officehours.Hours // the support team's office hours (officeHours)
	sdks        *sdks.Catalog
	drain       *Drain
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
	if d.UploadDir == "" {
		d.UploadDir = filepath.Join(d.Config.DataDir, "tmp", "uploads")
	}
	if d.UploadPace == (Pace{}) {
		d.UploadPace = DefaultUploadPace
	}
	if d.DownloadStall <= 0 {
		d.DownloadStall = DefaultDownloadStall
	}
	s := &Server{
		cfg:         d.Config,
		log:         d.Logger,
		db:          d.DB,
		accounts:    d.Accounts,
		apiKeys:     d.APIKeys,
		usage:       d.Usage,
		batches:     d.Batches,
		people:      d.People,
		contact:     d.Contact,
		valuation:   d.Valuation,
		portfolios:  d.Portfolios,
		openAPI:     d.OpenAPI,
		spa:         newSPA(d.Web),
		formLimiter: d.FormLimiter,
		apiLimiter:  d.APILimiter,
		touches:     d.Touches,
		now:         d.Now,
		clock:       d.Clock,
		mux:         http.NewServeMux(),
		reads:       d.SpreadsheetReads,
		readWait:    d.SpreadsheetWait,
		uploads:     gate.NewQuota(UploadsPerAccount, 0),
		downloads:   gate.NewQuota(DownloadsPerAccount, DownloadsPerProcess()),
		stall:       d.DownloadStall,
		uploadDir:   d.UploadDir,
		uploadPace:  d.UploadPace,
		billing:     d.Billing,
		demo:        d.DemoAccount,
		metrics:     d.Metrics,
		unsub:       unsubscribeSigner(d),
		admin:       d.Admin,
		support:     d.Support,
		hours:       officeHours(d),
		sdks:        d.SDKs,
		drain:       d.Drain,
	}
	s.routes()
	s.removeStaleUploads()
	return s.observe(s.secure(http.HandlerFunc(s.dispatch)))
}

// officeHours are the support team's office hours the server states: the support chat's when it has the chat, else
// the configured ones (Config.SupportHours, which config.Load has checked), else officehours.DefaultHours, so that
// a server built without the chat (the examples and benchmark tools) states them too.
func officeHours(d Deps) officehours.Hours {
	if d.Support != nil {
		return d.Support.Hours
	}
	if h, err := officehours.Parse(d.Config.SupportHours); err == nil {
		return h
	}
	h, err := officehours.Parse(officehours.DefaultHours)
	if err != nil {
		panic("officehours.DefaultHours does not parse: " + err.Error())
	}
	return h
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
