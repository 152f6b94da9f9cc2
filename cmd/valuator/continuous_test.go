package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/backup"
	"valuator/internal/credit"
	"valuator/internal/store"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	usagerec "valuator/internal/usage"
)

// Continuous protection (docs/operations.md, "Continuous protection"): the tests below lose the database while
// charges are being written and bring it back from what was replicated or archived, measuring how much was lost
// (RPO) and how long it took (RTO).

// charger writes charges (one usage record and one ledger row each, request IDs "c<n>") from a few goroutines and
// remembers when each was acknowledged, so that a test can tell which must have survived a crash.
type charger struct {
	db    *store.DB
	users []int64
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	acked map[string]time.Time
	n     int
	// dead is set before the database is killed: the errors that follow are the crash's.
	dead atomic.Bool
}

func newCharger(t *testing.T, db *store.DB, accounts int) *charger {
	t.Helper()
	ctx := context.Background()
	c := &charger{db: db, stop: make(chan struct{}), acked: map[string]time.Time{}}
	// The records' dates are the test's day; only the acknowledgement times (c.acked) are the wall clock's, since
	// they are compared with when the processes were really killed.
	at := testclock.Now()
	for i := range accounts {
		email := fmt.Sprintf("stream%d@example.com", i)
		u, _, err := db.CreateUser(ctx, account.NewUser{Email: email, EmailKey: account.EmailKey(email), PasswordHash: "x",
			FullName: "Stream", Notifications: account.DefaultNotifications, CreatedAt: at, SignupCredits: credit.SignupBonus})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Grant(ctx, u.ID, 1_000_000, credit.KindPlanCredits, "Plan credits", fmt.Sprintf("grant:%d", i), at); err != nil {
			t.Fatal(err)
		}
		c.users = append(c.users, u.ID)
	}
	return c
}

// charge writes one charge for user and returns its request ID once it is committed.
func (c *charger) charge(user int64) (string, error) {
	c.mu.Lock()
	c.n++
	id := fmt.Sprintf("c%d", c.n)
	c.mu.Unlock()
	_, err := c.db.Meter(context.Background(), usagerec.Record{UserID: user, Endpoint: "GET /api/v1/property/valuation",
		Service: usagerec.ServiceValuation, Status: 200, RequestID: id, CreatedAt: testclock.Now()}, 1, "Property valuation")
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.acked[id] = time.Now()
	c.mu.Unlock()
	return id, nil
}

// start charges from one goroutine per account, a few a second each (a steady load, not a benchmark), until halt.
func (c *charger) start(t *testing.T) {
	for _, u := range c.users {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for {
				select {
				case <-c.stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := c.charge(u); err != nil {
					if !c.dead.Load() {
						t.Errorf("charge: %v", err)
					}
					return
				}
			}
		}()
	}
}

func (c *charger) halt() {
	close(c.stop)
	c.wg.Wait()
}

// checkRestored checks the restored database: the ledger's rules hold (backup.CheckLive), no charge is there twice,
// and every charge acknowledged before mustHave is there. It returns how many acknowledged charges are missing and
// when the first of them was acknowledged.
func (c *charger) checkRestored(t *testing.T, dbURL string, raw *sql.DB, mustHave time.Time) (lost int, firstLost time.Time) {
	t.Helper()
	r, err := backup.CheckLive(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		t.Errorf("restored database: %s", p)
	}
	rows, err := raw.Query(`SELECT request_id, COUNT(*) FROM usage_records GROUP BY request_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	found := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		found[id] = n
	}
	var charges int64
	if err := raw.QueryRow(`SELECT COUNT(*) FROM credit_ledger WHERE amount = -1`).Scan(&charges); err != nil {
		t.Fatal(err)
	}
	if charges != int64(len(found)) {
		t.Errorf("%d charge rows in the ledger, %d usage records", charges, len(found))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, n := range found {
		if n != 1 {
			t.Errorf("charge %s is there %d times", id, n)
		}
	}
	for id, at := range c.acked {
		if found[id] == 1 {
			continue
		}
		if at.Before(mustHave) {
			t.Errorf("charge %s, acknowledged %s before the crash's bound, is missing", id, mustHave.Sub(at))
		}
		if lost++; firstLost.IsZero() || at.Before(firstLost) {
			firstLost = at
		}
	}
	t.Logf("restored %d of %d acknowledged charges; %d lost; ledger %d rows, balances sum %d", len(found), len(c.acked),
		lost, r.Manifest.Ledger.Rows, r.Manifest.Ledger.BalanceSum)
	return lost, firstLost
}

// startExternal starts a program in its own process group, as startProc does `valuator`.
func startExternal(t *testing.T, name, bin string, args ...string) *clusterProc {
	t.Helper()
	p := &clusterProc{name: name, out: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.out)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	return p
}

// litestreamBin finds Litestream: bin/litestream (make litestream) or PATH. Without it the test skips, unless
// VALUATOR_TEST_REQUIRE_LITESTREAM=1 (CI).
func litestreamBin(t *testing.T) string {
	t.Helper()
	if p, err := filepath.Abs("../../bin/litestream"); err == nil && isFile(p) {
		return p
	}
	if p, err := exec.LookPath("litestream"); err == nil {
		return p
	}
	if os.Getenv("VALUATOR_TEST_REQUIRE_LITESTREAM") == "1" {
		t.Fatal("litestream is not in bin/ or on PATH (make litestream), and VALUATOR_TEST_REQUIRE_LITESTREAM=1")
	}
	t.Skip("litestream is not in bin/ or on PATH: make litestream")
	return ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func readyz(base string) func() bool {
	return func() bool {
		res, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
}

// TestLitestreamRestore: a `valuator serve` on SQLite with VALUATOR_SQLITE_CHECKPOINTS=false beside `litestream
// replicate` (the documented litestream.yml, a folder replica, sync-interval 1s) while charges are written; both
// killed with SIGKILL, the database and its -wal and -shm deleted, `litestream restore` and a new serve. Every
// charge acknowledged more than syncBound before the kill is back exactly once and the ledgers chain. Logs the
// replication lag (RPO) and the restore plus start to /readyz (RTO).
func TestLitestreamRestore(t *testing.T) {
	bin := litestreamBin(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "data", "valuator.db")
	replica := filepath.Join(dir, "replica")
	conf := filepath.Join(dir, "litestream.yml")
	const syncInterval = time.Second
	if err := os.WriteFile(conf, []byte(backup.LitestreamConfig(dbPath, replica, syncInterval)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"VALUATOR_DEMO":               "false",
		"VALUATOR_DATA_DIR":           filepath.Dir(dbPath),
		"VALUATOR_DATABASE_URL":       "sqlite://" + dbPath,
		"VALUATOR_SQLITE_CHECKPOINTS": "false",
		"VALUATOR_LOG_LEVEL":          "warn",
	}
	serve := func(name string) *clusterProc {
		env["VALUATOR_ADDR"] = freeAddr(t)
		p := startProc(t, name, "serve", env)
		p.url = "http://" + env["VALUATOR_ADDR"]
		return p
	}
	srv := serve("serve")
	waitUntil(t, 60*time.Second, "serve ready", []*clusterProc{srv}, readyz(srv.url))
	ls := startExternal(t, "litestream", bin, "replicate", "-config", conf)

	db, err := store.Open(context.Background(), "sqlite://"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	db.LeaveCheckpoints() // a second process on the file, which must leave checkpoints to Litestream too
	ch := newCharger(t, db, 4)
	ch.start(t)

	// Replication lag: how long after a charge is acknowledged it can be restored from the replica. Each probe
	// restores the replica into a scratch file until the charge is there.
	var lags []time.Duration
	for i := range 3 {
		id, err := ch.charge(ch.users[0])
		if err != nil {
			t.Fatal(err)
		}
		acked := time.Now()
		var lag time.Duration
		waitUntil(t, 30*time.Second, "charge "+id+" replicated", []*clusterProc{srv, ls}, func() bool {
			probe := filepath.Join(dir, fmt.Sprintf("probe%d.db", i))
			for _, s := range []string{"", "-wal", "-shm"} {
				os.Remove(probe + s)
			}
			began := time.Now()
			if err := exec.Command(bin, "restore", "-config", conf, "-o", probe, dbPath).Run(); err != nil {
				return false // "no matching backups found" until the first snapshot is shipped
			}
			raw, err := sql.Open("sqlite", "file:"+probe+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			var n int
			if err := raw.QueryRow(`SELECT COUNT(*) FROM usage_records WHERE request_id = ?`, id).Scan(&n); err != nil || n == 0 {
				return false
			}
			lag = began.Sub(acked) // it was in the replica when this restore began
			return true
		})
		lags = append(lags, lag)
	}

	// The crash: both processes killed while charges are being written.
	time.Sleep(1500 * time.Millisecond) // charges since the last probe
	killed := time.Now()
	ch.dead.Store(true)
	srv.kill()
	ls.kill()
	ch.halt()
	db.Close()
	for _, s := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(dbPath + s); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}

	began := time.Now()
	if out, err := exec.Command(bin, "restore", "-config", conf, dbPath).CombinedOutput(); err != nil {
		t.Fatalf("litestream restore: %v\n%s", err, out)
	}
	restored := time.Since(began)
	srv = serve("serve-restored")
	waitUntil(t, 60*time.Second, "restored serve ready", []*clusterProc{srv}, readyz(srv.url))
	rto := time.Since(began)

	raw, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// Litestream copies the WAL every monitor interval (1s) and ships it every sync-interval: a charge may wait
	// for both.
	const syncBound = 2 * syncInterval
	lost, firstLost := ch.checkRestored(t, "sqlite://"+dbPath, raw, killed.Add(-syncBound))
	window := time.Duration(0)
	if lost > 0 {
		window = killed.Sub(firstLost)
	}
	t.Logf("Litestream RPO: replication lag %v (sync-interval %s); the kill lost %d charges, those of the last %s",
		lags, syncInterval, lost, window.Round(time.Millisecond))
	t.Logf("Litestream RTO: restore %s, restore and start to /readyz %s", restored.Round(time.Millisecond),
		rto.Round(time.Millisecond))
}

// TestPostgresPointInTimeRecovery: a PostgreSQL cluster archiving its WAL (backup.ArchiveSettings, archive_timeout
// archiveTimeout) and a base backup (pg_basebackup -Ft -z -X stream); charges written; a WAL switch; more charges;
// the server stopped with -m immediate and its data directory deleted; the base backup extracted, restore_command
// and recovery.signal, started and recovered to the end of the archive. Every charge acknowledged before the switch
// is back exactly once and the ledgers chain. Logs what was lost (RPO) and restore plus replay plus start (RTO).
func TestPostgresPointInTimeRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster of its own")
	}
	const archiveTimeout = 5 * time.Second
	cl := testdb.OwnCluster(t)
	archive := filepath.Join(cl.Dir(), "archive")
	if err := os.Mkdir(archive, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := cl.Own(archive); err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", cl.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(backup.ConfLines(backup.ArchiveSettings(archive, archiveTimeout))), "\n") {
		if _, err := admin.Exec(`ALTER SYSTEM SET ` + line); err != nil {
			t.Fatal(err)
		}
	}
	admin.Close()
	if err := cl.Stop(); err != nil { // archive_mode takes a restart
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	db := testStore(t, cl.URL)
	ch := newCharger(t, db, 4)
	pg := func(name string) string { return filepath.Join(cl.Bin(), name) }
	base := filepath.Join(cl.Dir(), "base")
	began := time.Now()
	if err := cl.Run(pg("pg_basebackup"), "-d", cl.URL, "-D", base, "-Ft", "-z", "-X", "stream", "-c", "fast"); err != nil {
		t.Fatal(err)
	}
	t.Logf("base backup in %s", time.Since(began).Round(time.Millisecond))

	ch.start(t)
	time.Sleep(time.Second)
	// Every charge acknowledged before the switch is in the segment it closes, archived below.
	switched := time.Now()
	var seg string
	if err := db.SQL().QueryRowContext(ctx, `SELECT pg_walfile_name(pg_switch_wal())`).Scan(&seg); err != nil {
		t.Fatal(err)
	}
	archived := func() (wal string, at time.Time) {
		var w sql.NullString
		var a sql.NullTime
		if err := db.SQL().QueryRowContext(ctx, `SELECT last_archived_wal, last_archived_time FROM pg_stat_archiver`).
			Scan(&w, &a); err != nil {
			t.Fatal(err)
		}
		return w.String, a.Time
	}
	waitUntil(t, 30*time.Second, "segment "+seg+" archived", nil, func() bool { w, _ := archived(); return w >= seg })
	// More charges, for longer than archive_timeout: it archives at least one more segment, and then the crash
	// loses what was written since the last.
	waitUntil(t, 4*archiveTimeout, "a segment archived by archive_timeout", nil, func() bool { w, _ := archived(); return w > seg })
	time.Sleep(archiveTimeout / 2)
	_, lastArchived := archived()

	killed := time.Now()
	ch.dead.Store(true)
	if err := cl.Crash(); err != nil {
		t.Fatal(err)
	}
	ch.halt()
	db.Close()

	// The restore: a new data directory from the base backup, recovered from the archive to its end.
	began = time.Now()
	data := cl.DataDir()
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := cl.Own(data); err != nil {
		t.Fatal(err)
	}
	if err := cl.Run("tar", "-xzf", filepath.Join(base, "base.tar.gz"), "-C", data); err != nil {
		t.Fatal(err)
	}
	if err := cl.Run("tar", "-xzf", filepath.Join(base, "pg_wal.tar.gz"), "-C", filepath.Join(data, "pg_wal")); err != nil {
		t.Fatal(err)
	}
	auto, err := os.OpenFile(filepath.Join(data, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = auto.WriteString(backup.ConfLines([][2]string{{"restore_command", backup.RestoreCommand(archive)}}))
	auto.Close()
	if err != nil {
		t.Fatal(err)
	}
	signal := filepath.Join(data, "recovery.signal")
	if err := os.WriteFile(signal, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cl.Own(signal); err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("pgx", cl.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	waitUntil(t, time.Minute, "recovery done", nil, func() bool {
		var in bool
		return raw.QueryRow(`SELECT pg_is_in_recovery()`).Scan(&in) == nil && !in
	})
	rto := time.Since(began)

	lost, firstLost := ch.checkRestored(t, cl.URL, raw, switched)
	window := time.Duration(0)
	if lost > 0 {
		window = killed.Sub(firstLost)
	}
	t.Logf("PostgreSQL RPO: archive_timeout %s; the crash came %s after the last archived segment and lost %d charges, "+
		"those of the last %s", archiveTimeout, killed.Sub(lastArchived).Round(time.Millisecond), lost,
		window.Round(time.Millisecond))
	t.Logf("PostgreSQL RTO: extract, replay and start to the end of recovery %s", rto.Round(time.Millisecond))
}
