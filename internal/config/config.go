// Package config turns environment variables into a validated Config. Every variable is documented in the README
// with its default; a bad value stops the start with a message that names the variable.
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"valuator/internal/clock"
	"valuator/internal/officehours"
)

// Mode is development or production. Development generates a server secret, answers password-reset requests with
// the token, and logs readable text; production requires a secret and never reveals tokens.
type Mode string

const (
	Development Mode = "development"
	Production  Mode = "production"
)

// SMTP holds the optional mail server settings. With no Host, mail is written to the log instead.
type SMTP struct {
	Host     string
	Port     int
	Username string
	Password string
	From     string
}

// Enabled reports whether mail goes out by SMTP.
func (s SMTP) Enabled() bool { return s.Host != "" }

// Config is everything the binary reads from its environment.
type Config struct {
	Addr        string // VALUATOR_ADDR
	MetricsAddr string // VALUATOR_METRICS_ADDR: Prometheus metrics at /metrics there, apart from Addr; empty: none
	DataDir     string // VALUATOR_DATA_DIR
	DatabaseURL string // VALUATOR_DATABASE_URL
	Mode        Mode   // VALUATOR_ENV
	Secret      string // VALUATOR_SECRET; filled from the data folder in development when unset
	BaseURL     string // VALUATOR_BASE_URL, without a trailing slash
	SMTP        SMTP   // VALUATOR_SMTP_*
	LogLevel    string // VALUATOR_LOG_LEVEL
	LogFormat   string // VALUATOR_LOG_FORMAT
	SessionTTL  time.Duration
	TrustProxy  bool // VALUATOR_TRUST_PROXY: take the client address from X-Forwarded-For
	// RedisURL (VALUATOR_REDIS_URL), when set, keeps rate-limit budgets in Redis so that several instances share
	// them; unset, they are kept in memory.
	RedisURL string
	// DBMaxConns (VALUATOR_DB_MAX_CONNS, default 32) bounds each instance's PostgreSQL connections, and
	// DBMaxIdleConns (VALUATOR_DB_MAX_IDLE_CONNS, default DBMaxConns, at most DBMaxConns) how many of them are kept
	// open while idle. Size them so that instances x DBMaxConns stays below the server's max_connections minus
	// superuser_reserved_connections minus headroom for workers and operators (docs/operations.md). SQLite ignores
	// them.
	DBMaxConns, DBMaxIdleConns int
	// CacheSize is how many valuations are kept in memory (VALUATOR_CACHE_SIZE, default 20000; 0 turns it off).
	CacheSize int
	// ServeJobs runs batch jobs inside `serve` (VALUATOR_SERVE_JOBS, default true); false leaves them to
	// `valuator worker` processes, so that web servers spend no CPU on batches.
	ServeJobs bool
	// Partitions splits the market into one partition a state, each with its own engine (VALUATOR_PARTITIONS,
	// "state"; default "none", one engine of the whole market), and TrainInWorkers leaves the training of the
	// partitions' engines to jobs that the queue's workers take (VALUATOR_TRAINING, "workers"; default "here":
	// the instance that needs an engine trains it). Issue 39; docs/operations.md, "Partitions".
	Partitions     bool
	TrainInWorkers bool
	// States, with Partitions, are the only states this instance loads (VALUATOR_STATES, comma-separated codes
	// such as "WA,OR"; default every state): the instances of a country-wide installation each serve a share.
	States []string
	// SQLiteCheckpoints lets the server checkpoint SQLite's WAL itself, once a second (VALUATOR_SQLITE_CHECKPOINTS,
	// default true). Set it to false when Litestream replicates the database: Litestream must be the only process
	// that checkpoints, or a checkpoint that starts the WAL over between two of its reads makes it take a new full
	// snapshot (docs/operations.md, "Continuous protection").
	SQLiteCheckpoints bool
	// JobSlice is how long one run of a batch job lasts before it hands over (VALUATOR_JOB_SLICE, default 10s), and
	// JobRescueAfter when a job whose process died is run again (VALUATOR_JOB_RESCUE_AFTER, default 2m, at least
	// four slices). The defaults suit production; tests shorten them to see a killed worker's job resumed.
	JobSlice, JobRescueAfter time.Duration
	// Drain (VALUATOR_DRAIN; default 10s in production, 0s in development) is how long `serve`, told to stop
	// (SIGTERM or SIGINT), keeps serving every route while /readyz answers 503, so that a load balancer takes the
	// instance out before it stops taking connections. ShutdownTimeout (VALUATOR_SHUTDOWN_TIMEOUT, default 20s) then
	// bounds the wait for requests still in flight (a long download included), and again the job queue's hand-over.
	Drain, ShutdownTimeout time.Duration
	// Demo seeds an empty development database with the demo account and market (VALUATOR_DEMO, default true;
	// never in production).
	Demo bool
	// Stripe takes payments through Stripe when its secret key is set.
	Stripe Stripe
	// WhitepagesAPIKey (VALUATOR_WHITEPAGES_API_KEY), when set, finds people through Whitepages instead of the
	// local directory; WhitepagesBaseURL (VALUATOR_WHITEPAGES_BASE_URL) points it elsewhere (tests, a proxy).
	WhitepagesAPIKey  string
	WhitepagesBaseURL string
	// BillingTestMode turns on the local test-mode payments (Stripe's test cards, no money moves). It is on in
	// development without Stripe, and off in production unless VALUATOR_BILLING_TEST_MODE=true says otherwise.
	BillingTestMode bool
	// PaymentTTL is how long a payment the customer started can be paid (VALUATOR_PAYMENT_TTL, default 24h): an
	// upgrade's price is computed for a moment, and an unpaid payment expires rather than wait for ever. End-to-end
	// tests shorten it to see a payment expire.
	PaymentTTL time.Duration
	// SupportEmail (VALUATOR_SUPPORT_EMAIL) is where contact messages are mailed and the address the Contact page
	// gives. Required in production; in development it defaults to the SMTP sender's address, or
	// support@localhost (mail then goes to the log).
	SupportEmail string
	// SupportHours (VALUATOR_SUPPORT_HOURS) are the support team's office hours, which the support chat shows
	// (officehours.Parse; default officehours.DefaultHours: "Mon-Fri 09:00-18:00 America/Los_Angeles").
	SupportHours string
	// ClockStart (VALUATOR_CLOCK), when set, starts the server's clock at that instant instead of the wall clock's
	// (clock.Parse: a day, at noon UTC, or an RFC 3339 instant), and lets POST /api/dev/clock move it forward. For
	// development and tests only: the demo market, billing periods and token expiry then follow the day a test
	// chose, not the day it runs.
	ClockStart time.Time
	// BaseURLSet says VALUATOR_BASE_URL was given. Unset, BaseURL is only a guess from Addr (http://localhost:8080),
	// and the links a client installs from (GET /api/sdks) are built on the request's own host instead.
	BaseURLSet bool
}

// Stripe holds the Stripe settings (VALUATOR_STRIPE_*). With no SecretKey, payments use the local test mode in
// development and are off in production.
type Stripe struct {
	SecretKey      string // VALUATOR_STRIPE_SECRET_KEY
	PublishableKey string // VALUATOR_STRIPE_PUBLISHABLE_KEY
	WebhookSecret  string // VALUATOR_STRIPE_WEBHOOK_SECRET
	// APIBase points the client at another API server (stripe-mock in tests); empty is Stripe.
	APIBase string // VALUATOR_STRIPE_API_BASE
}

// Enabled reports whether payments go through Stripe.
func (s Stripe) Enabled() bool { return s.SecretKey != "" }

// MinSecretLength is the shortest accepted server secret: 32 bytes of entropy written as text.
const MinSecretLength = 32

// Load reads the environment through getenv and validates it. It does no I/O; EnsureSecret fills a missing
// development secret afterwards.
func Load(getenv func(string) string) (Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Addr:      get("VALUATOR_ADDR", ":8080"),
		DataDir:   get("VALUATOR_DATA_DIR", "./data"),
		Mode:      Mode(strings.ToLower(get("VALUATOR_ENV", string(Development)))),
		Secret:    getenv("VALUATOR_SECRET"),
		LogLevel:  strings.ToLower(get("VALUATOR_LOG_LEVEL", "info")),
		LogFormat: strings.ToLower(get("VALUATOR_LOG_FORMAT", "")),
	}
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
	}

	if c.Mode != Development && c.Mode != Production {
		bad("VALUATOR_ENV", "must be development or production, got %q", c.Mode)
	}
	checkAddr := func(name, addr string) {
		if _, port, err := net.SplitHostPort(addr); err != nil {
			bad(name, "must be host:port or :port, got %q", addr)
		} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
			bad(name, "port must be a number from 0 to 65535, got %q", port)
		}
	}
	checkAddr("VALUATOR_ADDR", c.Addr)
	c.MetricsAddr = getenv("VALUATOR_METRICS_ADDR")
	if c.MetricsAddr != "" {
		checkAddr("VALUATOR_METRICS_ADDR", c.MetricsAddr)
		// Metrics are for the operator: never on the public listener.
		if c.MetricsAddr == c.Addr {
			bad("VALUATOR_METRICS_ADDR", "must differ from VALUATOR_ADDR (%q): metrics are not served on the public listener", c.Addr)
		}
	}

	c.DatabaseURL = get("VALUATOR_DATABASE_URL", "sqlite://"+filepath.Join(c.DataDir, "valuator.db"))
	if err := checkDatabaseURL(c.DatabaseURL); err != nil {
		bad("VALUATOR_DATABASE_URL", "%v", err)
	}

	if c.Secret != "" && len(c.Secret) < MinSecretLength {
		bad("VALUATOR_SECRET", "must be at least %d characters (try: openssl rand -hex 32)", MinSecretLength)
	}
	if c.Secret == "" && c.Mode == Production {
		bad("VALUATOR_SECRET", "is required in production (try: openssl rand -hex 32)")
	}

	c.BaseURL = strings.TrimRight(get("VALUATOR_BASE_URL", defaultBaseURL(c.Addr)), "/")
	c.BaseURLSet = strings.TrimSpace(getenv("VALUATOR_BASE_URL")) != ""
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("VALUATOR_BASE_URL", "must be an absolute http(s) URL such as https://valuator.example.com, got %q", c.BaseURL)
	}

	c.SMTP = SMTP{
		Host:     get("VALUATOR_SMTP_HOST", ""),
		Username: getenv("VALUATOR_SMTP_USERNAME"),
		Password: getenv("VALUATOR_SMTP_PASSWORD"),
		From:     get("VALUATOR_SMTP_FROM", ""),
	}
	if p, err := strconv.Atoi(get("VALUATOR_SMTP_PORT", "587")); err != nil || p < 1 || p > 65535 {
		bad("VALUATOR_SMTP_PORT", "must be a port number, got %q", getenv("VALUATOR_SMTP_PORT"))
	} else {
		c.SMTP.Port = p
	}
	if c.SMTP.Host != "" {
		if c.SMTP.From == "" {
			bad("VALUATOR_SMTP_FROM", "is required when VALUATOR_SMTP_HOST is set")
		} else if _, err := mail.ParseAddress(c.SMTP.From); err != nil {
			bad("VALUATOR_SMTP_FROM", "must be an email address, got %q", c.SMTP.From)
		}
	}

	c.SupportEmail = get("VALUATOR_SUPPORT_EMAIL", "")
	switch {
	case c.SupportEmail != "":
		// A bare address: it is shown on the Contact page and put in a mailto: link.
		if a, err := mail.ParseAddress(c.SupportEmail); err != nil || a.Address != c.SupportEmail {
			bad("VALUATOR_SUPPORT_EMAIL", "must be a bare email address such as support@example.com, got %q", c.SupportEmail)
		}
	case c.Mode == Production:
		bad("VALUATOR_SUPPORT_EMAIL", "is required in production: contact messages are mailed to it and the Contact page shows it (such as support@example.com)")
	default:
		c.SupportEmail = "support@localhost"
		if a, err := mail.ParseAddress(c.SMTP.From); err == nil && c.SMTP.Host != "" {
			c.SupportEmail = a.Address
		}
	}

	c.SupportHours = get("VALUATOR_SUPPORT_HOURS", officehours.DefaultHours)
	if _, err := officehours.Parse(c.SupportHours); err != nil {
		bad("VALUATOR_SUPPORT_HOURS", "%v", err)
	}

	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("VALUATOR_LOG_LEVEL", "must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.LogFormat == "" {
		c.LogFormat = "text"
		if c.Mode == Production {
			c.LogFormat = "json"
		}
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		bad("VALUATOR_LOG_FORMAT", "must be text or json, got %q", c.LogFormat)
	}

	ttl, err := time.ParseDuration(get("VALUATOR_SESSION_TTL", "720h"))
	if err != nil || ttl < time.Minute {
		bad("VALUATOR_SESSION_TTL", "must be a duration of at least 1m such as 720h, got %q", getenv("VALUATOR_SESSION_TTL"))
	}
	c.SessionTTL = ttl

	if d, err := time.ParseDuration(get("VALUATOR_PAYMENT_TTL", "24h")); err != nil || d < 5*time.Second || d > 7*24*time.Hour {
		bad("VALUATOR_PAYMENT_TTL", "must be a duration from 5s to 168h such as 24h, got %q", getenv("VALUATOR_PAYMENT_TTL"))
	} else {
		c.PaymentTTL = d
	}

	if n, err := strconv.Atoi(get("VALUATOR_DB_MAX_CONNS", "32")); err != nil || n < 1 || n > 10_000 {
		bad("VALUATOR_DB_MAX_CONNS", "must be a whole number from 1 to 10000, got %q", getenv("VALUATOR_DB_MAX_CONNS"))
	} else {
		c.DBMaxConns = n
	}
	if n, err := strconv.Atoi(get("VALUATOR_DB_MAX_IDLE_CONNS", strconv.Itoa(c.DBMaxConns))); err != nil || n < 0 ||
		n > max(c.DBMaxConns, 1) {
		bad("VALUATOR_DB_MAX_IDLE_CONNS", "must be a whole number from 0 to VALUATOR_DB_MAX_CONNS, got %q",
			getenv("VALUATOR_DB_MAX_IDLE_CONNS"))
	} else {
		c.DBMaxIdleConns = n
	}

	if n, err := strconv.Atoi(get("VALUATOR_CACHE_SIZE", "20000")); err != nil || n < 0 || n > 10_000_000 {
		bad("VALUATOR_CACHE_SIZE", "must be a whole number from 0 to 10000000, got %q", getenv("VALUATOR_CACHE_SIZE"))
	} else {
		c.CacheSize = n
	}

	slice, err := time.ParseDuration(get("VALUATOR_JOB_SLICE", "10s"))
	if err != nil || slice < 100*time.Millisecond || slice > 10*time.Minute {
		bad("VALUATOR_JOB_SLICE", "must be a duration from 100ms to 10m such as 10s, got %q", getenv("VALUATOR_JOB_SLICE"))
	}
	c.JobSlice = slice
	rescue, err := time.ParseDuration(get("VALUATOR_JOB_RESCUE_AFTER", "2m"))
	if err != nil || rescue < 4*slice {
		bad("VALUATOR_JOB_RESCUE_AFTER", "must be a duration of at least four VALUATOR_JOB_SLICE such as 2m, got %q",
			getenv("VALUATOR_JOB_RESCUE_AFTER"))
	}
	c.JobRescueAfter = rescue

	drainDefault := "10s"
	if c.Mode == Development {
		drainDefault = "0s" // a developer's Ctrl-C stops at once
	}
	if d, err := time.ParseDuration(get("VALUATOR_DRAIN", drainDefault)); err != nil || d < 0 || d > 10*time.Minute {
		bad("VALUATOR_DRAIN", "must be a duration from 0s to 10m such as 10s, got %q", getenv("VALUATOR_DRAIN"))
	} else {
		c.Drain = d
	}
	if d, err := time.ParseDuration(get("VALUATOR_SHUTDOWN_TIMEOUT", "20s")); err != nil || d < time.Second || d > 30*time.Minute {
		bad("VALUATOR_SHUTDOWN_TIMEOUT", "must be a duration from 1s to 30m such as 20s, got %q",
			getenv("VALUATOR_SHUTDOWN_TIMEOUT"))
	} else {
		c.ShutdownTimeout = d
	}

	c.RedisURL = getenv("VALUATOR_REDIS_URL")
	if c.RedisURL != "" && !strings.HasPrefix(c.RedisURL, "redis://") && !strings.HasPrefix(c.RedisURL, "rediss://") &&
		!strings.HasPrefix(c.RedisURL, "unix://") {
		// The value may hold a password, so it is not repeated.
		bad("VALUATOR_REDIS_URL", "must start with redis://, rediss:// or unix:// (such as redis://localhost:6379/0)")
	}

	boolVar := func(name, def string, dst *bool) {
		switch v := strings.ToLower(get(name, def)); v {
		case "true", "1", "yes":
			*dst = true
		case "false", "0", "no":
			*dst = false
		default:
			bad(name, "must be true or false, got %q", v)
		}
	}
	boolVar("VALUATOR_TRUST_PROXY", "false", &c.TrustProxy)
	boolVar("VALUATOR_DEMO", "true", &c.Demo)
	boolVar("VALUATOR_SERVE_JOBS", "true", &c.ServeJobs)
	boolVar("VALUATOR_SQLITE_CHECKPOINTS", "true", &c.SQLiteCheckpoints)
	switch v := strings.ToLower(get("VALUATOR_PARTITIONS", "none")); v {
	case "none", "state":
		c.Partitions = v == "state"
	default:
		bad("VALUATOR_PARTITIONS", "must be none or state, got %q", v)
	}
	if v := strings.TrimSpace(getenv("VALUATOR_STATES")); v != "" {
		for _, st := range strings.Split(v, ",") {
			st = strings.ToUpper(strings.TrimSpace(st))
			if len(st) != 2 || st[0] < 'A' || st[0] > 'Z' || st[1] < 'A' || st[1] > 'Z' {
				bad("VALUATOR_STATES", "must be two-letter state codes separated by commas, such as WA,OR; got %q", v)
				break
			}
			c.States = append(c.States, st)
		}
		if !c.Partitions {
			bad("VALUATOR_STATES", "needs VALUATOR_PARTITIONS=state")
		}
	}
	switch v := strings.ToLower(get("VALUATOR_TRAINING", "here")); v {
	case "here", "workers":
		c.TrainInWorkers = v == "workers"
	default:
		bad("VALUATOR_TRAINING", "must be here or workers, got %q", v)
	}
	if c.Mode == Production {
		c.Demo = false
	}

	c.Stripe = Stripe{SecretKey: getenv("VALUATOR_STRIPE_SECRET_KEY"), PublishableKey: get("VALUATOR_STRIPE_PUBLISHABLE_KEY", ""),
		WebhookSecret: getenv("VALUATOR_STRIPE_WEBHOOK_SECRET"), APIBase: get("VALUATOR_STRIPE_API_BASE", "")}
	if c.Stripe.Enabled() {
		// The secret values are not repeated in the messages.
		if !strings.HasPrefix(c.Stripe.SecretKey, "sk_") && !strings.HasPrefix(c.Stripe.SecretKey, "rk_") {
			bad("VALUATOR_STRIPE_SECRET_KEY", "must be a Stripe secret key (sk_live_..., sk_test_... or a restricted rk_ key)")
		}
		if !strings.HasPrefix(c.Stripe.PublishableKey, "pk_") {
			bad("VALUATOR_STRIPE_PUBLISHABLE_KEY", "must be set with VALUATOR_STRIPE_SECRET_KEY, a key that starts with pk_")
		}
		if !strings.HasPrefix(c.Stripe.WebhookSecret, "whsec_") {
			bad("VALUATOR_STRIPE_WEBHOOK_SECRET", "must be set with VALUATOR_STRIPE_SECRET_KEY, the endpoint's signing secret (whsec_...)")
		}
	} else if c.Stripe.PublishableKey != "" || c.Stripe.WebhookSecret != "" {
		bad("VALUATOR_STRIPE_SECRET_KEY", "is required when the other VALUATOR_STRIPE_ variables are set")
	}
	if c.Stripe.APIBase != "" {
		if u, err := url.Parse(c.Stripe.APIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("VALUATOR_STRIPE_API_BASE", "must be an absolute http(s) URL, got %q", c.Stripe.APIBase)
		}
	}
	c.WhitepagesAPIKey = getenv("VALUATOR_WHITEPAGES_API_KEY")
	c.WhitepagesBaseURL = get("VALUATOR_WHITEPAGES_BASE_URL", "")
	if c.WhitepagesBaseURL != "" {
		if u, err := url.Parse(c.WhitepagesBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("VALUATOR_WHITEPAGES_BASE_URL", "must be an absolute http(s) URL, got %q", c.WhitepagesBaseURL)
		}
	}
	c.BillingTestMode = c.Mode == Development && !c.Stripe.Enabled()
	boolVar("VALUATOR_BILLING_TEST_MODE", strconv.FormatBool(c.BillingTestMode), &c.BillingTestMode)
	if c.BillingTestMode && c.Stripe.Enabled() {
		bad("VALUATOR_BILLING_TEST_MODE", "cannot be true when Stripe is configured (VALUATOR_STRIPE_SECRET_KEY): choose one way to take payments")
	}

	if v := get("VALUATOR_CLOCK", ""); v != "" {
		if c.Mode == Production {
			bad("VALUATOR_CLOCK", "is for development and tests only: a production server runs on the wall clock")
		} else if t, err := clock.Parse(v); err != nil {
			bad("VALUATOR_CLOCK", "%v", err)
		} else {
			c.ClockStart = t
		}
	}

	return c, errors.Join(errs...)
}

// Clock is the clock the server runs on: the wall clock, or one started at ClockStart.
func (c Config) Clock() *clock.Clock {
	if c.ClockStart.IsZero() {
		return clock.Wall()
	}
	return clock.Starting(c.ClockStart)
}

// Dev reports whether the server runs in development mode.
func (c Config) Dev() bool { return c.Mode == Development }

func checkDatabaseURL(s string) error {
	switch {
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return fmt.Errorf("is not a valid PostgreSQL URL: %v", err)
		}
		return nil
	case strings.HasPrefix(s, "sqlite://"), strings.HasPrefix(s, "sqlite:"):
		if strings.TrimPrefix(strings.TrimPrefix(s, "sqlite://"), "sqlite:") == "" {
			return errors.New("names no SQLite file")
		}
		return nil
	default:
		return fmt.Errorf("must start with sqlite:// or postgres://, got %q", s)
	}
}

func defaultBaseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// EnsureSecret fills a missing development secret from DataDir/secret, creating it (random, mode 0600) on first
// start so that sessions and encrypted API keys survive restarts. In production a missing secret was already
// rejected by Load.
func EnsureSecret(c *Config) error {
	if c.Secret != "" {
		return nil
	}
	path := filepath.Join(c.DataDir, "secret")
	if b, err := os.ReadFile(path); err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) < MinSecretLength {
			return fmt.Errorf("%s holds a secret shorter than %d characters; delete it to generate a new one", path, MinSecretLength)
		}
		c.Secret = s
		return nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read server secret: %w", err)
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil { // the database and the secret: the owner's only
		return fmt.Errorf("create data folder %s: %w", c.DataDir, err)
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	s := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return fmt.Errorf("write server secret: %w", err)
	}
	c.Secret = s
	return nil
}
