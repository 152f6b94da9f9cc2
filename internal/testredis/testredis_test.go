package testredis

import (
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { Main(m) }

func TestAvailable(t *testing.T) {
	ok, why := Available()
	t.Logf("Redis available: %v (%s)", ok, why)
	if !ok && os.Getenv(EnvRequireRedis) == "1" {
		t.Fatalf("%s=1 but Redis is not available: %s", EnvRequireRedis, why)
	}
}

// TestURL checks that two databases in one test are distinct, empty and usable, and do not see each other's
// keys.
func TestURL(t *testing.T) {
	a, b := URL(t), URL(t)
	t.Logf("databases: %s and %s", redacted(a), redacted(b))
	if a == b {
		t.Fatalf("two calls gave the same URL %s", redacted(a))
	}
	for _, u := range []string{a, b} {
		db := dbNumber(t, u)
		srv, _ := getServer()
		if db == srv.adminDB || db < 0 || db >= srv.databases {
			t.Errorf("URL %s: database %d is the admin database %d or out of range [0, %d)",
				redacted(u), db, srv.adminDB, srv.databases)
		}
		if os.Getenv(EnvRedisURL) == "" && !strings.HasPrefix(u, "redis://127.0.0.1:") {
			t.Errorf("URL %s is not of the form redis://127.0.0.1:PORT/N", u)
		}
	}

	ctx := t.Context()
	ca, cb := client(t, a), client(t, b)
	for _, c := range []*redis.Client{ca, cb} {
		if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
			t.Fatalf("DBSIZE of a fresh database = %d, %v; want 0", n, err)
		}
	}
	if err := ca.Set(ctx, "k", "één", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got, err := ca.Get(ctx, "k").Result(); err != nil || got != "één" {
		t.Fatalf("GET = %q, %v; want één (UTF-8 round trip)", got, err)
	}
	if n, err := cb.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Errorf("key set in %s is visible in %s (EXISTS = %d, %v)", redacted(a), redacted(b), n, err)
	}
}

// TestURLEmptiedAfterCleanup checks that a subtest's database is empty and free again once the subtest has
// ended.
func TestURLEmptiedAfterCleanup(t *testing.T) {
	var u string
	t.Run("inner", func(t *testing.T) {
		u = URL(t)
		if err := client(t, u).Set(t.Context(), "left", "behind", 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
	})
	if u == "" {
		t.Skip("the inner test did not get a database")
	}
	ctx := t.Context()
	if n, err := client(t, u).DBSize(ctx).Result(); err != nil || n != 0 {
		t.Errorf("DBSIZE after the test ended = %d, %v; want 0", n, err)
	}
	srv, _ := getServer()
	key := claimKeyPrefix + strconv.Itoa(dbNumber(t, u))
	if n, err := srv.admin.Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Errorf("claim %s still exists after the test ended (EXISTS = %d, %v)", key, n, err)
	}
}

// TestParallel checks that parallel tests each get their own database.
func TestParallel(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	t.Run("group", func(t *testing.T) {
		for i := range 20 {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				u := URL(t)
				c := client(t, u)
				// Each test marks its database; a database handed out twice would show another's mark.
				if ok, err := c.SetNX(t.Context(), "owner", t.Name(), 0).Result(); err != nil || !ok {
					owner, _ := c.Get(t.Context(), "owner").Result()
					t.Errorf("database %s already marked by %q (%v)", redacted(u), owner, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if seen[u] {
					t.Errorf("database %s handed out twice at once", redacted(u))
				}
				seen[u] = true
				// Runs before URL's cleanup gives the database back, after which it may be handed out again.
				t.Cleanup(func() {
					mu.Lock()
					defer mu.Unlock()
					delete(seen, u)
				})
			})
		}
	})
}

// TestClaimsAcrossProcesses checks that two processes sharing one server (as `go test ./...` does with
// VALUATOR_TEST_REDIS_URL) never get the same database: a second server value, with its own connection and no
// shared memory, stands in for the other process.
func TestClaimsAcrossProcesses(t *testing.T) {
	URL(t) // Skips or fails the test as URL does when there is no Redis.
	srv, _ := getServer()
	other, err := connect(srv.base)
	if err != nil {
		t.Fatalf("connecting a second time: %v", err)
	}
	defer other.admin.Close()

	// Leave out the admin database and the one this test holds; a configured server may have only 16.
	perServer := min(10, (srv.databases-2)/2)
	var mu sync.Mutex
	var claims []*claim
	var wg sync.WaitGroup
	for _, s := range []*server{srv, other} {
		for range perServer {
			wg.Go(func() {
				c, err := s.claim(t.Context())
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				claims = append(claims, c)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, c := range claims {
		if seen[c.db] {
			t.Errorf("database %d claimed twice", c.db)
		}
		seen[c.db] = true
		if err := c.release(); err != nil {
			t.Error(err)
		}
	}
	if len(claims) != 2*perServer {
		t.Errorf("got %d claims, want %d", len(claims), 2*perServer)
	}
}

// TestClaimedDatabaseIsEmptied checks that a database holding keys that a killed process left behind (its
// claim expired, its cleanup never ran) is emptied before it is handed out again.
func TestClaimedDatabaseIsEmptied(t *testing.T) {
	URL(t) // Skips or fails the test as URL does when there is no Redis.
	srv, _ := getServer()
	dead, err := srv.claim(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := client(t, dead.url).Set(t.Context(), "stale", "x", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	// The "killed process" stops refreshing its claim, which then expires.
	dead.stop()
	<-dead.done
	if err := srv.admin.Del(t.Context(), dead.key).Err(); err != nil {
		t.Fatalf("DEL %s: %v", dead.key, err)
	}
	c, err := srv.claimDB(t.Context(), dead.db, "next-process")
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Skipf("another process took database %d first", dead.db)
	}
	if n, err := client(t, c.url).DBSize(t.Context()).Result(); err != nil || n != 0 {
		t.Errorf("DBSIZE of database %d, left dirty, = %d, %v; want 0", dead.db, n, err)
	}
	if err := c.release(); err != nil {
		t.Error(err)
	}
	// The dead claim's holder, had it survived, must not empty a database that is no longer its own.
	if err := dead.release(); err == nil || !strings.Contains(err.Error(), "lapsed") {
		t.Errorf("releasing a lapsed claim: err = %v, want one saying it lapsed", err)
	}
}

// TestDatabaseURLKeepsCredentials checks that the configured server's user, password and parameters stay in
// the URLs handed out.
func TestDatabaseURLKeepsCredentials(t *testing.T) {
	base, err := url.Parse("redis://user:s3cret@redis.example:6380/2?dial_timeout=3s")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{base: base, adminDB: 2}
	if got, want := s.databaseURL(7), "redis://user:s3cret@redis.example:6380/7?dial_timeout=3s"; got != want {
		t.Errorf("databaseURL(7) = %s, want %s", got, want)
	}
}

// TestBadConfiguredURL checks that a malformed VALUATOR_TEST_REDIS_URL is reported without its password.
func TestBadConfiguredURL(t *testing.T) {
	for _, raw := range []string{"http://:s3cret@host:1/0", "redis://:s3cret@host:1/x", "redis://:s3cret@[::1"} {
		t.Setenv(EnvRedisURL, raw)
		_, err := findServer()
		if err == nil {
			t.Errorf("%s: no error", raw)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: error %q shows the password", raw, err)
		}
	}
}

func dbNumber(t *testing.T, rawURL string) int {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("parsing %s: %v", redacted(rawURL), err)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(u.Path, "/"))
	if err != nil {
		t.Fatalf("URL %s has no database number: %v", redacted(rawURL), err)
	}
	return n
}

// client returns a client for u that is closed when the test ends (before the database is emptied, since
// cleanups run last-in first-out).
func client(t *testing.T, u string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("parsing %s: %v", redacted(u), err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// redacted is rawURL with any password replaced by "xxxxx", for test output, which CI logs keep.
func redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
