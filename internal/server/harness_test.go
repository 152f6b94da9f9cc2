package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"valuator/api"
	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/apikey"
	"valuator/internal/avm"
	"valuator/internal/batch"
	"valuator/internal/billing"
	vclock "valuator/internal/clock"
	"valuator/internal/config"
	"valuator/internal/contact"
	"valuator/internal/contract"
	"valuator/internal/gate"
	"valuator/internal/jobs"
	"valuator/internal/mail"
	"valuator/internal/metrics"
	"valuator/internal/person"
	"valuator/internal/portfolio"
	"valuator/internal/ratelimit"
	"valuator/internal/store"
	"valuator/internal/support"
	"valuator/internal/testdb"
	"valuator/internal/testredis"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

func TestMain(m *testing.M) { testdb.Main(m, testredis.Shutdown) }

// fakeClock is a settable time source shared by the services under test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// mailbox records sent emails.
type mailbox struct {
	mu   sync.Mutex
	msgs []mail.Message
}

func (m *mailbox) Send(_ context.Context, msg mail.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, msg)
	return nil
}

func (m *mailbox) all() []mail.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]mail.Message(nil), m.msgs...)
}

// teeMailer sends every message through each of its senders.
type teeMailer []mail.Sender

func (t teeMailer) Send(ctx context.Context, msg mail.Message) error {
	for _, s := range t {
		if err := s.Send(ctx, msg); err != nil {
			return err
		}
	}
	return nil
}

func loadContract(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testApp is the whole product on a real HTTP server and a real database.
type testApp struct {
	t         *testing.T
	srv       *httptest.Server
	uploadDir string
	db        *store.DB
	clock     *fakeClock
	mail      *mailbox
	contract  *contract.Contract
	logs      *bytes.Buffer
	touches   *apikey.Touches
	queue     *jobs.Queue
	billing   *billing.Service
}

type appOptions struct {
	production bool
	web        fstest.MapFS
	// market, when set, imports records before the valuation engine loads.
	market func(t *testing.T, db *store.DB)
	// apiLimiter replaces the in-memory limiter of public API calls (a Redis one shared by several apps).
	apiLimiter ratelimit.Limiter
	// sealSecret replaces the secret API keys are sealed with.
	sealSecret string
	// holdJobs leaves the job queue's workers stopped until the test calls a.startJobs.
	holdJobs bool
	// jobSlice replaces the test's short batch run (1 s) with another, the production one (10 s) say.
	jobSlice time.Duration
	// readGate and readWait replace the spreadsheet-read gate and its wait (a tiny gate the test holds, a short
	// wait, to see uploads refused).
	readGate *gate.Gate
	readWait time.Duration
	// uploadPace replaces the pace an upload's body must keep (a short grace, to see slow bodies cut off).
	uploadPace Pace
	// downloadStall replaces how long a download may go without progress (a short one, to see stalled downloads
	// cut off).
	downloadStall time.Duration
	// resolver replaces DNS for webhook hosts.
	resolver batch.Resolver
	// env adds environment variables to the configuration (VALUATOR_TRUST_PROXY, say).
	env map[string]string
	// accounts changes the account service's dependencies (a counting password hasher, a small password gate).
	accounts func(d *account.Deps)
	// configMailer sends mail as the configuration says (as run.go does: the log without SMTP) besides recording
	// it in the mailbox.
	configMailer bool
	// billing changes the billing service (another payments provider).
	billing func(*billing.Service)
	// demo is the demo account's sign-in the server is given (as run gives it in development).
	demo *DemoAccount
	// devClock is given to the server as its Clock (VALUATOR_CLOCK's), which adds POST /api/dev/clock.
	devClock *vclock.Clock
	// metrics is given to the server (nil: none, as without VALUATOR_METRICS_ADDR).
	metrics *metrics.Metrics
	// drain is given to the server (nil: it never drains).
	drain *Drain
}

func newTestApp(t *testing.T, dbURL string, opts ...func(*appOptions)) *testApp {
	t.Helper()
	var o appOptions
	for _, f := range opts {
		f(&o)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"VALUATOR_DATABASE_URL": dbURL}
	if o.production {
		env["VALUATOR_ENV"] = "production"
		env["VALUATOR_SECRET"] = strings.Repeat("s", 40)
		env["VALUATOR_BASE_URL"] = "https://valuator.example.com"
		env["VALUATOR_SUPPORT_EMAIL"] = "support@valuator.example.com"
	}
	for k, v := range o.env {
		env[k] = v
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	box := &mailbox{}
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	openAPI, err := api.JSON(ctx, cfg.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	web := o.web
	if web == nil {
		web = fstest.MapFS{
			"index.html":           {Data: []byte("<!doctype html><title>Valuator</title><div id=root></div>")},
			"assets/index-abc.js":  {Data: []byte(strings.Repeat("console.log('valuator');\n", 200))},
			"assets/index-abc.css": {Data: []byte("body{}")},
			"favicon.svg":          {Data: []byte("<svg/>")},
			".vite/manifest.json":  {Data: []byte(`{"index.html":{"file":"assets/index-abc.js","isEntry":true}}`)},
		}
	}
	var mailer mail.Sender = box
	if o.configMailer {
		mailer = teeMailer{box, mail.ForConfig(cfg, log)}
	}
	accountDeps := account.Deps{Store: db, Mailer: mailer, Now: clk.Now, Logger: log, Dev: cfg.Dev(),
		BaseURL: cfg.BaseURL, SessionTTL: cfg.SessionTTL, SupportEmail: cfg.SupportEmail}
	if o.accounts != nil {
		o.accounts(&accountDeps)
	}
	accounts := account.NewService(accountDeps)
	if o.market != nil {
		o.market(t, db)
	}
	vals := valuation.New(db, log, clk.Now, fastEngine())
	if err := vals.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if o.sealSecret == "" {
		o.sealSecret = strings.Repeat("k", 32)
	}
	sealer, err := apikey.NewSealer(o.sealSecret)
	if err != nil {
		t.Fatal(err)
	}
	touches := &apikey.Touches{}
	var apiLimiter ratelimit.Limiter = ratelimit.NewMemory(clk.Now)
	if o.apiLimiter != nil {
		apiLimiter = o.apiLimiter
	}
	// The real queue and workers, on the test's database, with short runs so tests see progress quickly.
	queue, err := jobs.New(jobs.Config{Store: db, Valuer: vals, Logger: log, Now: clk.Now, BaseURL: "http://valuator.test",
		Workers: true, Slice: cmp.Or(o.jobSlice, time.Second), PollInterval: 20 * time.Millisecond, Webhooks: jobs.WebhookClient(true),
		Metrics: o.metrics})
	if err != nil {
		t.Fatal(err)
	}
	uploadDir := filepath.Join(t.TempDir(), "uploads")
	bill := &billing.Service{Store: db, Provider: billing.Local{Cards: db}, Log: log, Now: clk.Now}
	if o.billing != nil {
		o.billing(bill)
	}
	formLimiter := ratelimit.NewMemory(clk.Now)
	hooks := batch.NewService(batch.Deps{Logger: log, Now: clk.Now, Dev: cfg.Dev(), Resolver: o.resolver})
	portfolios := portfolio.NewService(portfolio.Deps{Store: db, Valuer: vals, Logger: log, Now: clk.Now,
		CheckWebhook: hooks.CheckWebhookURL, NewSecret: batch.NewWebhookSecret, Enqueue: queue.EnqueuePortfolioAlert})
	h := New(Deps{Portfolios: portfolios, Config: cfg, Logger: log, DB: db, Accounts: accounts, Valuation: vals, OpenAPI: openAPI,
		Web: web, FormLimiter: formLimiter, APILimiter: apiLimiter, Touches: touches, Now: clk.Now,
		APIKeys: apikey.NewService(db, sealer, log, clk.Now),
		Usage:   usage.NewService(db, clk.Now),
		Batches: batch.NewService(batch.Deps{Store: db, Queue: queue, Logger: log, Now: clk.Now, Dev: cfg.Dev(),
			Resolver: o.resolver}),
		People: person.NewService(person.Deps{Store: db, Provider: person.Directory{Store: db}, Mailer: mailer,
			Limiter: formLimiter, Logger: log, Now: clk.Now, BaseURL: cfg.BaseURL, Dev: cfg.Dev()}),
		Contact:          contact.NewService(db, formLimiter, log, clk.Now, cfg.SupportEmail),
		SpreadsheetReads: o.readGate, SpreadsheetWait: o.readWait, Billing: bill,
		UploadDir: uploadDir, UploadPace: o.uploadPace, DownloadStall: o.downloadStall, DemoAccount: o.demo,
		Metrics: o.metrics, Clock: o.devClock, Drain: o.drain,
		Admin: &admin.Service{Store: db, Refunder: bill.Provider, ProviderCalls: bill.RunProviderActions,
			Enqueue: queue.EnqueueBatch, Now: clk.Now},
		Support: &support.Service{Store: db, Hours: supportHours(t, cfg), Now: clk.Now}})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	a := &testApp{t: t, srv: srv, uploadDir: uploadDir, db: db, clock: clk, mail: box, contract: loadContract(t), logs: logs,
		touches: touches, queue: queue, billing: bill}
	if !o.holdJobs {
		a.startJobs()
	}
	return a
}

// startJobs starts the queue's workers; they stop when the test ends.
func (a *testApp) startJobs() {
	a.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := a.queue.Start(ctx); err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() {
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = a.queue.Stop(stop)
		cancel()
	})
}

func production(o *appOptions) { o.production = true }

// fastEngine trains quickly on the small test markets.
func fastEngine() avm.Options {
	o := avm.DefaultOptions()
	o.Model.Trees, o.Model.LearningRate, o.Folds = 150, 0.15, 3
	return o
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// req describes one call.
type req struct {
	method, path string
	body         any    // marshalled to JSON unless raw is set
	raw          string // sent as is
	contentType  string // defaults to application/json when there is a body
	token        string
	header       map[string]string
	// badRequest marks a deliberately malformed request: its request is not checked against the contract
	// (the response still is).
	badRequest bool
	// noContract skips the contract for paths outside the API (the web app, unknown paths).
	noContract bool
}

// resp is an answer with its body read.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// errBody decodes the standard error shape.
func (r resp) errBody(t *testing.T) errorBody {
	t.Helper()
	var e errorBody
	r.json(t, &e)
	if e.Error == "" || e.Code == "" || e.RequestID == "" {
		t.Errorf("error body %s lacks error, code or requestId", r.body)
	}
	return e
}

func (a *testApp) do(rq req) resp {
	a.t.Helper()
	var payload []byte
	switch {
	case rq.raw != "":
		payload = []byte(rq.raw)
	case rq.body != nil:
		var err error
		if payload, err = json.Marshal(rq.body); err != nil {
			a.t.Fatal(err)
		}
	}
	newReq := func() *http.Request {
		r, err := http.NewRequest(rq.method, a.srv.URL+rq.path, bytes.NewReader(payload))
		if err != nil {
			a.t.Fatal(err)
		}
		if payload != nil {
			ct := rq.contentType
			if ct == "" {
				ct = "application/json"
			}
			r.Header.Set("Content-Type", ct)
		}
		if rq.token != "" {
			r.Header.Set("Authorization", "Bearer "+rq.token)
		}
		for k, v := range rq.header {
			r.Header.Set(k, v)
		}
		return r
	}
	httpReq := newReq()
	res, err := a.srv.Client().Do(httpReq)
	if err != nil {
		a.t.Fatalf("%s %s: %v", rq.method, rq.path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	out := resp{status: res.StatusCode, header: res.Header, body: body}
	if !rq.noContract {
		a.checkContract(newReq(), rq.badRequest, out)
	}
	return out
}

// checkContract fails the test when the request (unless deliberately bad) or the response does not match
// api/openapi.yaml, so the document cannot drift from the code.
func (a *testApp) checkContract(r *http.Request, badRequest bool, out resp) {
	a.t.Helper()
	ctx := context.Background()
	in, err := a.contract.Operation(r)
	if err != nil {
		a.t.Errorf("contract: %s %s is not in api/openapi.yaml: %v", r.Method, r.URL.Path, err)
		return
	}
	if !badRequest {
		if err := contract.CheckRequest(ctx, in); err != nil {
			a.t.Errorf("contract: request %s %s does not match api/openapi.yaml: %v", r.Method, r.URL.Path, err)
		}
	}
	if err := contract.CheckResponse(ctx, in, out.status, out.header, out.body); err != nil {
		a.t.Errorf("contract: response %d to %s %s does not match api/openapi.yaml: %v\nbody: %s",
			out.status, r.Method, r.URL.Path, err, out.body)
	}
	// Every operation has a default response (the one error shape), which would accept any status. A 4xx is the
	// caller's to handle, so the operation must list each one it really answers; only a 5xx may fall to default.
	if out.status >= 400 && out.status < 500 && in.Route.Operation.Responses.Status(out.status) == nil {
		a.t.Errorf("contract: %s %s answered %d, which api/openapi.yaml does not list for it (only its default "+
			"response covers it)\nbody: %s", r.Method, r.URL.Path, out.status, out.body)
	}
}

// parallel sends the n requests mk makes all at once and counts the answers by status.
func (a *testApp) parallel(n int, mk func(i int) *http.Request) map[int]int {
	a.t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.srv.Client().Do(mk(i))
			if err != nil {
				a.t.Error(err)
				return
			}
			res.Body.Close()
			mu.Lock()
			codes[res.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return codes
}

// expectStatus fails unless the answer has the status.
func expectStatus(t *testing.T, r resp, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status = %d, want %d; body: %s", r.status, want, r.body)
	}
}

// register signs up a user and returns its token and user.
func (a *testApp) register(email, password, name string) (string, account.User) {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/auth/register",
		body: map[string]string{"email": email, "password": password, "fullName": name}})
	expectStatus(a.t, r, http.StatusCreated)
	var auth account.Auth
	r.json(a.t, &auth)
	return auth.Token, auth.User
}

func (a *testApp) login(email, password string) resp {
	a.t.Helper()
	return a.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": email, "password": password}})
}
