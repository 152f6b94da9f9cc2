// Package testdb gives tests real databases to run against: a fresh SQLite
// file always, and a fresh PostgreSQL database whenever a server can be had
// without Docker.
//
// PostgreSQL comes from, in order of preference:
//
//  1. the server named by VALUATOR_TEST_POSTGRES_URL, a URL of a server on
//     which the tests may create and drop databases;
//  2. a throwaway cluster that this test process creates with initdb and
//     pg_ctl (found on PATH or under /usr/lib/postgresql/*/bin) in a
//     temporary directory, on a free loopback port, once per process.
//
// When neither is possible, PostgreSQL tests are skipped, unless
// VALUATOR_TEST_REQUIRE_POSTGRES=1 is set (as CI does), in which case they
// fail, so that a missing server can never silently skip half the suite.
//
// A package whose tests use PostgresURL or Each should call Main from its
// TestMain, so that the cluster is stopped when the tests end:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
//
// Without Main the cluster is still stopped, by a watchdog process, but only
// after the test process has exited.
package testdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment variables that control where PostgreSQL comes from.
const (
	// EnvPostgresURL names a server on which tests may create databases.
	EnvPostgresURL = "VALUATOR_TEST_POSTGRES_URL"
	// EnvRequirePostgres, set to "1", turns "PostgreSQL not available"
	// from a skip into a failure.
	EnvRequirePostgres = "VALUATOR_TEST_REQUIRE_POSTGRES"
)

// SQLiteURL returns the URL of a fresh SQLite database file in t.TempDir(),
// in the form sqlite:///abs/path/test.db. The file does not exist yet;
// opening it creates it. It is removed with the temporary directory when the
// test ends.
func SQLiteURL(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	return "sqlite://" + filepath.ToSlash(path)
}

// PostgresURL returns the URL of a fresh, empty PostgreSQL database created
// for this test, in the form postgres://USER@HOST:PORT/t_<random>?sslmode=disable
// for the local cluster (or the configured server's URL with the database
// replaced). The database is dropped, with any connections still open to it,
// when the test's cleanups run.
//
// When no PostgreSQL can be provided it skips the test, or fails it if
// VALUATOR_TEST_REQUIRE_POSTGRES=1. A server that is configured or
// installed but does not work always fails the test: that is a broken
// environment, which a skip would hide.
func PostgresURL(t testing.TB) string {
	t.Helper()
	srv, err := getServer()
	if err != nil {
		if errors.Is(err, errUnavailable) && os.Getenv(EnvRequirePostgres) != "1" {
			t.Skip(err.Error())
		}
		if errors.Is(err, errUnavailable) {
			t.Fatalf("testdb: %v (and %s=1 requires it)", err, EnvRequirePostgres)
		}
		t.Fatalf("testdb: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name, err := srv.createDatabase(ctx)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	t.Cleanup(func() {
		// The test's context is already canceled when cleanups run, so
		// the drop gets its own.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.dropDatabase(ctx, name); err != nil {
			t.Errorf("testdb: %v", err)
		}
	})
	return srv.databaseURL(name)
}

// Cluster is a PostgreSQL cluster of one test's own, which the test may stop
// and start again (to see what an application does without its database).
// URL names its "postgres" database.
type Cluster struct {
	URL string
	c   *cluster
}

// OwnCluster starts a throwaway cluster for the calling test alone (never the
// shared one, which other tests are using), stopped and removed when the test
// ends. It skips or fails as PostgresURL does when no cluster can be started,
// and skips when VALUATOR_TEST_POSTGRES_URL names a server (which a test may
// not stop).
//
// settings are server settings ("name=value", e.g. "max_connections=20")
// given to the server on every start, over the defaults (among them
// max_connections=300, fsync=off).
func OwnCluster(t testing.TB, settings ...string) *Cluster {
	t.Helper()
	if os.Getenv(EnvPostgresURL) != "" {
		t.Skipf("testdb: %s names a server, which a test may not stop", EnvPostgresURL)
	}
	for _, s := range settings {
		if !strings.Contains(s, "=") || strings.ContainsAny(s, "'\\") {
			t.Fatalf("testdb: setting %q: want name=value, without quotes or backslashes", s)
		}
	}
	c, err := startCluster(settings...)
	if err != nil {
		if errors.Is(err, errUnavailable) && os.Getenv(EnvRequirePostgres) != "1" {
			t.Skip(err.Error())
		}
		t.Fatalf("testdb: %v", err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Errorf("testdb: %v", err)
		}
	})
	u := fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", c.user, c.port)
	if err := waitReady(u); err != nil {
		t.Fatalf("testdb: %v\n%s", err, c.logTail())
	}
	return &Cluster{URL: u, c: c}
}

// Stop stops the server with pg_ctl stop -m fast, ending every session.
func (c *Cluster) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.c.halt(ctx)
}

// Start starts the stopped server again, on the same port.
func (c *Cluster) Start() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.c.start(ctx); err != nil {
		return fmt.Errorf("%w\n%s", err, c.c.logTail())
	}
	return waitReady(c.URL)
}

// Crash stops the server with pg_ctl stop -m immediate, as a power cut
// would: no shutdown checkpoint, sessions cut. Start starts it again.
func (c *Cluster) Crash() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.c.crash(ctx)
}

// Dir is the cluster's folder, which the server's user owns and which is
// removed with the cluster: a place for a test's WAL archive and base
// backups. DataDir is the data directory inside it.
func (c *Cluster) Dir() string     { return c.c.base }
func (c *Cluster) DataDir() string { return c.c.dataDir() }

// Bin is the folder of the cluster's PostgreSQL programs (pg_basebackup,
// pg_ctl), of the server's version.
func (c *Cluster) Bin() string { return c.c.binDir() }

// Run runs a program as the server's user (initdb, pg_ctl and the server
// refuse root, so a test that is root runs them as postgres or nobody),
// in Dir, and returns an error with its output if it fails.
func (c *Cluster) Run(name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return c.c.run(ctx, name, args...)
}

// Own hands path and everything below it to the server's user (nothing to
// do unless the test runs as root).
func (c *Cluster) Own(path string) error { return c.c.own(path) }

// Each runs fn twice, as the subtest "sqlite" with a SQLiteURL and as the
// subtest "postgres" with a PostgresURL (which skips or fails as PostgresURL
// does when PostgreSQL is not available).
//
// The two run side by side (parallel subtests, so they start when the calling
// test's function has returned, and the calling test ends when both have):
// a test mostly waits on its database, and one database's wait is the other's
// turn (internal/server's tests: 355 s -> 290 s; all Go tests on two cores:
// 524 s -> 472 s). fn must not
// share what it changes between its two runs; each has its own database,
// Redis database (testredis) and server.
func Each(t *testing.T, fn func(t *testing.T, url string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, SQLiteURL(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, PostgresURL(t))
	})
}

// Available reports whether PostgreSQL can be provided. If it can, the
// string describes the server (for logging); if not, it says why. The first
// call may start the local cluster, since only trying tells whether that
// works.
func Available() (bool, string) {
	srv, err := getServer()
	if err != nil {
		return false, err.Error()
	}
	return true, srv.desc
}

// Main runs the tests of a package (call it from TestMain), then stops the
// PostgreSQL cluster this process started, removes its directory and exits
// with the tests' exit code. If the process gets SIGINT or SIGTERM first, it
// stops the cluster and exits at once, since pg_ctl puts the server in its
// own session, where the terminal's Ctrl-C does not reach it. also are further
// shutdown functions (testredis.Shutdown, for a package that uses both),
// run after the cluster stops, on both paths.
func Main(m *testing.M, also ...func()) {
	// A plain signal channel rather than signal.NotifyContext: a context
	// would also be done when we stop listening at the end, and the
	// goroutine could not tell that from a real signal.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "testdb: got %v, stopping PostgreSQL\n", sig)
		shutdown()
		for _, f := range also {
			f()
		}
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s) // The shell's convention for "killed by signal".
		}
		os.Exit(code)
	}()

	code := m.Run()
	shutdown()
	for _, f := range also {
		f()
	}
	os.Exit(code)
}

// shutdown stops the cluster this process started, if any. It is safe to
// call more than once and from several goroutines.
func shutdown() {
	runningMu.Lock()
	defer runningMu.Unlock()
	if running == nil {
		return
	}
	if err := running.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testdb: stopping PostgreSQL: %v\n", err)
	}
	running = nil
}
