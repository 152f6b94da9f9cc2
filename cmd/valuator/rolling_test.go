package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/avm"
	"valuator/internal/batch"
	"valuator/internal/clock"
	"valuator/internal/mail"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	"valuator/internal/testredis"
	usagerec "valuator/internal/usage"
	"valuator/internal/valuation"
)

// haproxyStatus is the state HAProxy's stats give each server of backend app ("UP", "DOWN", "MAINT", ...).
func haproxyStatus(statsURL string) map[string]string {
	res, err := http.Get(statsURL + ";csv")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	r := csv.NewReader(res.Body)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, rec := range recs {
		if len(rec) > 17 && rec[0] == "app" && rec[1] != "BACKEND" {
			out[rec[1]] = rec[17]
		}
	}
	return out
}

// haproxyConfig is the load balancer of the rolling-restart test, and the example of docs/operations.md ("Restarts
// and rolling deploys"): health checks on /readyz every 200 ms, a server out at the first failed check and back
// after two good ones, and a request whose connection to a server failed sent to the other one.
func haproxyConfig(front, stats string, servers map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
    maxconn 1000

defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout http-keep-alive 10s
    retries 3
    option redispatch 1
    retry-on conn-failure

frontend www
    bind %s
    default_backend app

backend app
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 200ms fall 1 rise 2
`, front)
	for _, name := range []string{"a", "b"} {
		fmt.Fprintf(&b, "    server %s %s check\n", name, servers[name])
	}
	fmt.Fprintf(&b, `
listen stats
    bind %s
    stats enable
    stats uri /stats
`, stats)
	return b.String()
}

// TestRollingRestartLosesNothing runs two `valuator serve` on one PostgreSQL database (and one Redis) behind
// HAProxy, which checks /readyz, and restarts each in turn (SIGTERM, wait for it to exit, start a new one, wait until
// HAProxy has it back) while a steady load of charged public API lookups goes through HAProxy and a batch job runs.
// Every lookup must be answered 200, the ledger must hold exactly one charge per answered lookup, and the batch job
// must complete with every row charged once.
func TestRollingRestartLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, Redis, HAProxy and four valuator processes")
	}
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("VALUATOR_TEST_REQUIRE_HAPROXY") == "1" {
			t.Fatal("haproxy is not installed and VALUATOR_TEST_REQUIRE_HAPROXY=1 (apt-get install haproxy)")
		}
		t.Skip("haproxy is not installed (apt-get install haproxy)")
	}
	started := time.Now()
	ctx := context.Background()
	dbURL := testdb.PostgresURL(t)
	redisURL := testredis.URL(t)
	db := testStore(t, dbURL)
	now := testclock.Now()
	clk := clock.Starting(now)

	// The demo market, and its engine trained once here: each instance restores it, so that a restart is ready in
	// seconds, as it is in production once the first start has trained.
	if err := seedDemoMarket(ctx, db, now, io.Discard); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	if err := valuation.New(db, log, clk.Now, avm.DefaultOptions()).Load(ctx); err != nil {
		t.Fatal(err)
	}
	md, err := db.LoadMarket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("market seeded and trained in %s", time.Since(started).Round(time.Millisecond))

	addrs := map[string]string{"a": freeAddr(t), "b": freeAddr(t)}
	common := map[string]string{
		"VALUATOR_ENV": "development", "VALUATOR_DEMO": "false", "VALUATOR_DATABASE_URL": dbURL,
		"VALUATOR_REDIS_URL": redisURL, "VALUATOR_SECRET": strings.Repeat("r", 40), "VALUATOR_CLOCK": testclock.Day(),
		"VALUATOR_LOG_LEVEL": "info", "VALUATOR_DRAIN": "2s", "VALUATOR_SHUTDOWN_TIMEOUT": "10s",
		"VALUATOR_JOB_SLICE": "1s", "VALUATOR_JOB_RESCUE_AFTER": "4s", "VALUATOR_DB_MAX_CONNS": "8",
	}
	generation := map[string]int{}
	start := func(name string) *clusterProc {
		generation[name]++
		env := map[string]string{"VALUATOR_ADDR": addrs[name], "VALUATOR_DATA_DIR": t.TempDir()}
		for k, v := range common {
			env[k] = v
		}
		p := startProc(t, fmt.Sprintf("serve-%s%d", name, generation[name]), "serve", env)
		p.url = "http://" + addrs[name]
		return p
	}
	procs := map[string]*clusterProc{"a": start("a"), "b": start("b")}
	all := func() []*clusterProc { return []*clusterProc{procs["a"], procs["b"]} }
	for _, name := range []string{"a", "b"} {
		p := procs[name]
		waitUntil(t, 60*time.Second, p.name+" ready", all(), func() bool { return readyStatus(p.url) == http.StatusOK })
	}

	// HAProxy in the foreground, its configuration in a temporary folder.
	front, stats := freeAddr(t), freeAddr(t)
	cfgFile := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfgFile, []byte(haproxyConfig(front, stats, addrs)), 0o600); err != nil {
		t.Fatal(err)
	}
	lb := exec.Command(haproxy, "-db", "-f", cfgFile)
	var lbOut bytes.Buffer
	lb.Stdout, lb.Stderr = &lbOut, &lbOut
	if err := lb.Start(); err != nil {
		t.Fatal(err)
	}
	lbDone := make(chan struct{})
	go func() { _ = lb.Wait(); close(lbDone) }()
	t.Cleanup(func() { _ = lb.Process.Kill(); <-lbDone })
	statsURL := "http://" + stats + "/stats"
	upInLB := func(name string) func() bool {
		return func() bool {
			select {
			case <-lbDone:
				t.Fatalf("haproxy exited:\n%s", lbOut.String())
			default:
			}
			return strings.HasPrefix(haproxyStatus(statsURL)[name], "UP")
		}
	}
	waitUntil(t, 20*time.Second, "haproxy sees a", all(), upInLB("a"))
	waitUntil(t, 20*time.Second, "haproxy sees b", all(), upInLB("b"))
	base := "http://" + front

	// The customer: Enterprise, plenty of credits, a key at 1,000 calls a minute.
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: log}, SessionTTL: time.Hour, Now: clk.Now})
	auth, err := accounts.Register(ctx, account.RegisterInput{Email: "rolling@example.com", Password: "rolling-pass-123",
		FullName: "Rolling Restart"}, account.Client{IP: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	userID := auth.User.ID
	const credits = 50_000
	if err := db.SetPlan(ctx, userID, "enterprise", nil, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Grant(ctx, userID, credits-auth.User.Credits, "test", "credits", "", clk.Now()); err != nil {
		t.Fatal(err)
	}
	var login struct{ Token string }
	mustJSON(t, "POST", base+"/api/auth/login", nil, map[string]string{"email": "rolling@example.com",
		"password": "rolling-pass-123"}, http.StatusOK, &login)
	var key struct{ KeyValue string }
	mustJSON(t, "POST", base+"/api/api-keys", bearer(login.Token), map[string]any{"name": "rolling", "rateLimit": 1000},
		http.StatusCreated, &key)

	// A batch job of 1,500 homes, run by the instances' own workers, so that the restarts interrupt it.
	var upload bytes.Buffer
	mw := multipart.NewWriter(&upload)
	fw, _ := mw.CreateFormFile("file", "homes.csv")
	fmt.Fprintln(fw, "Property Address,City,State,Zip Code")
	for _, h := range md.Homes[:1500] {
		fmt.Fprintf(fw, "%s,%s,%s,%s\n", strings.TrimSpace(h.Street+" "+h.UnitType+" "+h.Unit), h.City, h.State, h.ZIP)
	}
	mw.Close()
	var job struct{ ID int64 }
	st, b := call(t, "POST", base+"/api/jobs", map[string]string{"Authorization": "Bearer " + login.Token,
		"Content-Type": mw.FormDataContentType()}, &upload)
	if st != http.StatusCreated || json.Unmarshal(b, &job) != nil {
		t.Fatalf("batch upload: %d %s", st, b)
	}

	// The load: 4 clients, each a lookup every 100 ms (about 35 a second in all), through HAProxy, over keep-alive
	// connections, until stopped.
	var (
		mu       sync.Mutex
		total    int
		ok       int
		failures []string
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 15 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				h := md.Homes[(c*7919+i*31)%len(md.Homes)]
				q := url.Values{"address": {strings.TrimSpace(h.Street + " " + h.UnitType + " " + h.Unit)}, "city": {h.City},
					"state": {h.State}, "zip": {h.ZIP}}
				rq, _ := http.NewRequest("GET", base+"/api/v1/property/valuation?"+q.Encode(), nil)
				rq.Header.Set("x-api-key", key.KeyValue)
				res, err := client.Do(rq)
				var fail string
				if err != nil {
					fail = err.Error()
				} else {
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						fail = fmt.Sprintf("%d %.200s", res.StatusCode, body)
					}
				}
				mu.Lock()
				total++
				if fail == "" {
					ok++
				} else {
					failures = append(failures, fmt.Sprintf("%s: %s", time.Since(started).Round(time.Millisecond), fail))
				}
				mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	stopLoad := func() {
		select {
		case <-stop:
		default:
			close(stop)
			wg.Wait()
		}
	}
	t.Cleanup(stopLoad)
	time.Sleep(2 * time.Second) // steady load before the first restart

	// The rolling restart: each instance in turn is told to stop, exits, and is replaced; the next one is restarted
	// only once HAProxy has its replacement back in service.
	for _, name := range []string{"a", "b"} {
		old := procs[name]
		j, _ := db.BatchJobForWorker(ctx, job.ID)
		signalled := time.Now()
		if err := syscall.Kill(old.cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-old.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not exit after SIGTERM\n%s", old.name, old.log())
		}
		if code := old.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("%s exited %d, want 0\n%s", old.name, code, old.log())
		}
		exited := time.Since(signalled)
		p := start(name)
		procs[name] = p
		waitUntil(t, 60*time.Second, p.name+" ready", all(), func() bool { return readyStatus(p.url) == http.StatusOK })
		ready := time.Since(signalled)
		waitUntil(t, 20*time.Second, "haproxy sees "+p.name, all(), upInLB(name))
		mu.Lock()
		sofar, failed := total, len(failures)
		mu.Unlock()
		t.Logf("restarted %s: batch job at %d of %d rows (%s) at SIGTERM; exited %s after SIGTERM, replacement ready at %s, in HAProxy at %s; %d requests so far, %d failed",
			name, j.Processed, j.Total, j.Status, exited.Round(time.Millisecond), ready.Round(time.Millisecond),
			time.Since(signalled).Round(time.Millisecond), sofar, failed)
	}
	time.Sleep(2 * time.Second) // steady load after the last restart
	stopLoad()

	mu.Lock()
	defer mu.Unlock()
	for i, f := range failures {
		if i == 20 {
			t.Errorf("... and %d more", len(failures)-20)
			break
		}
		t.Errorf("failed request at %s", f)
	}

	// The batch job completes, each of its valued rows charged once.
	var done batch.Job
	waitUntil(t, 90*time.Second, "batch job completed", all(), func() bool {
		j, err := db.BatchJobForWorker(ctx, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		done = j
		return j.Status == batch.StatusCompleted
	})
	checkBatchConsistent(t, db, job.ID, userID)
	if done.Processed != done.Total || done.Total != 1500 {
		t.Errorf("batch job: %d of %d rows processed, want all 1500", done.Processed, done.Total)
	}

	// The ledger: one charge of one credit per lookup answered 200, none for anything else, and the balance agrees.
	entries, err := db.Ledger(ctx, userID, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	var lookupCharges, lookupCredits, batchCredits int64
	kinds := map[string]int{}
	for _, e := range entries {
		kinds[e.Kind]++
		switch e.Kind {
		case usagerec.ServiceValuation:
			lookupCharges++
			lookupCredits -= e.Amount
		case usagerec.ServiceBatch:
			batchCredits -= e.Amount
		}
	}
	balance, _, _, err := db.CreditTerms(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	if lookupCharges != int64(ok) || lookupCredits != int64(ok) {
		t.Errorf("ledger: %d lookup charges of %d credits for %d lookups answered 200 (ledger kinds %v)", lookupCharges,
			lookupCredits, ok, kinds)
	}
	if want := int64(credits) - int64(ok) - int64(done.Successful); balance != want || batchCredits != int64(done.Successful) {
		t.Errorf("balance %d, want %d (%d credits - %d lookups - %d batch rows); ledger's batch debits %d", balance, want,
			credits, ok, done.Successful, batchCredits)
	}
	t.Logf("rolling restart of 2 instances behind HAProxy: %d requests, %d answered 200, %d failed; ledger %d lookup charges (%d credits); batch job %d rows valued, %d refused, %d batch credits; balance %d of %d; took %s",
		total, ok, len(failures), lookupCharges, lookupCredits, done.Successful, done.Failed, batchCredits, balance, credits,
		time.Since(started).Round(time.Millisecond))
}
