// Package testredis gives tests a real, empty Redis database to run against, whenever a Redis server can be
// had without Docker.
//
// The server is, in order of preference:
//
//  1. the one named by VALUATOR_TEST_REDIS_URL, a redis:// or rediss:// URL of a server whose databases the
//     tests may flush, all except the one in the URL (default 0), which holds the tests' claims (see below);
//  2. a throwaway redis-server (found on PATH, or in /usr/sbin or /usr/local/bin) that this test process
//     starts once, on a free loopback port, with no persistence and a temporary working directory.
//
// When neither is possible, tests that ask for Redis are skipped, unless VALUATOR_TEST_REQUIRE_REDIS=1 is set
// (as CI does), in which case they fail, so that a missing server can never silently skip tests.
//
// Each call of URL hands out a whole logical database (SELECT n), emptied before it is handed out and again
// when the test ends, rather than a key prefix: code under test then needs nothing but the URL, exactly as in
// production, can use any key names (the limiter's own namespace included), and a test can check that the
// database holds nothing it did not expect. Because `go test ./...` runs packages as separate processes that
// may share a configured server, a database is claimed with SET NX on a key in the URL's own database (kept
// alive while the test runs, so that the claims of a killed process expire within a minute), not merely
// counted within this process. The local server is started with 256 databases; a configured one has what its
// "databases" setting says (16 by default), so at most 15 tests can hold one at a time, and a test that finds
// them all taken waits for one to be released.
//
// A package whose tests use URL should call Main from its TestMain, so that the server is stopped when the
// tests end:
//
//	func TestMain(m *testing.M) { testredis.Main(m) }
//
// Without Main (for instance in a package whose TestMain is testdb.Main) the server is still stopped, by a
// watchdog, but only after the test process has exited.
package testredis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// Environment variables that control where Redis comes from.
const (
	// EnvRedisURL names a server whose databases the tests may flush.
	EnvRedisURL = "VALUATOR_TEST_REDIS_URL"
	// EnvRequireRedis, set to "1", turns "Redis not available" from a skip into a failure.
	EnvRequireRedis = "VALUATOR_TEST_REQUIRE_REDIS"
)

// URL returns the URL of an empty Redis database for this test, redis://127.0.0.1:PORT/N for the local server
// (or the configured server's URL with the database replaced). The database is emptied and given back when the
// test's cleanups run.
//
// When no Redis can be provided it skips the test, or fails it if VALUATOR_TEST_REQUIRE_REDIS=1. A server that
// is configured or installed but does not work always fails the test: that is a broken environment, which a
// skip would hide.
func URL(t testing.TB) string {
	t.Helper()
	srv, err := getServer()
	if err != nil {
		if errors.Is(err, errUnavailable) && os.Getenv(EnvRequireRedis) != "1" {
			t.Skip(err.Error())
		}
		if errors.Is(err, errUnavailable) {
			t.Fatalf("testredis: %v (and %s=1 requires it)", err, EnvRequireRedis)
		}
		t.Fatalf("testredis: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimWait+readyTimeout)
	defer cancel()
	c, err := srv.claim(ctx)
	if err != nil {
		t.Fatalf("testredis: %v", err)
	}
	t.Cleanup(func() {
		if err := c.release(); err != nil {
			t.Errorf("testredis: %v", err)
		}
	})
	return c.url
}

// Available reports whether Redis can be provided. If it can, the string describes the server (for logging);
// if not, it says why. The first call may start the local server, since only trying tells whether that works.
func Available() (bool, string) {
	srv, err := getServer()
	if err != nil {
		return false, err.Error()
	}
	return true, srv.desc
}

// Main runs the tests of a package (call it from TestMain), then stops the redis-server this process started
// and exits with the tests' exit code. If the process gets SIGINT or SIGTERM first, it stops the server and
// exits at once; the server runs in its own session (so that its watchdog survives a Ctrl-C long enough to
// act), where the terminal's Ctrl-C does not reach it.
func Main(m *testing.M) {
	// A plain signal channel rather than signal.NotifyContext: a context would also be done when we stop
	// listening at the end, and the goroutine could not tell that from a real signal.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "testredis: got %v, stopping redis-server\n", sig)
		shutdown()
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s) // The shell's convention for "killed by signal".
		}
		os.Exit(code)
	}()

	code := m.Run()
	shutdown()
	os.Exit(code)
}

// Shutdown stops the server this process started, if any, for a TestMain that cannot use Main (testdb.Main(m,
// testredis.Shutdown) in a package that needs PostgreSQL and Redis). It is safe to call more than once and from
// several goroutines.
func Shutdown() { shutdown() }

// shutdown stops the server this process started, if any. It is safe to call more than once and from several
// goroutines.
func shutdown() {
	runningMu.Lock()
	defer runningMu.Unlock()
	if running == nil {
		return
	}
	if err := running.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testredis: stopping redis-server: %v\n", err)
	}
	running = nil
}
