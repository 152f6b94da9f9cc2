package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"valuator/internal/apikey"
	"valuator/internal/batch"
	"valuator/internal/testdb"
	"valuator/internal/usage"
)

// TestSQLiteFilesAreOwnerOnly: the database, its WAL and shared-memory files and the folder made for them are
// readable by their owner only, whatever the umask (a common 022 made the database 0644 before).
func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "valuator.db")
	db := openTest(t, "sqlite://"+path)
	if _, _, err := db.CreateUser(context.Background(), newUser("jane@example.com")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(p), mode)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("the database folder has mode %o, want 700", fi.Mode().Perm())
	}
}

// TestAPIKeysAreCappedUnderConcurrency: thirty parallel creations for one account make exactly maxKeys keys; a
// deleted key frees its place.
func TestAPIKeysAreCappedUnderConcurrency(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		const maxKeys = 20
		var wg sync.WaitGroup
		var mu sync.Mutex
		made, refused := 0, 0
		var ids []int64
		for i := 0; i < 30; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, err := db.CreateAPIKey(ctx, u.ID, "k", "hash-"+strings.Repeat("x", i), []byte{1}, "vk…", 100, maxKeys, t0)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					made++
					ids = append(ids, k.ID)
				case errors.Is(err, apikey.ErrTooManyKeys):
					refused++
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if made != maxKeys || refused != 30-maxKeys {
			t.Fatalf("made %d keys and refused %d, want %d and %d", made, refused, maxKeys, 30-maxKeys)
		}
		if _, err := db.CreateAPIKey(ctx, u.ID, "k", "one-more", []byte{1}, "vk…", 100, maxKeys, t0); !errors.Is(err, apikey.ErrTooManyKeys) {
			t.Errorf("key 21: err = %v, want apikey.ErrTooManyKeys", err)
		}
		if err := db.DeleteAPIKey(ctx, u.ID, ids[0], t0); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateAPIKey(ctx, u.ID, "k", "after-delete", []byte{1}, "vk…", 100, maxKeys, t0); err != nil {
			t.Errorf("a key after deleting one: %v", err)
		}
	})
}

// TestLedgerReferencesAreServerMade: a caller that sends the same X-Request-Id with every call (or the id of
// someone else's call) cannot make ledger rows share a reference or choose what it says; every reference is the
// server's and unique.
func TestLedgerReferencesAreServerMade(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			rec := usage.Record{UserID: u.ID, Endpoint: "GET /api/v1/property/valuation", Service: usage.ServiceValuation,
				Status: 200, RequestID: "chosen-by-the-client", CreatedAt: t0}
			if _, err := db.Meter(ctx, rec, 1, "Property valuation"); err != nil {
				t.Fatal(err)
			}
		}
		job, _, err := db.CreateBatchJob(ctx, batch.Job{UserID: u.ID, FileName: "f.csv", FileSHA256: "x", Mapping: "{}",
			CreatedAt: t0}, [][]byte{[]byte(`{}`), []byte(`{}`), []byte(`{}`), []byte(`{}`)},
			func(context.Context, *sql.Tx, int64) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.StartBatchJob(ctx, job.ID, t0); err != nil {
			t.Fatal(err)
		}
		ok := json.RawMessage(`{}`)
		for _, chunk := range [][]RowOutcome{{{Idx: 0, Success: true, Result: ok}, {Idx: 1, Success: true, Result: ok}},
			{{Idx: 2, Success: true, Result: ok}, {Idx: 3, Success: true, Result: ok}}} {
			if _, err := db.SaveBatchChunk(ctx, job.ID, chunk, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.CloseUser(ctx, u.ID, t0); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Ledger(ctx, u.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 7 { // sign-up, three valuations, two batch chunks, the forfeit at closing
			t.Fatalf("%d ledger rows, want 7: %+v", len(rows), rows)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if r.Reference == "" || r.Reference == "chosen-by-the-client" || seen[r.Reference] {
				t.Errorf("ledger row %+v: reference %q is empty, the client's, or repeated", r, r.Reference)
			}
			seen[r.Reference] = true
		}
	})
}
