package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	checks := []struct{ name, got, want string }{
		{"Addr", c.Addr, ":8080"},
		{"MetricsAddr", c.MetricsAddr, ""},
		{"DatabaseURL", c.DatabaseURL, "sqlite://data/valuator.db"},
		{"Mode", string(c.Mode), "development"},
		{"BaseURL", c.BaseURL, "http://localhost:8080"},
		{"LogFormat", c.LogFormat, "text"},
		{"BaseURLSet", fmt.Sprint(c.BaseURLSet), "false"},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %q, want %q", ck.name, ck.got, ck.want)
		}
	}
	if c.SessionTTL != 720*time.Hour {
		t.Errorf("SessionTTL = %v, want 720h", c.SessionTTL)
	}
	if c.SMTP.Enabled() {
		t.Error("SMTP enabled without a host")
	}
	if !c.SQLiteCheckpoints {
		t.Error("SQLiteCheckpoints is off by default; the server checkpoints unless Litestream does")
	}
	if c, err := Load(env(map[string]string{"VALUATOR_SQLITE_CHECKPOINTS": "false"})); err != nil || c.SQLiteCheckpoints {
		t.Errorf("VALUATOR_SQLITE_CHECKPOINTS=false: %v, SQLiteCheckpoints %v", err, c.SQLiteCheckpoints)
	}
	if c.DBMaxConns != 32 || c.DBMaxIdleConns != 32 {
		t.Errorf("DBMaxConns %d, DBMaxIdleConns %d; want 32, 32 (as before they were settings)", c.DBMaxConns, c.DBMaxIdleConns)
	}
	if c, err := Load(env(map[string]string{"VALUATOR_DB_MAX_CONNS": "8"})); err != nil || c.DBMaxConns != 8 || c.DBMaxIdleConns != 8 {
		t.Errorf("VALUATOR_DB_MAX_CONNS=8: %d, %d, %v; want 8 and idle 8", c.DBMaxConns, c.DBMaxIdleConns, err)
	}
	if !c.ServeJobs || c.JobSlice != 10*time.Second || c.JobRescueAfter != 2*time.Minute {
		t.Errorf("ServeJobs %v, JobSlice %v, JobRescueAfter %v; want true, 10s, 2m", c.ServeJobs, c.JobSlice, c.JobRescueAfter)
	}
	// A developer's Ctrl-C stops at once; production drains for 10 s by default (docs/operations.md, Restarts).
	if c.Drain != 0 || c.ShutdownTimeout != 20*time.Second {
		t.Errorf("development: Drain %v, ShutdownTimeout %v; want 0s and 20s", c.Drain, c.ShutdownTimeout)
	}
	prod, err := Load(env(map[string]string{"VALUATOR_ENV": "production", "VALUATOR_SECRET": strings.Repeat("s", 40),
		"VALUATOR_SUPPORT_EMAIL": "help@example.com"}))
	if err != nil || prod.Drain != 10*time.Second || prod.ShutdownTimeout != 20*time.Second {
		t.Errorf("production: Drain %v, ShutdownTimeout %v (%v); want 10s and 20s", prod.Drain, prod.ShutdownTimeout, err)
	}
	if c, err := Load(env(map[string]string{"VALUATOR_DRAIN": "1500ms", "VALUATOR_SHUTDOWN_TIMEOUT": "5s"})); err != nil ||
		c.Drain != 1500*time.Millisecond || c.ShutdownTimeout != 5*time.Second {
		t.Errorf("VALUATOR_DRAIN=1500ms, VALUATOR_SHUTDOWN_TIMEOUT=5s: %v, %v, %v", c.Drain, c.ShutdownTimeout, err)
	}
}

func TestLoadNamesTheBadVariable(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bad mode", map[string]string{"VALUATOR_ENV": "staging"}, "VALUATOR_ENV"},
		{"bad addr", map[string]string{"VALUATOR_ADDR": "8080"}, "VALUATOR_ADDR"},
		{"bad port", map[string]string{"VALUATOR_ADDR": ":99999"}, "VALUATOR_ADDR"},
		{"bad metrics addr", map[string]string{"VALUATOR_METRICS_ADDR": "9090"}, "VALUATOR_METRICS_ADDR"},
		{"metrics on the public listener", map[string]string{"VALUATOR_ADDR": ":8080", "VALUATOR_METRICS_ADDR": ":8080"}, "VALUATOR_METRICS_ADDR"},
		{"bad database", map[string]string{"VALUATOR_DATABASE_URL": "mysql://x"}, "VALUATOR_DATABASE_URL"},
		{"short secret", map[string]string{"VALUATOR_SECRET": "short"}, "VALUATOR_SECRET"},
		{"production without secret", map[string]string{"VALUATOR_ENV": "production"}, "VALUATOR_SECRET"},
		{"bad base url", map[string]string{"VALUATOR_BASE_URL": "valuator.example.com"}, "VALUATOR_BASE_URL"},
		{"smtp without from", map[string]string{"VALUATOR_SMTP_HOST": "mail.example.com"}, "VALUATOR_SMTP_FROM"},
		{"bad smtp from", map[string]string{"VALUATOR_SMTP_HOST": "mail.example.com", "VALUATOR_SMTP_FROM": "nope"}, "VALUATOR_SMTP_FROM"},
		{"bad smtp port", map[string]string{"VALUATOR_SMTP_PORT": "x"}, "VALUATOR_SMTP_PORT"},
		{"bad log level", map[string]string{"VALUATOR_LOG_LEVEL": "loud"}, "VALUATOR_LOG_LEVEL"},
		{"bad log format", map[string]string{"VALUATOR_LOG_FORMAT": "xml"}, "VALUATOR_LOG_FORMAT"},
		{"bad ttl", map[string]string{"VALUATOR_SESSION_TTL": "soon"}, "VALUATOR_SESSION_TTL"},
		{"bad trust proxy", map[string]string{"VALUATOR_TRUST_PROXY": "maybe"}, "VALUATOR_TRUST_PROXY"},
		{"bad demo", map[string]string{"VALUATOR_DEMO": "sometimes"}, "VALUATOR_DEMO"},
		{"bad db max conns", map[string]string{"VALUATOR_DB_MAX_CONNS": "0"}, "VALUATOR_DB_MAX_CONNS"},
		{"idle above max conns", map[string]string{"VALUATOR_DB_MAX_CONNS": "8", "VALUATOR_DB_MAX_IDLE_CONNS": "9"},
			"VALUATOR_DB_MAX_IDLE_CONNS"},
		{"bad cache size", map[string]string{"VALUATOR_CACHE_SIZE": "-1"}, "VALUATOR_CACHE_SIZE"},
		{"bad serve jobs", map[string]string{"VALUATOR_SERVE_JOBS": "some"}, "VALUATOR_SERVE_JOBS"},
		{"bad partitions", map[string]string{"VALUATOR_PARTITIONS": "zip"}, "VALUATOR_PARTITIONS"},
		{"bad training", map[string]string{"VALUATOR_TRAINING": "elsewhere"}, "VALUATOR_TRAINING"},
		{"bad states", map[string]string{"VALUATOR_PARTITIONS": "state", "VALUATOR_STATES": "WA,Oregon"}, "VALUATOR_STATES"},
		{"states unpartitioned", map[string]string{"VALUATOR_STATES": "WA"}, "VALUATOR_STATES"},
		{"bad job slice", map[string]string{"VALUATOR_JOB_SLICE": "10"}, "VALUATOR_JOB_SLICE"},
		{"tiny job slice", map[string]string{"VALUATOR_JOB_SLICE": "1ms"}, "VALUATOR_JOB_SLICE"},
		{"rescue before four slices", map[string]string{"VALUATOR_JOB_SLICE": "1s", "VALUATOR_JOB_RESCUE_AFTER": "3s"},
			"VALUATOR_JOB_RESCUE_AFTER"},
		{"bad drain", map[string]string{"VALUATOR_DRAIN": "10"}, "VALUATOR_DRAIN"},
		{"negative drain", map[string]string{"VALUATOR_DRAIN": "-1s"}, "VALUATOR_DRAIN"},
		{"bad shutdown timeout", map[string]string{"VALUATOR_SHUTDOWN_TIMEOUT": "soon"}, "VALUATOR_SHUTDOWN_TIMEOUT"},
		{"tiny shutdown timeout", map[string]string{"VALUATOR_SHUTDOWN_TIMEOUT": "10ms"}, "VALUATOR_SHUTDOWN_TIMEOUT"},
		{"bad redis url", map[string]string{"VALUATOR_REDIS_URL": "http://:hunter2@cache:6379"}, "VALUATOR_REDIS_URL"},
		{"production without support email", map[string]string{"VALUATOR_ENV": "production",
			"VALUATOR_SECRET": strings.Repeat("s", 40)}, "VALUATOR_SUPPORT_EMAIL"},
		{"bad support email", map[string]string{"VALUATOR_SUPPORT_EMAIL": "support"}, "VALUATOR_SUPPORT_EMAIL"},
		{"support email with a name", map[string]string{"VALUATOR_SUPPORT_EMAIL": "Support <support@example.com>"},
			"VALUATOR_SUPPORT_EMAIL"},
		{"support email with a line break", map[string]string{"VALUATOR_SUPPORT_EMAIL": "support@example.com\nBcc: x@y.z"},
			"VALUATOR_SUPPORT_EMAIL"},
		{"bad clock", map[string]string{"VALUATOR_CLOCK": "next tuesday"}, "VALUATOR_CLOCK"},
		{"clock in production", map[string]string{"VALUATOR_ENV": "production", "VALUATOR_SECRET": strings.Repeat("s", 40),
			"VALUATOR_SUPPORT_EMAIL": "help@example.com", "VALUATOR_CLOCK": "2026-11-28"}, "VALUATOR_CLOCK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(env(tt.env))
			if err == nil {
				t.Fatalf("Load() error = nil, want an error naming %s", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load() error = %q, want it to name %s", err, tt.want)
			}
		})
	}
}

func TestLoadProduction(t *testing.T) {
	c, err := Load(env(map[string]string{
		"VALUATOR_ENV":           "production",
		"VALUATOR_SECRET":        strings.Repeat("s", 40),
		"VALUATOR_DATABASE_URL":  "postgres://u:p@db:5432/valuator",
		"VALUATOR_BASE_URL":      "https://valuator.example.com/",
		"VALUATOR_ADDR":          "0.0.0.0:9000",
		"VALUATOR_SUPPORT_EMAIL": "help@valuator.example.com",
	}))
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if c.SupportEmail != "help@valuator.example.com" {
		t.Errorf("SupportEmail = %q, want help@valuator.example.com", c.SupportEmail)
	}
	if c.Dev() {
		t.Error("Dev() = true in production")
	}
	if c.BaseURL != "https://valuator.example.com" || !c.BaseURLSet {
		t.Errorf("BaseURL = %q (set %v), want the trailing slash trimmed and BaseURLSet", c.BaseURL, c.BaseURLSet)
	}
	if c.LogFormat != "json" {
		t.Errorf("LogFormat = %q, want json in production", c.LogFormat)
	}
}

func TestEnsureSecretGeneratesOnceAndKeepsIt(t *testing.T) {
	dir := t.TempDir()
	c := Config{DataDir: filepath.Join(dir, "data")}
	if err := EnsureSecret(&c); err != nil {
		t.Fatalf("EnsureSecret() error = %v", err)
	}
	if len(c.Secret) < MinSecretLength {
		t.Fatalf("generated secret has %d characters, want >= %d", len(c.Secret), MinSecretLength)
	}
	info, err := os.Stat(filepath.Join(dir, "data", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("secret file mode = %v, want 0600", perm)
	}
	again := Config{DataDir: c.DataDir}
	if err := EnsureSecret(&again); err != nil {
		t.Fatal(err)
	}
	if again.Secret != c.Secret {
		t.Error("second start generated a different secret; want the stored one")
	}
	given := Config{DataDir: c.DataDir, Secret: strings.Repeat("x", 32)}
	if err := EnsureSecret(&given); err != nil || given.Secret != strings.Repeat("x", 32) {
		t.Errorf("EnsureSecret replaced a configured secret")
	}
}

// TestSupportEmailRequiredInProductionOnly: production refuses to start without VALUATOR_SUPPORT_EMAIL, with a
// message that names it; development falls back to the SMTP sender's address, or support@localhost without SMTP.
func TestSupportEmailRequiredInProductionOnly(t *testing.T) {
	_, err := Load(env(map[string]string{"VALUATOR_ENV": "production", "VALUATOR_SECRET": strings.Repeat("s", 40)}))
	if err == nil || !strings.Contains(err.Error(), "VALUATOR_SUPPORT_EMAIL: is required in production") {
		t.Errorf("production without VALUATOR_SUPPORT_EMAIL: error = %v, want one saying it is required", err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"development", nil, "support@localhost"},
		{"development with SMTP", map[string]string{"VALUATOR_SMTP_HOST": "mail.example.com",
			"VALUATOR_SMTP_FROM": "Valuator <team@example.com>"}, "team@example.com"},
		{"set", map[string]string{"VALUATOR_SUPPORT_EMAIL": "help@example.com"}, "help@example.com"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(env(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.SupportEmail != tt.want {
				t.Errorf("SupportEmail = %q, want %q", c.SupportEmail, tt.want)
			}
		})
	}
}

func TestClockStartsWhereTold(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !c.ClockStart.IsZero() || c.Clock().Settable() {
		t.Errorf("without VALUATOR_CLOCK: ClockStart %v, settable %v; want the wall clock", c.ClockStart, c.Clock().Settable())
	}
	for _, tt := range []struct{ in, want string }{
		{"2027-01-01", "2027-01-01T12:00:00Z"},
		{"2026-12-31T23:59:30Z", "2026-12-31T23:59:30Z"},
		{"2026-12-31T23:59:30-08:00", "2027-01-01T07:59:30Z"},
	} {
		c, err := Load(env(map[string]string{"VALUATOR_CLOCK": tt.in}))
		if err != nil {
			t.Fatalf("VALUATOR_CLOCK=%s: %v", tt.in, err)
		}
		if got := c.ClockStart.Format(time.RFC3339); got != tt.want {
			t.Errorf("VALUATOR_CLOCK=%s: ClockStart %s, want %s", tt.in, got, tt.want)
		}
		if got := c.Clock().Now(); got.Sub(c.ClockStart).Abs() > time.Minute {
			t.Errorf("VALUATOR_CLOCK=%s: the clock reads %v", tt.in, got)
		}
	}
}
