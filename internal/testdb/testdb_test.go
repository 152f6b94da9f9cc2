package testdb

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func TestAvailable(t *testing.T) {
	ok, why := Available()
	t.Logf("PostgreSQL available: %v (%s)", ok, why)
	if !ok && os.Getenv(EnvRequirePostgres) == "1" {
		t.Fatalf("%s=1 but PostgreSQL is not available: %s", EnvRequirePostgres, why)
	}
}

func TestSQLiteURL(t *testing.T) {
	a, b := SQLiteURL(t), SQLiteURL(t)
	if a == b {
		t.Fatalf("two calls gave the same URL %s", a)
	}
	path, ok := strings.CutPrefix(a, "sqlite://")
	if !ok {
		t.Fatalf("URL %s does not start with sqlite://", a)
	}
	if !filepath.IsAbs(path) {
		t.Errorf("path %s is not absolute", path)
	}
	if filepath.Base(path) != "test.db" {
		t.Errorf("file name is %s, want test.db", filepath.Base(path))
	}
	if !strings.HasPrefix(path, os.TempDir()+string(filepath.Separator)) {
		t.Errorf("path %s is not under the temp dir %s", path, os.TempDir())
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		t.Errorf("directory of %s does not exist: %v", path, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s already exists (err %v), want a fresh file", path, err)
	}
}

// TestPostgresURL checks that two databases in one test are distinct and
// that each is usable.
func TestPostgresURL(t *testing.T) {
	a, b := PostgresURL(t), PostgresURL(t)
	t.Logf("databases: %s and %s", a, b)
	if a == b {
		t.Fatalf("two calls gave the same URL %s", a)
	}
	nameA, nameB := dbName(t, a), dbName(t, b)
	if nameA == nameB {
		t.Fatalf("two calls gave the same database %s", nameA)
	}
	for _, u := range []string{a, b} {
		if !strings.HasPrefix(dbName(t, u), "t_") {
			t.Errorf("database name in %s does not start with t_", u)
		}
		// A configured server's URL keeps its own form; the local
		// cluster's must be the documented one.
		localForm := strings.HasPrefix(u, "postgres://postgres@127.0.0.1:") && strings.HasSuffix(u, "?sslmode=disable")
		if os.Getenv(EnvPostgresURL) == "" && !localForm {
			t.Errorf("URL %s is not of the form postgres://postgres@127.0.0.1:PORT/DB?sslmode=disable", u)
		}
	}

	ctx := t.Context()
	connA, connB := connect(t, a), connect(t, b)

	var one int
	if err := connA.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 gave %d, %v", one, err)
	}
	var current string
	if err := connA.QueryRow(ctx, "SELECT current_database()").Scan(&current); err != nil || current != nameA {
		t.Fatalf("current_database() is %q (err %v), want %q", current, err, nameA)
	}
	if _, err := connA.Exec(ctx, "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)"); err != nil {
		t.Fatalf("CREATE TABLE: %v", err)
	}
	if _, err := connA.Exec(ctx, "INSERT INTO items VALUES (1, 'één'), (2, 'two')"); err != nil {
		t.Fatalf("INSERT: %v", err)
	}
	var name string
	if err := connA.QueryRow(ctx, "SELECT name FROM items WHERE id = 1").Scan(&name); err != nil || name != "één" {
		t.Fatalf("SELECT gave %q, %v; want één (UTF-8 round trip)", name, err)
	}

	// The second database is empty: the table made in the first is not
	// there.
	var found *string
	if err := connB.QueryRow(ctx, "SELECT to_regclass('items')::text").Scan(&found); err != nil {
		t.Fatalf("to_regclass in the second database: %v", err)
	}
	if found != nil {
		t.Errorf("table items made in %s is visible in %s", nameA, nameB)
	}
}

// TestPostgresURLDroppedAfterCleanup checks that a subtest's database is
// gone once the subtest has ended, even with a connection left open to it.
func TestPostgresURLDroppedAfterCleanup(t *testing.T) {
	var name string
	var leftOpen *pgx.Conn
	t.Run("inner", func(t *testing.T) {
		u := PostgresURL(t)
		name = dbName(t, u)
		// Deliberately not closed before the drop: WITH (FORCE) must
		// cope with it.
		var err error
		leftOpen, err = pgx.Connect(t.Context(), u)
		if err != nil {
			t.Fatalf("connecting to %s: %v", u, err)
		}
		if _, err := leftOpen.Exec(t.Context(), "CREATE TABLE x (id int)"); err != nil {
			t.Fatalf("CREATE TABLE: %v", err)
		}
	})
	if name == "" {
		t.Skip("the inner test did not get a database")
	}
	if leftOpen != nil {
		defer leftOpen.Close(context.Background())
	}
	if exists := databaseExists(t, name); exists {
		t.Errorf("database %s still exists after its test ended", name)
	}
}

// TestEach checks that Each runs fn against SQLite and, when it is
// available, against PostgreSQL, with a matching URL in each subtest, the two
// at the same time.
func TestEach(t *testing.T) {
	var (
		mu      sync.Mutex
		ran     []string
		running int
		overlap bool
	)
	t.Run("group", func(t *testing.T) {
		Each(t, func(t *testing.T, u string) {
			sub := t.Name()[strings.LastIndex(t.Name(), "/")+1:]
			scheme, _, _ := strings.Cut(u, "://")
			if want := map[string]string{"sqlite": "sqlite", "postgres": "postgres"}[sub]; scheme != want {
				t.Errorf("subtest %s got URL %s", sub, u)
			}
			mu.Lock()
			ran = append(ran, sub)
			running++
			mu.Unlock()
			// Each waits a moment for the other: with PostgreSQL there, the two must be seen running together.
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				both := running == 2
				overlap = overlap || both
				mu.Unlock()
				if both {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	})
	slices.Sort(ran)
	want := []string{"sqlite"}
	if ok, _ := Available(); ok {
		want = append(want, "postgres")
	}
	slices.Sort(want)
	if fmt.Sprint(ran) != fmt.Sprint(want) {
		t.Errorf("Each ran %v, want %v", ran, want)
	}
	if len(want) == 2 && !overlap {
		t.Error("Each ran its SQLite and PostgreSQL subtests one after the other, not side by side")
	}
}

// TestParallel checks that parallel tests each get their own database.
func TestParallel(t *testing.T) {
	names := make(chan string, 10)
	t.Run("group", func(t *testing.T) {
		for i := range cap(names) {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				u := PostgresURL(t)
				conn := connect(t, u)
				var current string
				if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&current); err != nil {
					t.Fatalf("SELECT current_database(): %v", err)
				}
				if current != dbName(t, u) {
					t.Errorf("connected to %s, want %s", current, dbName(t, u))
				}
				names <- current
			})
		}
	})
	close(names)
	seen := map[string]bool{}
	for n := range names {
		if seen[n] {
			t.Errorf("database %s handed out twice", n)
		}
		seen[n] = true
		if databaseExists(t, n) {
			t.Errorf("database %s still exists after its test ended", n)
		}
	}
}

func dbName(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("parsing %s: %v", rawURL, err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// connect opens a connection that is closed when the test ends (before the
// database is dropped, since cleanups run last-in first-out).
func connect(t *testing.T, u string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatalf("connecting to %s: %v", u, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	srv, err := getServer()
	if err != nil {
		t.Fatalf("getServer: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.admin.String())
	if err != nil {
		t.Fatalf("connecting to the admin database: %v", err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatalf("looking up database %s: %v", name, err)
	}
	return n > 0
}
