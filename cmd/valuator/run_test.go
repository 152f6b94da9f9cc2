package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"valuator/internal/ratelimit"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	"valuator/internal/testredis"
)

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		runWorkerProcess()
	}
	if os.Getenv(runEnv) != "" {
		runChildCommand()
	}
	testdb.Main(m, testredis.Shutdown)
}

// envFrom is an environment of m's variables. A development process runs on the tests' day (VALUATOR_CLOCK), not
// the calendar's, unless m sets VALUATOR_CLOCK itself; production refuses any clock but the wall's.
func envFrom(m map[string]string) func(string) string {
	_, set := m["VALUATOR_CLOCK"]
	day := testclock.Day()
	return func(k string) string {
		if k == "VALUATOR_CLOCK" && !set && !strings.EqualFold(m["VALUATOR_ENV"], "production") {
			return day
		}
		return m[k]
	}
}

func TestRunRejectsBadConfigNamingTheVariable(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"serve"}, envFrom(map[string]string{"VALUATOR_ENV": "production"}), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "VALUATOR_SECRET") {
		t.Errorf("run() error = %v, want one naming VALUATOR_SECRET", err)
	}
	err = run(context.Background(), []string{"frobnicate"}, envFrom(nil), &out, &errOut)
	if err == nil || !strings.Contains(errOut.String(), "Usage") {
		t.Errorf("unknown command: err=%v, stderr=%q", err, errOut.String())
	}
}

func TestMigrate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		var out bytes.Buffer
		env := envFrom(map[string]string{"VALUATOR_DATABASE_URL": url, "VALUATOR_DATA_DIR": t.TempDir()})
		if err := run(context.Background(), []string{"migrate"}, env, &out, &out); err != nil {
			t.Fatalf("migrate: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "up to date") {
			t.Errorf("output = %q", out.String())
		}
	})
}

// TestServeStartsAndShutsDownGracefully runs the real server on a free port, makes a request and stops it the
// way SIGTERM would (by cancelling the context).
func TestServeStartsAndShutsDownGracefully(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, map[string]string{"VALUATOR_DATA_DIR": dir})
	if !strings.Contains(srv.out.String(), "Valuator is running at") {
		t.Errorf("stdout = %q", srv.out.String())
	}
	if strings.Contains(srv.out.String(), demoEmail) {
		t.Errorf("VALUATOR_DEMO=false still seeded the demo: %q", srv.out.String())
	}
	// The development secret was generated in the data folder.
	if _, err := os.Stat(filepath.Join(dir, "secret")); err != nil {
		t.Errorf("no generated secret: %v", err)
	}
	// The start-up log at INFO is the line that matters, not River's notice that it polls.
	if strings.Contains(srv.logs.String(), "poll only mode") || !strings.Contains(srv.logs.String(), "valuator started") {
		t.Errorf("start-up log:\n%s", srv.logs.String())
	}
	srv.stop(t)
	if !strings.Contains(srv.logs.String(), "stopped") {
		t.Errorf("no clean stop in the log:\n%s", srv.logs.String())
	}
	if _, err := http.Get(srv.url + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// TestServeFailsFastOnATakenPort: a port in use stops `serve` before the database is opened and before the job
// queue exists, so no worker takes a job only to be stopped with the failed start.
func TestServeFailsFastOnATakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	env := envFrom(map[string]string{"VALUATOR_ADDR": taken.Addr().String(), "VALUATOR_DATA_DIR": dir,
		"VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"), "VALUATOR_LOG_LEVEL": "debug"})
	var out, logs syncBuffer
	err = run(context.Background(), nil, env, &out, &logs)
	if err == nil || !strings.Contains(err.Error(), "VALUATOR_ADDR") {
		t.Fatalf("run() = %v, want an error naming VALUATOR_ADDR", err)
	}
	// Even at DEBUG the job queue said nothing: it was never made, let alone started.
	if strings.Contains(logs.String(), "component=jobs") {
		t.Errorf("the job queue ran before the port was known to be free:\n%s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "v.db")); !os.IsNotExist(err) {
		t.Errorf("the database was opened (stat: %v); want nothing done before the port is bound", err)
	}
	if out.String() != "" {
		t.Errorf("stdout = %q, want nothing (no demo seeded, not running)", out.String())
	}
}

// TestServeKeepsRateLimitsInRedis checks the wiring of VALUATOR_REDIS_URL: the budgets are kept in that Redis,
// and a Redis that does not answer stops the start with an error naming the variable.
func TestServeKeepsRateLimitsInRedis(t *testing.T) {
	redisURL := testredis.URL(t)
	srv := startServe(t, map[string]string{"VALUATOR_REDIS_URL": redisURL})
	res, err := http.Get(srv.url + "/api/v1/property/valuation?address=1+Main+St")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("x-ratelimit-remaining") != "59" {
		t.Errorf("keyless call: %d, remaining %q; want 401 and 59", res.StatusCode, res.Header.Get("x-ratelimit-remaining"))
	}
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opts)
	defer rc.Close()
	keys, err := rc.Keys(t.Context(), "*"+ratelimit.KeyPrefix+"anon:*").Result()
	if err != nil || len(keys) != 1 {
		t.Errorf("limiter keys in Redis = %v (%v), want the caller's one", keys, err)
	}
	srv.stop(t)

	dir := t.TempDir()
	env := envFrom(map[string]string{"VALUATOR_DATA_DIR": dir, "VALUATOR_DEMO": "false", "VALUATOR_ADDR": "127.0.0.1:0",
		"VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"), "VALUATOR_REDIS_URL": "redis://127.0.0.1:1/0"})
	var out, logs syncBuffer
	if err := run(context.Background(), nil, env, &out, &logs); err == nil || !strings.Contains(err.Error(), "VALUATOR_REDIS_URL") {
		t.Errorf("unreachable Redis: run() = %v, want an error naming VALUATOR_REDIS_URL", err)
	}
}

// served is a `valuator serve` running in the test.
type served struct {
	url       string
	out, logs *syncBuffer
	cancel    context.CancelFunc
	done      chan error
}

// startServe runs `valuator serve` on a free loopback port with a fresh SQLite database and no demo, plus env,
// and waits until it is ready. The test stops it with stop (or at cleanup).
func startServe(t *testing.T, env map[string]string) *served {
	t.Helper()
	return startServeFor(t, env, 15*time.Second)
}

// startServeFor is startServe waiting up to wait for the server to be ready.
func startServeFor(t *testing.T, env map[string]string, wait time.Duration) *served {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	vars := map[string]string{
		"VALUATOR_DEMO":         "false", // the demo market's training is not what these tests are about
		"VALUATOR_ADDR":         addr,
		"VALUATOR_DATA_DIR":     dir,
		"VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"),
	}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{url: "http://" + addr, out: &syncBuffer{}, logs: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- run(ctx, nil, envFrom(vars), s.out, s.logs) }()
	t.Cleanup(cancel)

	// Ready to take traffic (/readyz), and saying so: the server prints that it is running only once the demo
	// account's history and the market statistics are ready too.
	deadline := time.Now().Add(wait)
	for {
		res, err := http.Get(s.url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 && strings.Contains(s.out.String(), "Valuator is running at") {
				return s
			}
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not become ready: %v\n%s", err, s.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop shuts the server down the way SIGTERM would (by cancelling the context) and checks that it stops cleanly.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("run returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop after the context was cancelled")
	}
}

// TestImportPeopleListsBadRows: `valuator import people` stores the good rows, lists each bad one by its line, and
// a second import of the same file replaces rather than duplicates.
func TestImportPeopleListsBadRows(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "people.csv")
	csvText := "first_name,last_name,street_line_1,city,state,zip,phone\n" +
		"Robert,Smith,123 Main St,Seattle,WA,98103,206-555-0101\n" +
		"Jane,,9 Oak Ave,Seattle,WA,98103,\n" +
		"Ann,Lee,5 Elm St,Seattle,ZZ,98103,\n" +
		"Liz,Ortiz,77 Pine St,Seattle,WA,98101,2065550102\n"
	if err := os.WriteFile(file, []byte(csvText), 0o600); err != nil {
		t.Fatal(err)
	}
	env := envFrom(map[string]string{"VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"), "VALUATOR_DATA_DIR": dir})
	for i := 0; i < 2; i++ {
		var out, errs bytes.Buffer
		if err := run(context.Background(), []string{"import", "people", file, "--format", "csv"}, env, &out, &errs); err != nil {
			t.Fatalf("import: %v\n%s", err, errs.String())
		}
		if !strings.Contains(out.String(), "imported 2 people") || !strings.Contains(errs.String(), "line 3") ||
			!strings.Contains(errs.String(), "line 4") {
			t.Errorf("out %q, errs %q", out.String(), errs.String())
		}
	}
	db := testStore(t, "sqlite://"+filepath.Join(dir, "v.db"))
	if n, err := db.CountPeople(context.Background()); err != nil || n != 2 {
		t.Errorf("people after two imports: %d, %v; want 2", n, err)
	}
}
