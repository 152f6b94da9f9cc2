package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/batch"
	"valuator/internal/clock"
	"valuator/internal/mail"
	"valuator/internal/property"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	"valuator/internal/testredis"
)

// runEnv makes the test binary run `valuator` with the arguments it holds (space-separated) instead of the tests
// (see TestMain), so that a test can start real `serve` and `worker` processes, and kill them, without building
// the binary again.
const runEnv = "VALUATOR_TEST_RUN"

// runChildCommand is TestMain's path for such a child process: it is main() with the arguments from runEnv.
func runChildCommand() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, strings.Fields(os.Getenv(runEnv)), os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "valuator:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// clusterProc is one `valuator` process of the cluster test.
type clusterProc struct {
	name string
	url  string // serve only
	cmd  *exec.Cmd
	out  string // stdout and stderr, in one file
	done chan struct{}
}

// startProc starts `valuator args...` in its own process group with env added to the test's environment.
func startProc(t *testing.T, name, args string, env map[string]string) *clusterProc {
	t.Helper()
	p := &clusterProc{name: name, out: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	f, err := os.Create(p.out)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), runEnv+"="+args)
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
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
	t.Cleanup(func() { p.kill() })
	return p
}

// kill ends the process and its group with SIGKILL, as a crash or the OOM killer would, and waits for it.
func (p *clusterProc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

func (p *clusterProc) log() string {
	b, _ := os.ReadFile(p.out)
	if len(b) > 6000 {
		b = b[len(b)-6000:]
	}
	return string(b)
}

func (p *clusterProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitUntil polls cond until it is true, failing the test with what the processes said after wait.
func waitUntil(t *testing.T, wait time.Duration, what string, procs []*clusterProc, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		for _, p := range procs {
			if p.exited() {
				t.Fatalf("%s: %s exited:\n%s", what, p.name, p.log())
			}
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, p := range procs {
				fmt.Fprintf(&logs, "--- %s\n%s\n", p.name, p.log())
			}
			t.Fatalf("%s: not within %s\n%s", what, wait, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// call makes a request and returns the status and the body.
func call(t *testing.T, method, url string, hdr map[string]string, body io.Reader) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// mustJSON makes a request that must answer status, and decodes the answer into v (unless nil).
func mustJSON(t *testing.T, method, url string, hdr map[string]string, in any, status int, v any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
		if hdr == nil {
			hdr = map[string]string{}
		}
		hdr["Content-Type"] = "application/json"
	}
	got, b := call(t, method, url, hdr, body)
	if got != status {
		t.Fatalf("%s %s: %d %s, want %d", method, url, got, b, status)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, b, err)
		}
	}
}

// TestClusterSharesOneDatabase runs the product as it scales out: two `valuator serve` and one `valuator worker`
// processes started at once on one empty PostgreSQL database (in development with the demo on, so that they race
// to migrate and to seed it) and one Redis, and checks what must hold across instances: one rate budget per key,
// batch jobs run once and readable anywhere, a killed worker losing and double-charging nothing, imported records
// reaching every instance, sessions and key deletions valid everywhere at once.
func TestClusterSharesOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, Redis and three valuator processes")
	}
	started := time.Now()
	// The processes run on the tests' day (VALUATOR_CLOCK); what the test writes itself is dated on the same clock.
	clk := clock.Starting(testclock.Now())
	dbURL := testdb.PostgresURL(t)
	redisURL := testredis.URL(t)
	common := map[string]string{
		"VALUATOR_ENV":          "development",
		"VALUATOR_DEMO":         "true",
		"VALUATOR_DATABASE_URL": dbURL,
		"VALUATOR_REDIS_URL":    redisURL,
		"VALUATOR_SECRET":       strings.Repeat("c", 40), // one secret, as behind a load balancer
		"VALUATOR_LOG_LEVEL":    "warn",
		"VALUATOR_CLOCK":        testclock.Day(),
		// Short runs and a short rescue delay, so that the killed worker's job is resumed within the test.
		"VALUATOR_JOB_SLICE":        "1s",
		"VALUATOR_JOB_RESCUE_AFTER": "4s",
	}
	env := func(more map[string]string) map[string]string {
		m := map[string]string{"VALUATOR_DATA_DIR": t.TempDir()}
		for k, v := range common {
			m[k] = v
		}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	// The servers leave batch jobs to the worker, so that killing it interrupts a job for certain.
	addrA, addrB := freeAddr(t), freeAddr(t)
	serveA := startProc(t, "serve-a", "serve", env(map[string]string{"VALUATOR_ADDR": addrA, "VALUATOR_SERVE_JOBS": "false"}))
	serveB := startProc(t, "serve-b", "serve", env(map[string]string{"VALUATOR_ADDR": addrB, "VALUATOR_SERVE_JOBS": "false"}))
	workerVars := env(nil)
	worker := startProc(t, "worker", "worker", workerVars)
	serveA.url, serveB.url = "http://"+addrA, "http://"+addrB
	procs := []*clusterProc{serveA, serveB, worker}
	ready := func(p *clusterProc) func() bool {
		return func() bool {
			res, err := http.Get(p.url + "/readyz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == http.StatusOK
		}
	}
	waitUntil(t, 150*time.Second, "serve-a ready", procs, ready(serveA))
	waitUntil(t, 60*time.Second, "serve-b ready", procs, ready(serveB))
	waitUntil(t, 60*time.Second, "worker running", procs, func() bool {
		return strings.Contains(worker.log(), "Valuator worker is running")
	})
	t.Logf("three processes ready in %s", time.Since(started).Round(time.Millisecond))

	ctx := context.Background()
	db := testStore(t, dbURL)

	// The demo was seeded once: one demo account and its operator, one demo market, whoever won the race.
	if n, err := db.CountUsers(ctx); err != nil || n != 2 {
		t.Errorf("users after three concurrent starts: %d (%v), want the demo account and the demo operator", n, err)
	}
	md, err := db.LoadMarket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountProperties(ctx); err != nil || n != int64(len(md.Homes)) || n == 0 {
		t.Errorf("properties: %d (%v), market %d homes; want the demo market once", n, err, len(md.Homes))
	}
	seeded := 0
	for _, p := range procs {
		seeded += strings.Count(p.log(), "created the demo account")
	}
	if seeded > 1 {
		t.Errorf("%d processes seeded the demo account", seeded)
	}

	// customer makes an Enterprise account with plenty of credits (no rate cap of its plan, no batch size limit)
	// and signs it in on instance A.
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: discardLog()}, SessionTTL: time.Hour,
		Now: clk.Now})
	customer := func(t *testing.T, email string, credits int64) (token string, userID int64) {
		t.Helper()
		auth, err := accounts.Register(ctx, account.RegisterInput{Email: email, Password: "cluster-pass-123",
			FullName: "Cluster Test"}, account.Client{IP: "127.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetPlan(ctx, auth.User.ID, "enterprise", nil, clk.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Grant(ctx, auth.User.ID, credits-auth.User.Credits, "test", "credits", "", clk.Now()); err != nil {
			t.Fatal(err)
		}
		var login struct{ Token string }
		mustJSON(t, "POST", serveA.url+"/api/auth/login", nil, map[string]string{"email": email, "password": "cluster-pass-123"},
			http.StatusOK, &login)
		return login.Token, auth.User.ID
	}
	newKey := func(t *testing.T, base, token string, limit int) (id int64, value string) {
		t.Helper()
		var k struct {
			ID                 int64
			KeyValue           string
			EffectiveRateLimit int
		}
		mustJSON(t, "POST", base+"/api/api-keys", bearer(token), map[string]any{"name": "cluster", "rateLimit": limit},
			http.StatusCreated, &k)
		if k.EffectiveRateLimit != limit || k.KeyValue == "" {
			t.Fatalf("new key %+v, want one at %d a minute", k, limit)
		}
		return k.ID, k.KeyValue
	}
	home := md.Homes[0]
	lookupURL := func(base string, h property.Home) string {
		q := url.Values{"address": {strings.TrimSpace(h.Street + " " + h.UnitType + " " + h.Unit)}, "city": {h.City},
			"state": {h.State}, "zip": {h.ZIP}}
		return base + "/api/v1/property/valuation?" + q.Encode()
	}

	// d first, in part: the import runs now and its check runs last (a parallel subtest waits for the others),
	// because the instances reload the market once a minute and the other subtests fill that minute.
	t.Run("d_imported_records_reach_every_instance", func(t *testing.T) {
		token, _ := customer(t, "import@example.com", 1000)
		_, key := newKey(t, serveB.url, token, 100)
		nh := home
		nh.Street = "9 Cluster Test Way"
		nh.Unit, nh.UnitType = "", ""
		for _, base := range []string{serveA.url, serveB.url} {
			if st, b := call(t, "GET", lookupURL(base, nh), map[string]string{"x-api-key": key}, nil); st != http.StatusNotFound {
				t.Fatalf("before the import %s answered %d %s, want 404 (no record)", base, st, b)
			}
		}
		file := filepath.Join(t.TempDir(), "new.csv")
		csvText := "street,city,state,zip,lat,lon,type,beds,baths,sqft,year_built,sale_date,price\n" +
			fmt.Sprintf("%s,%s,%s,%s,%.6f,%.6f,Single Family,3,2,1800,1995,2025-06-02,650000\n",
				nh.Street, nh.City, nh.State, nh.ZIP, home.Lat+0.0004, home.Lon+0.0004)
		if err := os.WriteFile(file, []byte(csvText), 0o600); err != nil {
			t.Fatal(err)
		}
		imported := time.Now()
		imp := startProc(t, "import", "import sales "+file+" --format csv --source cluster", env(nil))
		<-imp.done
		if imp.cmd.ProcessState.ExitCode() != 0 || !strings.Contains(imp.log(), "1 homes created") {
			t.Fatalf("import failed:\n%s", imp.log())
		}
		t.Parallel()
		for _, p := range []*clusterProc{serveA, serveB} {
			var st int
			var b []byte
			deadline := time.Now().Add(150 * time.Second)
			for {
				st, b = call(t, "GET", lookupURL(p.url, nh), map[string]string{"x-api-key": key}, nil)
				if st == http.StatusOK {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s does not value the imported home: %d %s\n%s", p.name, st, b, p.log())
				}
				time.Sleep(500 * time.Millisecond)
			}
			// Valued from the imported record: found on record, with its facts and its sale.
			var got struct {
				Data struct {
					Property   struct{ MatchCode string }
					Valuation  struct{ EstimatedValue int64 }
					Details    struct{ SquareFeet, YearBuilt int }
					MarketData struct {
						PriceHistory []struct{ Price int64 }
					}
				}
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			d := got.Data
			if d.Property.MatchCode != "exact" || d.Details.SquareFeet != 1800 || d.Details.YearBuilt != 1995 ||
				len(d.MarketData.PriceHistory) != 1 || d.MarketData.PriceHistory[0].Price != 650000 || d.Valuation.EstimatedValue <= 0 {
				t.Errorf("%s valued the imported home, but not from its record: %s", p.name, b)
			}
			t.Logf("%s values the imported home %s after the import (%d)", p.name, time.Since(imported).Round(time.Second),
				d.Valuation.EstimatedValue)
		}
	})

	t.Run("a_rate_budget_is_shared", func(t *testing.T) {
		const limit = 20
		token, _ := customer(t, "rate@example.com", 1000)
		_, key := newKey(t, serveA.url, token, limit)
		// Every call values one home (cached after the first on each instance), so that the burst ends well within
		// the 3 seconds in which a budget of 20 a minute earns one more call.
		var mu sync.Mutex
		codes := map[string]map[int]int{serveA.url: {}, serveB.url: {}}
		var wg sync.WaitGroup
		for i := 0; i < 2*limit; i++ {
			base := serveA.url
			if i%2 == 1 {
				base = serveB.url
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, _ := call(t, "GET", lookupURL(base, home), map[string]string{"x-api-key": key}, nil)
				mu.Lock()
				codes[base][st]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		ok := codes[serveA.url][200] + codes[serveB.url][200]
		refused := codes[serveA.url][429] + codes[serveB.url][429]
		if ok != limit || refused != limit {
			t.Errorf("answers A %v, B %v: %d valued and %d refused, want %d and %d", codes[serveA.url], codes[serveB.url],
				ok, refused, limit, limit)
		}
		if codes[serveA.url][200] == 0 || codes[serveB.url][200] == 0 {
			t.Errorf("answers A %v, B %v: want both instances to value some", codes[serveA.url], codes[serveB.url])
		}
	})

	// uploadJob uploads a CSV of homes to base and returns the job's id.
	uploadJob := func(t *testing.T, base, token string, homes []property.Home) int64 {
		t.Helper()
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, err := mw.CreateFormFile("file", "homes.csv")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(fw, "Property Address,City,State,Zip Code")
		for _, h := range homes {
			fmt.Fprintf(fw, "%s,%s,%s,%s\n", strings.TrimSpace(h.Street+" "+h.UnitType+" "+h.Unit), h.City, h.State, h.ZIP)
		}
		mw.Close()
		st, b := call(t, "POST", base+"/api/jobs", map[string]string{"Authorization": "Bearer " + token,
			"Content-Type": mw.FormDataContentType()}, &buf)
		if st != http.StatusCreated {
			t.Fatalf("upload: %d %s", st, b)
		}
		var j struct{ ID int64 }
		if err := json.Unmarshal(b, &j); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	type jobView struct {
		Status                                                     string
		TotalProperties, ProcessedProperties, SuccessfulProperties int
		FailedProperties                                           int
		CreditsUsed                                                int64
	}
	// checkCharges checks, through the API of instance base, that the account's ledger and usage agree with the
	// job: each valued row charged once.
	checkCharges := func(t *testing.T, base, token string, credits int64, j jobView) {
		t.Helper()
		var ledger struct {
			Data []struct {
				Amount int64
				Kind   string
			}
		}
		mustJSON(t, "GET", base+"/api/billing/credits/history?limit=100", bearer(token), nil, http.StatusOK, &ledger)
		var debited int64
		for _, e := range ledger.Data {
			if e.Kind == "batch" {
				debited -= e.Amount
			}
		}
		var usage struct {
			Data []struct {
				APIService  string
				CreditsUsed int64
			}
		}
		mustJSON(t, "GET", base+"/api/usage/history?limit=100", bearer(token), nil, http.StatusOK, &usage)
		var used int64
		for _, e := range usage.Data {
			if e.APIService == "batch" {
				used += e.CreditsUsed
			}
		}
		var profile struct{ Credits int64 }
		mustJSON(t, "GET", base+"/api/user/profile", bearer(token), nil, http.StatusOK, &profile)
		want := int64(j.SuccessfulProperties)
		if debited != want || used != want || j.CreditsUsed != want || profile.Credits != credits-want {
			t.Errorf("%d rows valued; ledger debited %d, usage says %d, job says %d, balance %d of %d",
				want, debited, used, j.CreditsUsed, profile.Credits, credits)
		}
	}

	t.Run("b_batch_job_runs_once_and_reads_anywhere", func(t *testing.T) {
		const credits = 5000
		token, userID := customer(t, "batch@example.com", credits)
		id := uploadJob(t, serveA.url, token, md.Homes[:300])
		var j jobView
		waitUntil(t, 90*time.Second, "job completed", procs, func() bool {
			mustJSON(t, "GET", fmt.Sprintf("%s/api/jobs/%d", serveB.url, id), bearer(token), nil, http.StatusOK, &j)
			return j.Status == batch.StatusCompleted
		})
		if j.TotalProperties != 300 || j.ProcessedProperties != 300 || j.SuccessfulProperties+j.FailedProperties != 300 ||
			j.SuccessfulProperties < 290 {
			t.Errorf("job on B: %+v, want 300 rows processed, nearly all valued", j)
		}
		var results struct {
			Data []struct {
				Line           int
				Status         string
				EstimatedValue *int64
			}
			Pagination struct{ Total int }
		}
		mustJSON(t, "GET", fmt.Sprintf("%s/api/jobs/%d/results?limit=1000", serveB.url, id), bearer(token), nil, http.StatusOK, &results)
		lines := map[int]bool{}
		valued := 0
		for _, r := range results.Data {
			if lines[r.Line] {
				t.Errorf("line %d listed twice", r.Line)
			}
			lines[r.Line] = true
			if r.Status == batch.RowSuccess && r.EstimatedValue != nil {
				valued++
			}
		}
		if len(results.Data) != 300 || valued != j.SuccessfulProperties {
			t.Errorf("results on B: %d rows, %d valued; want 300 and %d", len(results.Data), valued, j.SuccessfulProperties)
		}
		checkCharges(t, serveB.url, token, credits, j)
		checkBatchConsistent(t, db, id, userID)
	})

	t.Run("c_killed_worker_loses_and_double_charges_nothing", func(t *testing.T) {
		const credits = 20000
		token, userID := customer(t, "kill@example.com", credits)
		homes := append(append([]property.Home{}, md.Homes...), md.Homes...) // twice: 6,000 rows
		id := uploadJob(t, serveB.url, token, homes)
		var before batch.Job
		waitUntil(t, 60*time.Second, "worker mid-job", procs, func() bool {
			j, err := db.BatchJobForWorker(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			before = j
			return j.Processed >= 500
		})
		worker.kill()
		killed, _ := db.BatchJobForWorker(ctx, id)
		if killed.Processed >= killed.Total {
			t.Fatalf("the worker finished all %d rows before it was killed", killed.Total)
		}
		t.Logf("killed the worker with SIGKILL after %d of %d rows (%d when seen)", killed.Processed, killed.Total, before.Processed)
		checkBatchConsistent(t, db, id, userID)

		restarted := startProc(t, "worker-2", "worker", workerVars)
		procs := []*clusterProc{serveA, serveB, restarted}
		killedAt := time.Now()
		var j jobView
		waitUntil(t, 100*time.Second, "job resumed and completed", procs, func() bool {
			mustJSON(t, "GET", fmt.Sprintf("%s/api/jobs/%d", serveA.url, id), bearer(token), nil, http.StatusOK, &j)
			return j.Status == batch.StatusCompleted
		})
		t.Logf("the restarted worker finished the job %s after the kill", time.Since(killedAt).Round(time.Second))
		done := checkBatchConsistent(t, db, id, userID)
		if done.Processed != done.Total || done.Total != len(homes) || done.Successful < done.Total*95/100 {
			t.Errorf("finished job: %d processed and %d valued of %d, want all %d processed and nearly all valued",
				done.Processed, done.Successful, done.Total, len(homes))
		}
		checkCharges(t, serveA.url, token, credits, j)
	})

	t.Run("e_session_works_on_every_instance", func(t *testing.T) {
		var login struct{ Token string }
		mustJSON(t, "POST", serveA.url+"/api/auth/login", nil, map[string]string{"email": demoEmail, "password": demoPassword},
			http.StatusOK, &login)
		var profile struct{ Email string }
		mustJSON(t, "GET", serveB.url+"/api/user/profile", bearer(login.Token), nil, http.StatusOK, &profile)
		if profile.Email != demoEmail {
			t.Errorf("profile on B = %+v, want the demo account", profile)
		}
		mustJSON(t, "POST", serveB.url+"/api/auth/logout", bearer(login.Token), nil, http.StatusNoContent, nil)
		if st, b := call(t, "GET", serveA.url+"/api/user/profile", bearer(login.Token), nil); st != http.StatusUnauthorized {
			t.Errorf("after logout on B, A answered %d %s, want 401", st, b)
		}
	})

	t.Run("f_deleted_key_is_refused_everywhere_at_once", func(t *testing.T) {
		token, _ := customer(t, "delete@example.com", 1000)
		id, key := newKey(t, serveA.url, token, 100)
		for _, base := range []string{serveA.url, serveB.url} {
			if st, b := call(t, "GET", lookupURL(base, home), map[string]string{"x-api-key": key}, nil); st != http.StatusOK {
				t.Fatalf("%s with the new key: %d %s", base, st, b)
			}
		}
		if st, b := call(t, "DELETE", fmt.Sprintf("%s/api/api-keys/%d", serveA.url, id), bearer(token), nil); st/100 != 2 {
			t.Fatalf("delete on A: %d %s", st, b)
		}
		if st, b := call(t, "GET", lookupURL(serveB.url, home), map[string]string{"x-api-key": key}, nil); st != http.StatusUnauthorized {
			t.Errorf("the deleted key on B: %d %s, want 401", st, b)
		}
	})
	t.Cleanup(func() { t.Logf("cluster test took %s", time.Since(started).Round(time.Millisecond)) })
}

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
