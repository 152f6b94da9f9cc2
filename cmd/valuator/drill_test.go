package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"valuator/internal/account"
	"valuator/internal/avm"
	"valuator/internal/backup"
	"valuator/internal/batch"
	"valuator/internal/clock"
	"valuator/internal/mail"
	"valuator/internal/property"
	"valuator/internal/store"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	"valuator/internal/valuation"
)

// ack is a charged lookup the server acknowledged: a 200 with its request id, read in full at done.
type ack struct {
	requestID string
	done      time.Time
}

// TestBackupDrill is the disaster drill of docs/operations.md "Backups" (issue 38): under a load of charged API
// lookups and with a batch job running in a real `valuator serve`, take a backup; kill the server with SIGKILL;
// delete the database; restore the backup; start the server again. Then every lookup acknowledged before the backup
// started is charged in the restored database exactly once (and nothing is charged that was not acknowledged),
// every account's ledger chains and matches its balance, the restored server charges new lookups without a clash
// of ids, and the batch job resumes from the backup's state and completes with each row charged once. Charges made
// after the backup are lost with the database: that is the backup's recovery point, and the restored state must be
// consistent without them.
func TestBackupDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts valuator serve processes and kills one")
	}
	testdb.Each(t, func(t *testing.T, dbURL string) {
		started := time.Now()
		ctx := context.Background()
		now := testclock.Now()
		clk := clock.Starting(now)
		log := slog.New(slog.NewTextHandler(io.Discard, nil))

		// The demo market and its trained engine (saved in the database, so that the server restores it).
		db, err := store.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		closed := false
		closeDB := func() {
			if !closed {
				db.Close()
				closed = true
			}
		}
		defer closeDB()
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if err := seedDemoMarket(ctx, db, now, io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := valuation.New(db, log, clk.Now, avm.DefaultOptions()).Load(ctx); err != nil {
			t.Fatal(err)
		}
		md, err := db.LoadMarket(ctx)
		if err != nil {
			t.Fatal(err)
		}

		// Two Enterprise customers: one makes API lookups, the other runs a batch job of every demo home.
		accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: log}, SessionTTL: time.Hour,
			Now: clk.Now})
		const lookupCredits, batchCredits = 100_000, 10_000
		customer := func(email string, credits int64) int64 {
			auth, err := accounts.Register(ctx, account.RegisterInput{Email: email, Password: "drill-pass-123",
				FullName: "Drill Test"}, account.Client{IP: "127.0.0.1"})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.SetPlan(ctx, auth.User.ID, "enterprise", nil, now); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Grant(ctx, auth.User.ID, credits-auth.User.Credits, "test", "credits", "", now); err != nil {
				t.Fatal(err)
			}
			return auth.User.ID
		}
		lookupUser := customer("lookups@example.com", lookupCredits)
		batchUser := customer("batch@example.com", batchCredits)
		setupDone := time.Now()

		// The server as the product runs it: batch jobs in process, short job slices and rescue, so that a job
		// left running by the killed server resumes within the test. No valuation cache: each lookup and row costs
		// a real valuation, so that the job is still running when the backup is taken.
		addr := freeAddr(t)
		base := "http://" + addr
		dataDir := t.TempDir()
		serveEnv := map[string]string{
			"VALUATOR_ENV": "development", "VALUATOR_DEMO": "false", "VALUATOR_ADDR": addr,
			"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_DATA_DIR": dataDir, "VALUATOR_SECRET": strings.Repeat("d", 40),
			"VALUATOR_LOG_LEVEL": "warn", "VALUATOR_CLOCK": testclock.Day(), "VALUATOR_CACHE_SIZE": "0",
			"VALUATOR_JOB_SLICE": "1s", "VALUATOR_JOB_RESCUE_AFTER": "4s",
		}
		ready := func() bool {
			res, err := http.Get(base + "/readyz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == http.StatusOK
		}
		serve := startProc(t, "serve", "serve", serveEnv)
		waitUntil(t, 90*time.Second, "serve ready", []*clusterProc{serve}, ready)

		login := func(email string) string {
			var l struct{ Token string }
			mustJSON(t, "POST", base+"/api/auth/login", nil, map[string]string{"email": email, "password": "drill-pass-123"},
				http.StatusOK, &l)
			return l.Token
		}
		lookupToken, batchToken := login("lookups@example.com"), login("batch@example.com")
		const clients = 4
		var keys []string
		for i := range clients {
			var k struct{ KeyValue string }
			mustJSON(t, "POST", base+"/api/api-keys", bearer(lookupToken), map[string]any{"name": fmt.Sprintf("drill %d", i),
				"rateLimit": 1000}, http.StatusCreated, &k)
			keys = append(keys, k.KeyValue)
		}

		// The batch job, uploaded as a customer would.
		var csv bytes.Buffer
		mw := multipart.NewWriter(&csv)
		fw, _ := mw.CreateFormFile("file", "homes.csv")
		fmt.Fprintln(fw, "Property Address,City,State,Zip Code")
		for _, h := range md.Homes[:1500] { // half the demo market: a job of a few seconds, run on a loaded machine
			fmt.Fprintf(fw, "%s,%s,%s,%s\n", homeLine(h), h.City, h.State, h.ZIP)
		}
		mw.Close()
		st, b := call(t, "POST", base+"/api/jobs", map[string]string{"Authorization": "Bearer " + batchToken,
			"Content-Type": mw.FormDataContentType()}, &csv)
		var job struct{ ID int64 }
		if err := json.Unmarshal(b, &job); st != http.StatusCreated || err != nil {
			t.Fatalf("upload: %d %s", st, b)
		}
		t.Logf("set up in %s, server ready and job %d uploaded in %s", setupDone.Sub(started).Round(time.Millisecond), job.ID,
			time.Since(setupDone).Round(time.Millisecond))

		// The load: clients making charged lookups until stopped, each acknowledged one recorded.
		var (
			mu        sync.Mutex
			acks      []ack
			refused   atomic.Int64 // 429s (the keys' budgets), not charged
			failed    atomic.Int64 // anything else
			lastFail  atomic.Value // what the last failure was
			stopLoad  = make(chan struct{})
			loadGroup sync.WaitGroup
		)
		for c := range clients {
			loadGroup.Add(1)
			go func() {
				defer loadGroup.Done()
				for i := c; ; i += clients {
					select {
					case <-stopLoad:
						return
					default:
					}
					h := md.Homes[(i*7)%len(md.Homes)]
					st, b, err := getWithKey(lookupURLOf(base, h), keys[c])
					switch {
					case err != nil:
						failed.Add(1)
						lastFail.Store(err.Error())
						time.Sleep(20 * time.Millisecond)
					case st == http.StatusOK:
						var res struct {
							Data struct{ Meta struct{ RequestID string } }
						}
						if json.Unmarshal(b, &res) != nil || res.Data.Meta.RequestID == "" {
							failed.Add(1)
							lastFail.Store("200 without a request id: " + string(b))
							continue
						}
						done := time.Now()
						mu.Lock()
						acks = append(acks, ack{res.Data.Meta.RequestID, done})
						mu.Unlock()
					case st == http.StatusTooManyRequests:
						refused.Add(1)
						time.Sleep(100 * time.Millisecond)
					default:
						failed.Add(1)
						lastFail.Store(fmt.Sprintf("%d %s", st, b))
						time.Sleep(20 * time.Millisecond)
					}
				}
			}()
		}
		stopTheLoad := func() {
			select {
			case <-stopLoad:
			default:
				close(stopLoad)
				loadGroup.Wait()
			}
		}
		defer stopTheLoad()
		acked := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(acks)
		}

		// The backup, once lookups are being acknowledged and the job is under way.
		waitUntil(t, 60*time.Second, "lookups acknowledged and the job under way", []*clusterProc{serve}, func() bool {
			j, err := db.BatchJobForWorker(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			return acked() >= 40 && j.Processed >= 200
		})
		file := filepath.Join(t.TempDir(), "drill.backup")
		env := envFrom(map[string]string{"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_DATA_DIR": t.TempDir()})
		var out bytes.Buffer
		backupStart := time.Now()
		jobAtBackup, _ := db.BatchJobForWorker(ctx, job.ID)
		err = run(ctx, []string{"backup", file}, env, &out, &out)
		backupTook := time.Since(backupStart)
		if err != nil || !strings.Contains(out.String(), "backup of the") {
			t.Fatalf("backup: %v\n%s", err, out.String())
		}
		// Lookups and rows charged after the backup, lost with the database.
		ackedAtEnd := acked()
		waitUntil(t, 30*time.Second, "lookups and rows after the backup", []*clusterProc{serve}, func() bool {
			j, err := db.BatchJobForWorker(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			return acked() >= ackedAtEnd+20 && j.Processed >= jobAtBackup.Processed+100
		})
		stopTheLoad()
		if n := failed.Load(); n > 0 {
			t.Errorf("%d lookups failed (neither answered nor refused by a rate limit) while the server ran; the last: %v",
				n, lastFail.Load())
		}

		// The crash: the server killed mid-job, and the database lost.
		jobAtKill, _ := db.BatchJobForWorker(ctx, job.ID)
		serve.kill()
		if jobAtKill.Status == batch.StatusCompleted {
			t.Fatalf("the job completed before the server was killed: %+v", jobAtKill)
		}
		var sourceLedger int64
		mustCount(t, db.SQL(), `SELECT COUNT(*) FROM credit_ledger`, &sourceLedger)
		closeDB()
		deleteDatabase(t, dbURL)

		// Restore, and verify the file as the operator would.
		out.Reset()
		restoreStart := time.Now()
		if err := run(ctx, []string{"restore", file}, env, &out, &out); err != nil || !strings.Contains(out.String(), "OK: matches the manifest") {
			t.Fatalf("restore: %v\n%s", err, out.String())
		}
		restoreTook := time.Since(restoreStart)
		out.Reset()
		verifyStart := time.Now()
		if err := run(ctx, []string{"backup", "verify", file}, env, &out, &out); err != nil || !strings.Contains(out.String(), "OK: matches the manifest") {
			t.Errorf("verify: %v\n%s", err, out.String())
		}
		verifyTook := time.Since(verifyStart)
		fi, _ := os.Stat(file)

		restored, err := store.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer restored.Close()
		raw := restored.SQL()

		// Every lookup acknowledged before the backup started is charged once: its usage record (by request id) and
		// the ledger row naming that record. A lookup acknowledged during or after the backup may be there or not,
		// but once at most; nothing is charged that was not acknowledged.
		usageByRequest := map[string][]int64{}
		rows, err := raw.QueryContext(ctx, fmt.Sprintf(`SELECT id, request_id FROM usage_records
			WHERE user_id = %d AND credits_used > 0`, lookupUser))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var req string
			if err := rows.Scan(&id, &req); err != nil {
				t.Fatal(err)
			}
			usageByRequest[req] = append(usageByRequest[req], id)
		}
		rows.Close()
		ledgerByRef := map[string]int{}
		rows, err = raw.QueryContext(ctx, fmt.Sprintf(`SELECT reference FROM credit_ledger
			WHERE user_id = %d AND amount < 0`, lookupUser))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var ref string
			if err := rows.Scan(&ref); err != nil {
				t.Fatal(err)
			}
			ledgerByRef[ref]++
		}
		rows.Close()
		var before, during, kept int
		ackedIDs := map[string]bool{}
		for _, a := range acks {
			ackedIDs[a.requestID] = true
			ids := usageByRequest[a.requestID]
			if a.done.Before(backupStart) {
				before++
				if len(ids) != 1 {
					t.Errorf("lookup %s acknowledged before the backup: %d charged usage records, want 1", a.requestID, len(ids))
					continue
				}
			} else {
				during++
				if len(ids) > 1 {
					t.Errorf("lookup %s: %d charged usage records", a.requestID, len(ids))
				}
			}
			for _, id := range ids {
				kept++
				if n := ledgerByRef[fmt.Sprintf("usage:%d", id)]; n != 1 {
					t.Errorf("lookup %s (usage %d): %d ledger rows, want 1", a.requestID, id, n)
				}
			}
		}
		charged := 0
		for req, ids := range usageByRequest {
			charged += len(ids)
			if !ackedIDs[req] {
				t.Errorf("usage record(s) %v of request %s charged, but never acknowledged", ids, req)
			}
		}
		if kept != charged || len(ledgerByRef) != charged {
			t.Errorf("%d acknowledged lookups restored, %d charged usage records, %d ledger debits", kept, charged, len(ledgerByRef))
		}
		if balance, _, _, _ := restored.CreditTerms(ctx, lookupUser); balance != lookupCredits-int64(charged) {
			t.Errorf("lookup account's balance %d, want %d less %d lookups", balance, lookupCredits, charged)
		}
		checkLive := func(when string) {
			r, err := backup.CheckLive(ctx, dbURL)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range r.Problems {
				t.Errorf("%s: %s", when, p)
			}
		}
		checkLive("restored")

		// The job as the backup caught it: mid-way, consistent.
		jobRestored := checkBatchConsistent(t, restored, job.ID, batchUser)
		if jobRestored.Status == batch.StatusCompleted || jobRestored.Processed >= jobRestored.Total {
			t.Fatalf("the backup caught the job complete (%d of %d rows): the drill needs it running", jobRestored.Processed,
				jobRestored.Total)
		}

		// The server starts on the restored database and resumes the job.
		restartAt := time.Now()
		serve2 := startProc(t, "serve-2", "serve", serveEnv)
		procs := []*clusterProc{serve2}
		waitUntil(t, 90*time.Second, "restored serve ready", procs, ready)
		lastProcessed, lastMove := -1, time.Now()
		var done batch.Job
		waitUntil(t, 3*time.Minute, "job resumed and completed", procs, func() bool {
			done, err = restored.BatchJobForWorker(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			if done.Processed != lastProcessed {
				lastProcessed, lastMove = done.Processed, time.Now()
			}
			if time.Since(lastMove) > time.Minute {
				t.Fatalf("job not resumed: %s, stuck at %d of %d for a minute\n%s", done.Status, done.Processed, done.Total, serve2.log())
			}
			return done.Status == batch.StatusCompleted
		})
		resumedIn := time.Since(restartAt)
		done = checkBatchConsistent(t, restored, job.ID, batchUser)
		if done.Processed != done.Total || done.Successful+done.Failed != done.Total || done.Failed > 15 {
			t.Errorf("resumed job: %d processed, %d valued, %d refused of %d", done.Processed, done.Successful, done.Failed, done.Total)
		}
		if balance, _, _, _ := restored.CreditTerms(ctx, batchUser); balance != batchCredits-int64(done.Successful) {
			t.Errorf("batch account's balance %d, want %d less %d valued rows", balance, batchCredits, done.Successful)
		}

		// New charges on the restored database take new ids (PostgreSQL's sequences came back with the data).
		for i := range 5 {
			st, b, err := getWithKey(lookupURLOf(base, md.Homes[i]), keys[0])
			if err != nil || st != http.StatusOK {
				t.Fatalf("lookup on the restored server: %d %s %v\n%s", st, b, err, serve2.log())
			}
		}
		var dupUsage, dupRefs int64
		mustCount(t, raw, `SELECT COUNT(*) FROM (SELECT request_id FROM usage_records WHERE credits_used > 0 AND
			endpoint LIKE 'GET %' GROUP BY request_id HAVING COUNT(*) > 1) d`, &dupUsage)
		mustCount(t, raw, `SELECT COUNT(*) FROM (SELECT reference FROM credit_ledger WHERE reference <> ''
			GROUP BY reference HAVING COUNT(*) > 1) d`, &dupRefs)
		if dupUsage != 0 || dupRefs != 0 {
			t.Errorf("%d request ids charged twice, %d ledger references used twice", dupUsage, dupRefs)
		}
		checkLive("after the resumed job")
		serve2.kill()

		t.Logf("drill: %d lookups acknowledged (%d before the backup, %d during or after: %d of those in it), %d refused by "+
			"rate limits, %d failed; batch of %d rows: %d processed when the backup started, %d restored, %d when "+
			"killed (%d lost to the recovery point), resumed and completed in %s (%d valued, %d refused); source ledger "+
			"%d rows", len(acks), before, during, kept-before, refused.Load(), failed.Load(), done.Total, jobAtBackup.Processed,
			jobRestored.Processed, jobAtKill.Processed, jobAtKill.Processed-jobRestored.Processed, resumedIn.Round(time.Millisecond),
			done.Successful, done.Failed, sourceLedger)
		t.Logf("drill: backup %s (%.1f MiB), restore %s, verify %s; setup %s, whole drill %s", backupTook.Round(time.Millisecond),
			float64(fi.Size())/(1<<20), restoreTook.Round(time.Millisecond), verifyTook.Round(time.Millisecond),
			setupDone.Sub(started).Round(time.Millisecond), time.Since(started).Round(time.Millisecond))
	})
}

func homeLine(h property.Home) string {
	return strings.TrimSpace(h.Street + " " + h.UnitType + " " + h.Unit)
}

func lookupURLOf(base string, h property.Home) string {
	q := url.Values{"address": {homeLine(h)}, "city": {h.City}, "state": {h.State}, "zip": {h.ZIP}}
	return base + "/api/v1/property/valuation?" + q.Encode()
}

// getWithKey is a GET with an API key that reports errors rather than failing the test (it runs in the load's goroutines).
func getWithKey(u, key string) (int, []byte, error) {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("x-api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// deleteDatabase loses the database at dbURL: SQLite's file with its WAL and shared memory, or the PostgreSQL
// database, dropped and created again empty under the same name.
func deleteDatabase(t *testing.T, dbURL string) {
	t.Helper()
	if strings.HasPrefix(dbURL, "sqlite") {
		path := strings.TrimPrefix(dbURL, "sqlite://")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("%s still there: %v", path, err)
		}
		return
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{"DROP DATABASE " + pgx.Identifier{name}.Sanitize() + " WITH (FORCE)",
		"CREATE DATABASE " + pgx.Identifier{name}.Sanitize()} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}
