package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"valuator/api"
	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/apikey"
	"valuator/internal/avm"
	"valuator/internal/batch"
	"valuator/internal/billing"
	"valuator/internal/billing/stripepay"
	"valuator/internal/config"
	"valuator/internal/contact"
	"valuator/internal/gate"
	"valuator/internal/heap"
	"valuator/internal/jobs"
	"valuator/internal/mail"
	"valuator/internal/metrics"
	"valuator/internal/notify"
	"valuator/internal/officehours"
	"valuator/internal/person"
	"valuator/internal/person/whitepages"
	"valuator/internal/portfolio"
	"valuator/internal/ratelimit"
	"valuator/internal/sdks"
	"valuator/internal/server"
	"valuator/internal/store"
	"valuator/internal/support"
	usagerec "valuator/internal/usage" // "usage" is the command's help text
	"valuator/internal/valuation"
	"valuator/web"
)

const usage = `Usage: valuator [command] [flags]

Commands:
  serve     start the web server: API, public API and web app (the default)
  worker    run batch jobs only (no web server), beside one or more servers on the same database
  migrate   apply database migrations and exit
  import    load property records and sales from a file (valuator import sales FILE --format ...)
  demo      generate the demo market (done automatically on the first development start)
  eval      measure valuation accuracy on a sales file (valuator eval --data FILE --format ... --cut DATE)
  examples  regenerate the example valuation the product shows (make examples)
  admin     operators: valuator admin add EMAIL | remove EMAIL | reinstate EMAIL (lift a suspension)
  backup    write a consistent backup while servers run (valuator backup FILE [--force]), or check one
            (valuator backup verify FILE)
  restore   restore a backup into an empty database (valuator restore FILE [--force])
  help      show this help

Configuration comes from VALUATOR_* environment variables (see README.md); flags override them.
`

// run is the whole program; main only wires the process to it, so tests can run it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args, getenv, stdout, stderr)
	case "import":
		return runImport(ctx, args, getenv, stdout, stderr)
	case "eval":
		return runEval(ctx, args, stdout, stderr)
	case "demo":
		return runDemo(ctx, args, getenv, stdout, stderr)
	case "examples":
		return runExamples(ctx, args, stdout, stderr)
	case "worker":
		return runWorker(ctx, args, getenv, stdout, stderr)
	case "admin":
		return runAdmin(ctx, args, getenv, stdout, stderr)
	case "backup":
		return runBackup(ctx, args, getenv, stdout, stderr)
	case "restore":
		return runRestore(ctx, args, getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// loadConfig reads the environment, lets the common flags override it, and sets up logging.
func loadConfig(name string, args []string, getenv func(string) string, stderr io.Writer) (config.Config, *slog.Logger, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "listen address (overrides VALUATOR_ADDR)")
	dbURL := fs.String("database-url", "", "database URL (overrides VALUATOR_DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return config.Config{}, nil, err
	}
	// A word the command does not take is refused rather than ignored: `valuator admin add a@x.com b@x.com` once made
	// one operator and said nothing of the other (issue 36, L-8).
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "valuator %s: unexpected argument %q\n", name, fs.Arg(0))
		return config.Config{}, nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	env := func(k string) string {
		switch {
		case k == "VALUATOR_ADDR" && *addr != "":
			return *addr
		case k == "VALUATOR_DATABASE_URL" && *dbURL != "":
			return *dbURL
		}
		return getenv(k)
	}
	cfg, err := config.Load(env)
	if err != nil {
		return cfg, nil, fmt.Errorf("configuration:\n  %s", strings.ReplaceAll(err.Error(), "\n", "\n  "))
	}
	return cfg, newLogger(cfg, stderr), nil
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func openStore(ctx context.Context, cfg config.Config) (*store.DB, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	db.SetPool(cfg.DBMaxConns, cfg.DBMaxIdleConns)
	if !cfg.SQLiteCheckpoints {
		db.LeaveCheckpoints()
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, _, err := loadConfig("migrate", args, getenv, stderr)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintf(stdout, "database is up to date (%s)\n", db.Dialect())
	return nil
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	wallStart := time.Now() // for "ready in", which the wall clock measures whatever day the server's clock says
	cfg, log, err := loadConfig("serve", args, getenv, stderr)
	if err != nil {
		return err
	}
	// Every service reads the time from one clock: the wall clock, or in development and tests one started on the
	// day VALUATOR_CLOCK names, so that the demo market, billing periods and expiry follow that day.
	clk := cfg.Clock()
	now := clk.Now
	started := now()
	// The heap is kept near what the market holds live, and a training's peak given back (internal/heap).
	go heap.Tune(ctx, 5*time.Second, log)
	if err := config.EnsureSecret(&cfg); err != nil {
		return err
	}
	// The port is taken first: a port in use stops the start before the database is migrated or seeded and before
	// any job worker runs (workers of a server that then fails would take jobs only to drop them).
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (VALUATOR_ADDR): %w", cfg.Addr, err)
	}
	defer ln.Close() // on an early return; srv.Serve closes it otherwise
	metricsLn, err := listenMetrics(cfg)
	if err != nil {
		return err
	}
	if metricsLn != nil {
		defer metricsLn.Close()
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()

	openAPI, err := api.JSON(ctx, cfg.BaseURL)
	if err != nil {
		return err
	}
	// The client packages built into the binary (make build); a binary built without them answers GET /api/sdks
	// with 503, and one whose packages do not load (a broken build) does not start, as a broken contract does not.
	clients, err := sdks.Load(sdks.Embedded())
	switch {
	case errors.Is(err, sdks.ErrNotBuilt):
		log.Info("the client packages (SDKs) are not built into this binary: GET /api/sdks answers 503; make build builds them")
	case err != nil:
		return err
	}

	if mail.Undeliverable(cfg) {
		// Said at start, where an operator looks, rather than discovered when a customer cannot reset a password.
		log.Warn("emails cannot be delivered: VALUATOR_SMTP_HOST is not set, so password reset links and account " +
			"notices are not sent; they are logged without their text. Set VALUATOR_SMTP_HOST and VALUATOR_SMTP_FROM.")
	}
	mailer := &mail.Async{Sender: mail.ForConfig(cfg, log), Logger: log}
	// Sign-ins from a browser and network the account has not used are alerted; the devices are kept as HMACs
	// with a key derived from the server secret. Unsubscribe links are signed with another.
	devices, err := notify.NewDevices(cfg.Secret)
	if err != nil {
		return err
	}
	unsubscribe, err := notify.NewSigner(cfg.Secret)
	if err != nil {
		return err
	}

	accounts := account.NewService(account.Deps{
		Store:      db,
		Mailer:     mailer,
		Logger:     log,
		Dev:        cfg.Dev(),
		BaseURL:    cfg.BaseURL,
		SessionTTL: cfg.SessionTTL,
		Now:        now,
		Devices:    devices,
		// A suspended account is told to write here.
		SupportEmail: cfg.SupportEmail,
	})
	sealer, err := apikey.NewSealer(cfg.Secret)
	if err != nil {
		return err
	}
	var demoUser int64 // the demo account when it was created by this start
	if cfg.Demo {
		if demoUser, err = seedDemoAccount(ctx, db, started, stdout); err != nil {
			return err
		}
		if err := seedDemoMarket(ctx, db, started, stdout); err != nil {
			return err
		}
		if err := seedDemoPeople(ctx, db, started, stdout); err != nil {
			return err
		}
	}
	demoAccount, err := demoSignIn(ctx, db, cfg)
	if err != nil {
		return err
	}
	// The engine loads (or trains) in the background: the server answers at once, /readyz says when lookups can
	// be served, and the market is reloaded whenever records change.
	vals, err := newValuation(cfg, db, log, now)
	if err != nil {
		return err
	}
	vals.WarmMarkets()
	m := newMetrics(metricsLn, db, vals)
	loadEngine := func() {
		if demoUser != 0 {
			// The demo account's weeks of use are valued by the real engine: trained (and saved) for the seeding
			// first, so that the server is ready only once the account's history is written, and then restored
			// by vals rather than trained twice.
			if err := seedDemoTrained(ctx, db, log, sealer, demoUser, started, now, stdout); err != nil && ctx.Err() == nil {
				log.Error("seeding the demo account's activity", "err", err)
			}
		}
		if err := vals.Load(ctx); err != nil {
			if ctx.Err() == nil {
				log.Error("loading the valuation engine", "err", err)
			}
		} else {
			// Running means ready to use: the engine loaded, the demo account's history written and every ZIP's
			// market statistics computed, so that a first visitor finds nothing still being prepared.
			vals.WaitMarkets(ctx)
			if ctx.Err() == nil {
				fmt.Fprintf(stdout, "Valuator is running at %s (ready in %.1f s)\n", cfg.BaseURL, time.Since(wallStart).Seconds())
			}
		}
		vals.Watch(ctx, time.Minute)
	}
	bill, err := newBilling(cfg, db, log, now)
	if err != nil {
		return err
	}
	people, err := newPeople(cfg, db, log)
	if err != nil {
		return err
	}
	// Batch jobs run in this process too (unless VALUATOR_SERVE_JOBS=false); `valuator worker` processes add capacity.
	// The queue's jobs send mail themselves, synchronously, so that a delivery that fails is tried again.
	queue, portfolios, err := newQueue(cfg, cfg.ServeJobs, db, vals, bill, mailer.Sender, m, log, now)
	if err != nil {
		return err
	}
	// The queue runs on past the signal, through the drain, and is stopped last (queue.Stop), so that its running
	// batch jobs hand their slice back between chunks rather than being cancelled mid-chunk.
	queueCtx, stopQueue := context.WithCancel(context.WithoutCancel(ctx))
	defer stopQueue()
	if err := queue.Start(queueCtx); err != nil {
		return fmt.Errorf("start the job queue: %w", err)
	}
	// Started once the queue is (newQueue hands it the trainings to queue, VALUATOR_TRAINING=workers).
	go loadEngine()
	// API keys' last use is kept in memory and written every 30 seconds (and at shutdown), not on every call.
	touches := &apikey.Touches{}
	flushTouches := func(ctx context.Context) {
		if err := db.TouchAPIKeys(ctx, touches.Drain()); err != nil {
			log.Error("saving API keys' last use", "err", err)
		}
	}
	go func() {
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				flushTouches(ctx)
			}
		}
	}()
	// Rate-limit budgets live in Redis when it is configured, so that every instance spends from the same ones.
	var formLimiter, apiLimiter ratelimit.Limiter = ratelimit.NewMemory(nil), ratelimit.NewMemory(nil)
	if cfg.RedisURL != "" {
		rl, err := ratelimit.NewRedis(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("VALUATOR_REDIS_URL: %w", err)
		}
		defer rl.Close()
		// A Redis that fails or stops answering costs a request at most a few hundred milliseconds, and after a
		// few failures it is not asked for a while: each instance then applies the limits on its own.
		guarded := ratelimit.NewGuard(rl, log, nil)
		formLimiter, apiLimiter = guarded, guarded
	}
	hours, err := officehours.Parse(cfg.SupportHours)
	if err != nil {
		return fmt.Errorf("VALUATOR_SUPPORT_HOURS: %w", err)
	}
	// The operators' console and the support chat (issue 27).
	adminService := &admin.Service{Store: db, Enqueue: queue.EnqueueBatch, Now: now}
	if bill.Provider != nil {
		adminService.Refunder = bill.Provider
		adminService.ProviderCalls = bill.RunProviderActions
	}
	supportService := &support.Service{Store: db, Hours: hours, Now: now}
	drain := &server.Drain{}
	handler := server.New(server.Deps{
		Config:     cfg,
		Logger:     log,
		DB:         db,
		Accounts:   accounts,
		Valuation:  vals,
		APIKeys:    apikey.NewService(db, sealer, log, now),
		Usage:      usagerec.NewService(db, now),
		Batches:    batch.NewService(batch.Deps{Store: db, Queue: queue, Logger: log, Dev: cfg.Dev(), Now: now}),
		Portfolios: portfolios,
		People: person.NewService(person.Deps{Store: db, Provider: people, Mailer: mailer, Limiter: formLimiter,
			Logger: log, BaseURL: cfg.BaseURL, Dev: cfg.Dev(), Now: now}),
		Contact:     contact.NewService(db, formLimiter, log, now, cfg.SupportEmail),
		OpenAPI:     openAPI,
		Web:         web.App(),
		SDKs:        clients,
		FormLimiter: formLimiter,
		APILimiter:  apiLimiter,
		Touches:     touches,
		// One gate for the whole process: every route that reads an uploaded spreadsheet takes a slot.
		SpreadsheetReads: gate.New(server.DefaultSpreadsheetReads()),
		Billing:          bill,
		DemoAccount:      demoAccount,
		Metrics:          m,
		Unsubscribe:      unsubscribe,
		Admin:            adminService,
		Support:          supportService,
		Now:              now,
		Clock:            clk,
		Drain:            drain,
	})

	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute, // batch uploads of up to 50 MB on slow links
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("valuator started", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "mode", cfg.Mode,
		"database", db.Dialect().String(), "smtp", cfg.SMTP.Enabled(), "redis", cfg.RedisURL != "", "startup_ms", time.Since(started).Milliseconds())
	fmt.Fprintf(stdout, "Valuator is starting at %s (listening on %s): %s\n", cfg.BaseURL, ln.Addr(), startingWhat(demoUser != 0))

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	stopMetrics := serveMetrics(metricsLn, m, log)
	defer stopMetrics()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	stopServing(srv, drain, cfg, log)
	flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	flushTouches(flushCtx)
	// Running batch jobs end their chunk and hand the rest of their slice back to the queue, where another instance
	// takes it; whatever a cut-off chunk had not saved is valued again later, never charged twice.
	log.Info("stopping the job queue: running batch jobs hand their work back", "timeout", cfg.ShutdownTimeout)
	queueStop, cancelQueueStop := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancelQueueStop()
	if err := queue.Stop(queueStop); err != nil {
		log.Error("stopping the job queue", "err", err)
	}
	if err := mailer.Close(queueStop); err != nil {
		log.Error("emails still queued at shutdown", "err", err)
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// stopServing takes a server told to stop out of service without failing a request (docs/operations.md, "Restarts
// and rolling deploys"): for cfg.Drain it keeps serving every route while /readyz answers 503 and each response
// closes its connection, so that load balancers move to other instances; a second SIGTERM or SIGINT ends the
// drain early. Then it stops taking connections and waits up to cfg.ShutdownTimeout for the requests in flight (a
// long download included), cutting off whatever is still running then.
func stopServing(srv *http.Server, drain *server.Drain, cfg config.Config, log *slog.Logger) {
	began := time.Now()
	drain.Start(began)
	// Idle keep-alive connections are closed now, and every response from here on says Connection: close.
	srv.SetKeepAlivesEnabled(false)
	if cfg.Drain > 0 {
		log.Info("draining: /readyz answers 503 while every other route is still served", "drain", cfg.Drain.String())
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		t := time.NewTimer(cfg.Drain)
		select {
		case <-t.C:
		case sig := <-again:
			log.Info("drain cut short by a second signal", "signal", sig.String())
		}
		t.Stop()
		signal.Stop(again)
	}
	log.Info("shutting down: no new connections; finishing requests in flight", "timeout", cfg.ShutdownTimeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	waited := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		log.Error("requests still in flight after VALUATOR_SHUTDOWN_TIMEOUT were cut off", "err", err,
			"timeout", cfg.ShutdownTimeout.String())
		_ = srv.Close()
		return
	}
	log.Info("requests in flight finished", "waited_ms", time.Since(waited).Milliseconds(),
		"since_signal_ms", time.Since(began).Milliseconds())
}

// startingWhat says what a starting server is doing before it says it is running.
func startingWhat(seedingDemo bool) string {
	if seedingDemo {
		return "training the valuation engine on the demo market and writing the demo account's history (about 15 s)..."
	}
	return "loading the valuation engine..."
}

// newValuation makes the valuation service as cfg says: its cache, and the market in partitions
// (VALUATOR_PARTITIONS).
func newValuation(cfg config.Config, db *store.DB, log *slog.Logger, now func() time.Time) (*valuation.Service, error) {
	vals := valuation.New(db, log, now, avm.DefaultOptions())
	vals.SetCacheSize(cfg.CacheSize)
	if cfg.Partitions {
		if err := vals.Partitions(cfg.States...); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// newQueue makes the job queue, with its workers unless workers is false (it then only queues), and the portfolio
// service, whose monthly revaluation is one of the queue's jobs and whose alerts it queues. Webhooks may reach
// private addresses only in development.
func newQueue(cfg config.Config, workers bool, db *store.DB, vals *valuation.Service, bill *billing.Service,
	mailer mail.Sender, m *metrics.Metrics, log *slog.Logger, now func() time.Time) (*jobs.Queue, *portfolio.Service, error) {
	unsubscribe, err := notify.NewSigner(cfg.Secret)
	if err != nil {
		return nil, nil, err
	}
	// A batch service without a queue, for its check of webhook URLs: one rule for batch jobs' and portfolios'.
	hooks := batch.NewService(batch.Deps{Logger: log, Dev: cfg.Dev(), Now: now})
	portfolios := portfolio.NewService(portfolio.Deps{Store: db, Valuer: vals, Logger: log, Now: now,
		CheckWebhook: hooks.CheckWebhookURL, NewSecret: batch.NewWebhookSecret})
	queue, err := jobs.New(jobs.Config{Store: db, Valuer: vals, Logger: log, BaseURL: cfg.BaseURL, Workers: workers,
		Slice: cfg.JobSlice, RescueAfter: cfg.JobRescueAfter, Webhooks: jobs.WebhookClient(cfg.Dev()), Billing: bill,
		Mailer: mailer, Metrics: m, Unsubscribe: unsubscribe, Now: now, Portfolios: portfolios, Trainer: vals})
	if err != nil {
		return nil, nil, err
	}
	portfolios.SetEnqueue(queue.EnqueuePortfolioAlert)
	if cfg.TrainInWorkers {
		vals.TrainBy(queue.EnqueueTraining)
	}
	return queue, portfolios, nil
}

// listenMetrics takes the metrics address (VALUATOR_METRICS_ADDR) when one is set, at start like the main one, so
// that a port in use stops the start; nil when metrics are off.
func listenMetrics(cfg config.Config) (net.Listener, error) {
	if cfg.MetricsAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (VALUATOR_METRICS_ADDR): %w", cfg.MetricsAddr, err)
	}
	return ln, nil
}

// newMetrics makes the process's metrics when they are served (ln is set); nil otherwise, and every update is then
// a no-op. Call it before the engine loads, so that its training is counted.
func newMetrics(ln net.Listener, db *store.DB, vals *valuation.Service) *metrics.Metrics {
	if ln == nil {
		return nil
	}
	m := metrics.New()
	for name, pool := range db.Pools() {
		m.WatchDB(name, pool)
	}
	m.WatchBatchQueue(db.BatchQueueStats, []string{batch.StatusPending, batch.StatusProcessing, batch.StatusCompleted,
		batch.StatusFailed, batch.StatusCancelled})
	vals.SetMetrics(m)
	return m
}

// serveMetrics serves GET /metrics on ln (and nothing else: it is the operator's port, not the public one) and
// returns a function that stops it.
func serveMetrics(ln net.Listener, m *metrics.Metrics, log *slog.Logger) (stop func()) {
	if ln == nil {
		return func() {}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "err", err)
		}
	}()
	log.Info("metrics served", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
}

// newPeople is the person-lookup provider: Whitepages when its key is set, otherwise the local directory.
func newPeople(cfg config.Config, db *store.DB, log *slog.Logger) (person.Provider, error) {
	if cfg.WhitepagesAPIKey == "" {
		return person.Directory{Store: db}, nil
	}
	return whitepages.New(whitepages.Config{APIKey: cfg.WhitepagesAPIKey, BaseURL: cfg.WhitepagesBaseURL,
		Logger: log.With("component", "whitepages")})
}

// newBilling makes the billing service with the payments provider the configuration asks for: Stripe when its
// key is set, the local test mode when enabled (the default in development), otherwise none (payments are off
// and the app says so).
func newBilling(cfg config.Config, db *store.DB, log *slog.Logger, now func() time.Time) (*billing.Service, error) {
	svc := &billing.Service{Store: db, Log: log.With("component", "billing"), PaymentTTL: cfg.PaymentTTL, Now: now}
	switch {
	case cfg.Stripe.Enabled():
		p, err := stripepay.New(stripepay.Config{SecretKey: cfg.Stripe.SecretKey, PublishableKey: cfg.Stripe.PublishableKey,
			WebhookSecret: cfg.Stripe.WebhookSecret, APIBase: cfg.Stripe.APIBase, Logger: log.With("component", "stripe")})
		if err != nil {
			return nil, err
		}
		svc.Provider = p
	case cfg.BillingTestMode:
		svc.Provider = billing.Local{Cards: db, Key: []byte(cfg.Secret)}
		if !cfg.Dev() {
			log.Warn("billing test mode is on in production (VALUATOR_BILLING_TEST_MODE=true): plans are granted for test cards and no money moves")
		}
	default:
		log.Warn("payments are off: set VALUATOR_STRIPE_SECRET_KEY, VALUATOR_STRIPE_PUBLISHABLE_KEY and VALUATOR_STRIPE_WEBHOOK_SECRET to take payments with Stripe")
	}
	return svc, nil
}

// runWorker runs batch jobs until the context ends: the engine loads first (rows are valued in this process).
func runWorker(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, log, err := loadConfig("worker", args, getenv, stderr)
	if err != nil {
		return err
	}
	// The worker signs the unsubscribe links of the emails it sends with the server's secret (in development, the
	// one serve generated in the data folder).
	if err := config.EnsureSecret(&cfg); err != nil {
		return err
	}
	metricsLn, err := listenMetrics(cfg)
	if err != nil {
		return err
	}
	if metricsLn != nil {
		defer metricsLn.Close()
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	now := cfg.Clock().Now
	go heap.Tune(ctx, 5*time.Second, log) // as serve does
	vals, err := newValuation(cfg, db, log, now)
	if err != nil {
		return err
	}
	m := newMetrics(metricsLn, db, vals)
	// Served from the start, so that a worker whose engine is still training is seen (valuator_engine_ready 0).
	defer serveMetrics(metricsLn, m, log)()
	bill, err := newBilling(cfg, db, log, now)
	if err != nil {
		return err
	}
	mailer := &mail.Async{Sender: mail.ForConfig(cfg, log), Logger: log}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := mailer.Close(closeCtx); err != nil {
			log.Error("alert emails still queued at shutdown", "err", err)
		}
	}()
	queue, _, err := newQueue(cfg, true, db, vals, bill, mailer.Sender, m, log, now)
	if err != nil {
		return err
	}
	// As in serve: the queue outlives the signal and is stopped, so running jobs hand back between chunks.
	queueCtx, stopQueue := context.WithCancel(context.WithoutCancel(ctx))
	defer stopQueue()
	startQueue := func() error {
		if err := queue.Start(queueCtx); err != nil {
			return fmt.Errorf("start the job queue: %w", err)
		}
		return nil
	}
	// The engine loads first, so that batch rows are valued in this process from the start; unless the workers
	// train it (VALUATOR_TRAINING=workers): this worker then takes training jobs while its own load waits for them.
	if cfg.TrainInWorkers {
		if err := startQueue(); err != nil {
			return err
		}
	}
	if err := vals.Load(ctx); err != nil {
		return fmt.Errorf("loading the valuation engine: %w", err)
	}
	go vals.Watch(ctx, time.Minute)
	if !cfg.TrainInWorkers {
		if err := startQueue(); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "Valuator worker is running (%s)\n", db.Dialect())
	<-ctx.Done()
	log.Info("worker shutting down: running batch jobs hand their work back", "timeout", cfg.ShutdownTimeout.String())
	stopCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := queue.Stop(stopCtx); err != nil {
		return err
	}
	log.Info("worker stopped")
	return nil
}
