package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/batch"
	"valuator/internal/credit"
	"valuator/internal/jobs"
	"valuator/internal/testdb"
	usagerec "valuator/internal/usage"
)

// TestBackupRestoreVerify: `valuator backup FILE` of a database with accounts, charges and a batch job, taken
// while charges are being written, restores into an empty database with the manifest's counts and ledger checksum,
// and `backup verify` passes it; restore refuses the now non-empty database without --force (saying what it holds)
// and replaces it with it; a backup whose ledger has one row changed fails verify naming the account; missing and
// existing FILEs are refused clearly.
func TestBackupRestoreVerify(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		db := testStore(t, dbURL)
		at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		var users []int64
		for i := range 4 {
			email := fmt.Sprintf("user%d@example.com", i)
			u, _, err := db.CreateUser(ctx, account.NewUser{Email: email, EmailKey: account.EmailKey(email), PasswordHash: "x",
				FullName: "User", Notifications: account.DefaultNotifications, CreatedAt: at, SignupCredits: credit.SignupBonus})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Grant(ctx, u.ID, 100000, credit.KindPlanCredits, "Plan credits", fmt.Sprintf("test:%d", i), at); err != nil {
				t.Fatal(err)
			}
			users = append(users, u.ID)
		}
		queue, err := jobs.New(jobs.Config{Store: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		var inputs [][]byte
		for i := range 3 {
			b, _ := json.Marshal(batch.Row{Line: i + 2, Address: fmt.Sprintf("%d Main St", i+1), City: "Seattle", State: "WA", ZIP: "98101"})
			inputs = append(inputs, b)
		}
		if _, _, err := db.CreateBatchJob(ctx, batch.Job{UserID: users[0], FileName: "homes.csv", FileSHA256: "x", Mapping: "{}",
			CreatedAt: at}, inputs, queue.EnqueueBatch); err != nil {
			t.Fatal(err)
		}

		// Charges written all through the backup.
		charge := func(user int64) error {
			_, err := db.Meter(ctx, usagerec.Record{UserID: user, Endpoint: "GET /api/v1/property/valuation",
				Service: usagerec.ServiceValuation, Status: 200, RequestID: "req", CreatedAt: at}, 1, "Property valuation")
			return err
		}
		for _, u := range users { // some before
			for range 5 {
				if err := charge(u); err != nil {
					t.Fatal(err)
				}
			}
		}
		stop := make(chan struct{})
		var charged atomic.Int64
		var wg sync.WaitGroup
		for _, u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := charge(u); err != nil {
						t.Error(err)
						return
					}
					charged.Add(1)
				}
			}()
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "valuator.backup")
		env := envFrom(map[string]string{"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_DATA_DIR": t.TempDir()})
		cmd := func(env func(string) string, args ...string) (string, error) {
			var out bytes.Buffer
			err := run(ctx, args, env, &out, &out)
			return out.String(), err
		}
		for charged.Load() < 20 { // the charges are under way
			time.Sleep(time.Millisecond)
		}
		out, err := cmd(env, "backup", file)
		during := charged.Load()
		for charged.Load() < during+20 { // and go on after the backup
			time.Sleep(time.Millisecond)
		}
		close(stop)
		wg.Wait()
		if err != nil || !strings.Contains(out, "backup of the") {
			t.Fatalf("backup: %v\n%s", err, out)
		}
		t.Logf("backup: %s", out)

		// Restore into an empty database.
		target := testdb.SQLiteURL(t)
		if strings.HasPrefix(dbURL, "postgres") {
			target = testdb.PostgresURL(t)
		}
		tenv := envFrom(map[string]string{"VALUATOR_DATABASE_URL": target, "VALUATOR_DATA_DIR": t.TempDir()})
		out, err = cmd(tenv, "restore", file)
		if err != nil || !strings.Contains(out, "OK: matches the manifest") {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		restored, source := rawDB(t, target), rawDB(t, dbURL)
		var batchJobs, ledgerRows, sourceRows int64
		mustCount(t, restored, `SELECT COUNT(*) FROM batch_jobs`, &batchJobs)
		mustCount(t, restored, `SELECT COUNT(*) FROM credit_ledger`, &ledgerRows)
		mustCount(t, source, `SELECT COUNT(*) FROM credit_ledger`, &sourceRows)
		// 4 signup and 4 grant rows, 20 charges before; more were made during and after the backup.
		if batchJobs != 1 || ledgerRows < 28 || ledgerRows >= sourceRows {
			t.Errorf("restored %d batch jobs and %d ledger rows (the source has %d now)", batchJobs, ledgerRows, sourceRows)
		}
		if out, err := cmd(env, "backup", "verify", file); err != nil || !strings.Contains(out, "OK: matches the manifest") {
			t.Errorf("verify: %v\n%s", err, out)
		}

		// The target is not empty now.
		if out, err := cmd(tenv, "restore", file); err == nil || !strings.Contains(err.Error(), "not empty") ||
			!strings.Contains(err.Error(), "4 accounts") || !strings.Contains(err.Error(), "--force") {
			t.Errorf("restore into a non-empty database: %v\n%s", err, out)
		}
		if out, err := cmd(tenv, "restore", file, "--force"); err != nil || !strings.Contains(out, "OK: matches the manifest") {
			t.Errorf("restore --force: %v\n%s", err, out)
		}

		// One ledger row changed (the triggers that forbid it dropped first), then backed up: verify names the account.
		tampered := filepath.Join(dir, "tampered.backup")
		raw := rawDB(t, target) // the file was replaced: a new connection
		var rowID, userID int64
		if err := raw.QueryRow(`SELECT id, user_id FROM credit_ledger WHERE amount = -1 ORDER BY id LIMIT 1`).Scan(&rowID, &userID); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{`DROP TRIGGER IF EXISTS credit_ledger_no_update`, `DROP TRIGGER IF EXISTS credit_ledger_no_change ON credit_ledger`} {
			if strings.HasPrefix(target, "sqlite") != strings.Contains(s, "no_update") {
				continue
			}
			if _, err := raw.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := raw.Exec(fmt.Sprintf(`UPDATE credit_ledger SET amount = -2 WHERE id = %d`, rowID)); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd(tenv, "backup", tampered); err != nil || !strings.Contains(out, fmt.Sprintf("account %d", userID)) {
			t.Errorf("backup of a tampered database: %v\n%s", err, out)
		}
		out, err = cmd(env, "backup", "verify", tampered)
		if err == nil || !strings.Contains(out, fmt.Sprintf("MISMATCH: account %d: ledger row %d", userID, rowID)) {
			t.Errorf("verify of a tampered backup: %v\n%s", err, out)
		}

		// Bad arguments.
		if _, err := cmd(env, "backup"); err == nil || !strings.Contains(err.Error(), "no backup FILE") {
			t.Errorf("backup without FILE: %v", err)
		}
		if _, err := cmd(env, "restore"); err == nil || !strings.Contains(err.Error(), "no backup FILE") {
			t.Errorf("restore without FILE: %v", err)
		}
		before, _ := os.ReadFile(file)
		if _, err := cmd(env, "backup", file); err == nil || !strings.Contains(err.Error(), "exists: pass --force") {
			t.Errorf("backup onto an existing FILE: %v", err)
		}
		if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
			t.Error("the existing FILE was changed")
		}
		if out, err := cmd(env, "backup", file, "--force"); err != nil {
			t.Errorf("backup --force: %v\n%s", err, out)
		}
		if _, err := cmd(env, "backup", "verify", filepath.Join(dir, "missing")); err == nil {
			t.Error("verify of a missing file passed")
		}
	})
}

func mustCount(t *testing.T, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query string, n *int64) {
	t.Helper()
	if err := db.QueryRowContext(context.Background(), query).Scan(n); err != nil {
		t.Fatal(err)
	}
}

// rawDB opens a database without the store, for changes the store forbids.
func rawDB(t *testing.T, dbURL string) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", dbURL
	if strings.HasPrefix(dbURL, "sqlite") {
		driver, dsn = "sqlite", "file:"+strings.TrimPrefix(dbURL, "sqlite://")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
