// Package scalebench measures how Valuator grows with the size of the market: for each market size it generates
// and imports the demo market into a fresh SQLite database (`valuator demo`), starts `valuator serve` (which
// trains the engine and saves it), stops it and starts it again (which restores the saved engine), and times
// valuations and market statistics calls over HTTP on 127.0.0.1 on that restarted server, as a deployed server
// restarts. Every figure is of a real process of the built binary: wall time, peak resident memory (the kernel's
// maxrss of the finished child, VmHWM) and the restarted server's resident memory once it has served (VmRSS).
//
// It is run by `make bench-scale` (cmd/scalebench); see docs/operations.md, "Large markets".
package scalebench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"valuator/internal/account"
	"valuator/internal/apikey"
	"valuator/internal/mail"
	"valuator/internal/store"
)

// Config says what to measure.
type Config struct {
	Bin   string // the valuator binary
	Homes []int  // market sizes, in order
	Seed  uint64 // demo market seed
	Dir   string // a folder for the databases (one subfolder per size, deleted after its run unless Keep)
	Keep  bool
	// Reuse measures a size whose database a kept run left (Keep) from its restart on: no import, no first start
	// (at ten million homes they take an hour and a half); Import and Train are then zero.
	Reuse   bool
	Addr    string // host:port for the server, on 127.0.0.1
	Lookups int    // valuations timed per size (after a warm-up of Lookups/10), then as many market statistics calls
	Rate    int    // requests a second, one at a time (a paced single client)
	Log     io.Writer
}

// Result is one market size's figures.
type Result struct {
	Homes, Sales, Rents   int
	DBBytes               int64
	Import                time.Duration // `valuator demo`: generate and import
	ImportRSS             int64         // bytes
	Train                 time.Duration // first `serve`: process start until /readyz (load, train, save)
	TrainRSS              int64         // peak of the first serve (it serves no calls)
	Startup               time.Duration // second `serve`: process start until /readyz (load, restore the saved engine)
	StartupRSS            int64         // peak of the second serve, its lookups and market calls included
	P50, P99, Max         time.Duration // valuation lookups over HTTP, on the second serve
	Lookups, Failed       int
	Exact                 int           // lookups answered as an exact match of the record (matchCode "exact")
	MarketP50, MarketP99  time.Duration // market statistics calls (GET /api/v1/markets?zip=) after the lookups
	Markets, MarketFailed int
	ServeRSS              int64 // the second serve's resident size (VmRSS) after its lookups and market calls
}

const secret = "scalebench-secret-scalebench-secret-0123"

// Run measures every size in turn and returns the figures of those that finished.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	var out []Result
	for _, n := range cfg.Homes {
		r, err := runOne(ctx, cfg, n)
		if err != nil {
			return out, fmt.Errorf("%d homes: %w", n, err)
		}
		out = append(out, r)
		fmt.Fprintf(cfg.Log, "%s\n", FormatTable([]Result{r}))
	}
	return out, nil
}

func runOne(ctx context.Context, cfg Config, n int) (Result, error) {
	r := Result{Homes: n}
	dir := filepath.Join(cfg.Dir, fmt.Sprintf("homes-%d", n))
	env := append(os.Environ(), "VALUATOR_DATA_DIR="+dir, "VALUATOR_ADDR="+cfg.Addr, "VALUATOR_DEMO=false",
		"VALUATOR_SECRET="+secret, "VALUATOR_LOG_LEVEL=info", "VALUATOR_DATABASE_URL=")
	logf := func(format string, a ...any) {
		fmt.Fprintf(cfg.Log, "[%d homes] "+format+"\n", append([]any{n}, a...)...)
	}
	if cfg.Reuse {
		if _, err := os.Stat(filepath.Join(dir, "valuator.db")); err != nil {
			return r, fmt.Errorf("reuse: no kept database: %w", err)
		}
		keys, addrs, err := prepare(ctx, filepath.Join(dir, "valuator.db"), cfg.Lookups+cfg.Lookups/10, &r)
		if err != nil {
			return r, err
		}
		logf("reusing the kept database: %d homes, %d sales, %d rents", r.Homes, r.Sales, r.Rents)
		return restart(ctx, cfg, r, dir, env, keys, addrs, logf)
	}
	if err := os.RemoveAll(dir); err != nil {
		return r, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}

	// 1. Generate and import.
	logf("generating and importing the demo market")
	started := time.Now()
	cmd := exec.CommandContext(ctx, cfg.Bin, "demo", "--homes", strconv.Itoa(n), "--seed", strconv.FormatUint(cfg.Seed, 10))
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = cfg.Log, cfg.Log
	if err := cmd.Run(); err != nil {
		return r, fmt.Errorf("valuator demo: %w", err)
	}
	r.Import, r.ImportRSS = time.Since(started), maxRSS(cmd.ProcessState)

	// 2. An account with credits and API keys, and a sample of addresses to look up.
	keys, addrs, err := prepare(ctx, filepath.Join(dir, "valuator.db"), cfg.Lookups+cfg.Lookups/10, &r)
	if err != nil {
		return r, err
	}
	logf("imported %d homes, %d sales, %d rents in %s (peak RSS %s)", r.Homes, r.Sales, r.Rents,
		round(r.Import), mib(r.ImportRSS))

	// 3. First start: trains and saves the engine.
	logf("first start: training")
	srv, err := startServe(ctx, cfg.Bin, env, filepath.Join(dir, "serve1.log"))
	if err != nil {
		return r, err
	}
	r.Train, err = srv.waitReady(ctx, cfg.Addr, 2*time.Hour)
	if err != nil {
		srv.stop()
		return r, err
	}
	logf("ready after %s (peak RSS so far %s)", round(r.Train), mib(srv.status("VmHWM")))
	if r.TrainRSS, err = srv.stop(); err != nil {
		return r, err
	}
	return restart(ctx, cfg, r, dir, env, keys, addrs, logf)
}

// restart measures a second start of a market whose engine the first saved, and the calls on it.
func restart(ctx context.Context, cfg Config, r Result, dir string, env, keys []string, addrs []url.Values,
	logf func(string, ...any)) (Result, error) {
	// 4. Second start: restores the saved engine; then the lookups and market calls, timed on it because a
	// deployed server serves after a restart, and its resident size once it has served them.
	logf("second start: restoring the saved engine")
	srv, err := startServe(ctx, cfg.Bin, env, filepath.Join(dir, "serve2.log"))
	if err != nil {
		return r, err
	}
	defer srv.stop() // on an error return; stopping twice is harmless
	r.Startup, err = srv.waitReady(ctx, cfg.Addr, time.Hour)
	if err != nil {
		return r, err
	}
	if b, err := os.ReadFile(srv.logFile.Name()); err == nil && !strings.Contains(string(b), "valuation engine restored") {
		return r, errors.New("the second start did not restore the saved engine (see serve2.log)")
	}
	// /readyz answers once the engine is loaded, but every ZIP code's statistics are still being computed in
	// the background (valuation.WarmMarkets): the calls are timed once that is done, in the steady state.
	warmed, err := srv.waitLog(ctx, "market statistics ready", 2*time.Hour)
	if err != nil {
		return r, err
	}
	logf("ready after %s, market statistics %s after that; timing %d lookups at %d a second", round(r.Startup),
		round(max(0, warmed-r.Startup)), cfg.Lookups, cfg.Rate)
	base := "http://" + cfg.Addr + "/api/v1/property/valuation?"
	urls := make([]string, len(addrs))
	for i, a := range addrs {
		urls[i] = base + a.Encode()
	}
	lat, exact, failed, err := timeCalls(ctx, cfg, "lookup", keys, urls, []byte(`"matchCode":"exact"`))
	if err != nil {
		return r, err
	}
	r.Lookups, r.Failed, r.Exact = len(lat), failed, exact
	r.P50, r.P99, r.Max = Percentile(lat, 50), Percentile(lat, 99), Percentile(lat, 100)
	logf("%d lookups, %d exact matches, %d failed: p50 %s, p99 %s", r.Lookups, r.Exact, r.Failed, ms(r.P50), ms(r.P99))
	// The ZIP codes of the same random homes: each ZIP is asked about as often as it has homes.
	base = "http://" + cfg.Addr + "/api/v1/markets?"
	for i, a := range addrs {
		urls[i] = base + url.Values{"zip": {a.Get("zip")}}.Encode()
	}
	lat, _, failed, err = timeCalls(ctx, cfg, "market statistics call", keys, urls, nil)
	if err != nil {
		return r, err
	}
	r.Markets, r.MarketFailed = len(lat), failed
	r.MarketP50, r.MarketP99 = Percentile(lat, 50), Percentile(lat, 99)
	r.ServeRSS = srv.status("VmRSS")
	logf("%d market statistics calls, %d failed: p50 %s, p99 %s; serving RSS %s", r.Markets, r.MarketFailed,
		ms(r.MarketP50), ms(r.MarketP99), mib(r.ServeRSS))
	if r.StartupRSS, err = srv.stop(); err != nil {
		return r, err
	}
	if fi, err := os.Stat(filepath.Join(dir, "valuator.db")); err == nil {
		r.DBBytes = fi.Size()
	}
	return r, nil
}

// prepare counts the records, creates an Enterprise account with plenty of credits and API keys, and picks
// random homes to look up.
func prepare(ctx context.Context, dbPath string, sample int, r *Result) ([]string, []url.Values, error) {
	db, err := store.Open(ctx, "sqlite://"+dbPath)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	q := db.SQL()
	if err := q.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM properties), (SELECT COUNT(*) FROM sales),
		(SELECT COUNT(*) FROM rentals)`).Scan(&r.Homes, &r.Sales, &r.Rents); err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.DiscardHandler)
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: log}, Logger: log, SessionTTL: time.Hour})
	// One account a run (a reused database was prepared before).
	email := fmt.Sprintf("scale-%d@example.com", time.Now().UnixNano())
	auth, err := accounts.Register(ctx, account.RegisterInput{Email: email, Password: "scale-bench-pass",
		FullName: "Scale Bench"}, account.Client{IP: "127.0.0.1"})
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	if err := db.SetPlan(ctx, auth.User.ID, "enterprise", nil, now); err != nil {
		return nil, nil, err
	}
	if _, err := db.Grant(ctx, auth.User.ID, 100_000_000, "test", "scale benchmark credits", "", now); err != nil {
		return nil, nil, err
	}
	sealer, err := apikey.NewSealer(secret)
	if err != nil {
		return nil, nil, err
	}
	var keys []string
	for i := range apikey.MaxPerAccount {
		k, _ := apikey.New()
		sealed, _ := sealer.Seal(k)
		if _, err := db.CreateAPIKey(ctx, auth.User.ID, fmt.Sprintf("scale-%d", i), apikey.Hash(k), sealed,
			apikey.Preview(k), apikey.MaxRateLimit, apikey.MaxPerAccount, now); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
	}
	rows, err := q.QueryContext(ctx, `SELECT street, unit_type, unit, city, state, zip FROM properties
		WHERE street <> '' ORDER BY random() LIMIT ?`, sample)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var addrs []url.Values
	for rows.Next() {
		var street, unitType, unit, city, state, zip string
		if err := rows.Scan(&street, &unitType, &unit, &city, &state, &zip); err != nil {
			return nil, nil, err
		}
		addrs = append(addrs, url.Values{"address": {strings.Join(strings.Fields(street+" "+unitType+" "+unit), " ")},
			"city": {city}, "state": {state}, "zip": {zip}})
	}
	return keys, addrs, rows.Err()
}

// timeCalls sends the GET requests one at a time at cfg.Rate a second, round-robin over the keys (each key's
// limit is 1,000 a minute, so 20 keys allow 333 a second), and returns the latencies of the answers after the
// warm-up (the first tenth, beyond cfg.Lookups) that were 200, how many of those contain match (if given) and how
// many were not 200. A request that cannot be sent at all ends the run: the server is gone.
func timeCalls(ctx context.Context, cfg Config, what string, keys, urls []string, match []byte) ([]time.Duration, int, int, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	warm := len(urls) - cfg.Lookups
	var lat []time.Duration
	matched, failed := 0, 0
	every := time.Second / time.Duration(max(1, cfg.Rate))
	next := time.Now()
	for i, u := range urls {
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
		time.Sleep(time.Until(next))
		next = next.Add(every)
		req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
		req.Header.Set("x-api-key", keys[i%len(keys)])
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, 0, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, 0, 0, err
		}
		d := time.Since(t0)
		if i < warm {
			continue
		}
		if resp.StatusCode != http.StatusOK {
			failed++
			if failed == 1 {
				fmt.Fprintf(cfg.Log, "%s %s answered %d: %.300s\n", what, u, resp.StatusCode, body)
			}
			continue
		}
		lat = append(lat, d)
		if match != nil && bytes.Contains(body, match) {
			matched++
		}
	}
	if len(lat) == 0 {
		return nil, 0, failed, fmt.Errorf("no %s succeeded", what)
	}
	return lat, matched, failed, nil
}

type serveProc struct {
	cmd     *exec.Cmd
	started time.Time
	logFile *os.File
	done    chan struct{} // closed once the process has exited, so that every wait on it sees that
}

func startServe(ctx context.Context, bin string, env []string, logPath string) (*serveProc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	p := &serveProc{cmd: cmd, logFile: f, done: make(chan struct{}), started: time.Now()}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// waitReady polls /readyz every 50 ms and returns the time from the process's start until it answered 200.
func (p *serveProc) waitReady(ctx context.Context, addr string, limit time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := p.started.Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return 0, fmt.Errorf("valuator serve exited before it was ready (%v); see %s", p.cmd.ProcessState, p.logFile.Name())
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get("http://" + addr + "/readyz")
		if err != nil {
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return time.Since(p.started), nil
		}
	}
	return 0, fmt.Errorf("valuator serve not ready after %s; see %s", limit, p.logFile.Name())
}

// waitLog polls the server's log every 200 ms until it contains s and returns the time from the process's start
// until then.
func (p *serveProc) waitLog(ctx context.Context, s string, limit time.Duration) (time.Duration, error) {
	deadline := p.started.Add(limit)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(p.logFile.Name()); err == nil && strings.Contains(string(b), s) {
			return time.Since(p.started), nil
		}
		select {
		case <-p.done:
			return 0, fmt.Errorf("valuator serve exited (%v); see %s", p.cmd.ProcessState, p.logFile.Name())
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("no %q in %s after %s", s, p.logFile.Name(), limit)
}

// status reads a memory figure of the running server from /proc/<pid>/status ("VmRSS": resident now, "VmHWM": its
// peak so far), in bytes; 0 if it cannot (the process has exited, or not Linux).
func (p *serveProc) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// stop ends the server with SIGTERM, as an operator would, and returns its peak resident memory. Once it has
// stopped, stopping again returns the same.
func (p *serveProc) stop() (int64, error) {
	defer p.logFile.Close()
	select {
	case <-p.done:
		return maxRSS(p.cmd.ProcessState), nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	if p.cmd.ProcessState == nil {
		return 0, errors.New("valuator serve did not exit")
	}
	return maxRSS(p.cmd.ProcessState), nil
}

// maxRSS is a finished child's peak resident memory in bytes (Linux reports kilobytes).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// Percentile is the p-th percentile (nearest rank) of the durations; p = 100 is the maximum.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	k := int(float64(len(s))*p/100+0.999999999) - 1
	return s[max(0, min(k, len(s)-1))]
}

// ParseHomes reads a comma-separated list of market sizes ("10000,100000,1e6" and "10k,1M" are accepted).
func ParseHomes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		mult := 1.0
		switch strings.ToLower(f[len(f)-1:]) {
		case "k":
			mult, f = 1e3, f[:len(f)-1]
		case "m":
			mult, f = 1e6, f[:len(f)-1]
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(f, "_", ""), 64)
		n := int(v * mult)
		if err != nil || v*mult != float64(n) || n < 100 {
			return nil, fmt.Errorf("bad market size %q: want a whole number of homes, at least 100", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no market sizes given")
	}
	return out, nil
}

// FormatTable prints the figures as a Markdown table.
func FormatTable(rs []Result) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	fmt.Fprintln(w, "| homes | sales | rents | DB | import | import RSS | train (start to ready) | serve peak RSS | lookup p50 | p99 | max | restart to ready | restart RSS | serving RSS | market p50 | p99 |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			thousands(r.Homes), thousands(r.Sales), thousands(r.Rents), mib(r.DBBytes), round(r.Import), mib(r.ImportRSS),
			round(r.Train), mib(r.TrainRSS), ms(r.P50), ms(r.P99), ms(r.Max), round(r.Startup), mib(r.StartupRSS),
			mib(r.ServeRSS), ms(r.MarketP50), ms(r.MarketP99))
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func mib(b int64) string { return fmt.Sprintf("%d MiB", (b+1<<19)>>20) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func round(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
