// Package scalebench measures how Valuator grows with the size of the market: for each market size it generates
// and imports the demo market into a fresh SQLite database (`valuator demo`), starts `valuator serve` (which
// trains the engine and saves it), looks up homes over HTTP on 127.0.0.1, stops it and starts it again (which
// restores the saved engine). Every figure is of a real process of the built binary: wall time, and peak resident
// memory (the kernel's maxrss of the finished child, VmHWM).
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
	Bin     string // the valuator binary
	Homes   []int  // market sizes, in order
	Seed    uint64 // demo market seed
	Dir     string // a folder for the databases (one subfolder per size, deleted after its run unless Keep)
	Keep    bool
	Addr    string // host:port for the server, on 127.0.0.1
	Lookups int    // valuations timed per size (after a warm-up of Lookups/10)
	Rate    int    // lookups a second, one at a time (a paced single client)
	Log     io.Writer
}

// Result is one market size's figures.
type Result struct {
	Homes, Sales, Rents int
	DBBytes             int64
	Import              time.Duration // `valuator demo`: generate and import
	ImportRSS           int64         // bytes
	Train               time.Duration // first `serve`: process start until /readyz (load, train, save)
	TrainRSS            int64         // peak of the first serve, lookups included
	P50, P99, Max       time.Duration // valuation lookups over HTTP
	Lookups, Failed     int
	Exact               int           // lookups answered as an exact match of the record (matchCode "exact")
	Startup             time.Duration // second `serve`: process start until /readyz (load, restore the saved engine)
	StartupRSS          int64
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
	if err := os.RemoveAll(dir); err != nil {
		return r, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	env := append(os.Environ(), "VALUATOR_DATA_DIR="+dir, "VALUATOR_ADDR="+cfg.Addr, "VALUATOR_DEMO=false",
		"VALUATOR_SECRET="+secret, "VALUATOR_LOG_LEVEL=info", "VALUATOR_DATABASE_URL=")
	logf := func(format string, a ...any) {
		fmt.Fprintf(cfg.Log, "[%d homes] "+format+"\n", append([]any{n}, a...)...)
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

	// 3. First start: trains and saves the engine; then the lookups.
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
	logf("ready after %s; timing %d lookups", round(r.Train), cfg.Lookups)
	lat, exact, failed, err := lookups(ctx, cfg, keys, addrs)
	if err != nil {
		srv.stop()
		return r, err
	}
	r.Lookups, r.Failed, r.Exact = len(lat), failed, exact
	logf("%d lookups, %d exact matches, %d failed", r.Lookups, r.Exact, r.Failed)
	r.P50, r.P99, r.Max = Percentile(lat, 50), Percentile(lat, 99), Percentile(lat, 100)
	if r.TrainRSS, err = srv.stop(); err != nil {
		return r, err
	}

	// 4. Second start: restores the saved engine.
	logf("second start: restoring the saved engine")
	srv, err = startServe(ctx, cfg.Bin, env, filepath.Join(dir, "serve2.log"))
	if err != nil {
		return r, err
	}
	r.Startup, err = srv.waitReady(ctx, cfg.Addr, time.Hour)
	if err != nil {
		srv.stop()
		return r, err
	}
	if r.StartupRSS, err = srv.stop(); err != nil {
		return r, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "serve2.log")); err == nil && !strings.Contains(string(b), "valuation engine restored") {
		return r, errors.New("the second start did not restore the saved engine (see serve2.log)")
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
	auth, err := accounts.Register(ctx, account.RegisterInput{Email: "scale@example.com", Password: "scale-bench-pass",
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

// lookups values the addresses one at a time at cfg.Rate a second, round-robin over the keys (each key's limit
// is 1,000 a minute), and returns the latencies after the warm-up (the first tenth), how many of those matched a
// record exactly and how many failed.
func lookups(ctx context.Context, cfg Config, keys []string, addrs []url.Values) ([]time.Duration, int, int, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	base := "http://" + cfg.Addr + "/api/v1/property/valuation?"
	warm := len(addrs) - cfg.Lookups
	var lat []time.Duration
	exact, failed := 0, 0
	every := time.Second / time.Duration(max(1, cfg.Rate))
	next := time.Now()
	for i, a := range addrs {
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
		time.Sleep(time.Until(next))
		next = next.Add(every)
		req, _ := http.NewRequestWithContext(ctx, "GET", base+a.Encode(), nil)
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
				fmt.Fprintf(cfg.Log, "lookup of %s answered %d\n", a.Encode(), resp.StatusCode)
			}
			continue
		}
		lat = append(lat, d)
		if bytes.Contains(body, []byte(`"matchCode":"exact"`)) {
			exact++
		}
	}
	if len(lat) == 0 {
		return nil, 0, failed, errors.New("no lookup succeeded")
	}
	return lat, exact, failed, nil
}

type serveProc struct {
	cmd     *exec.Cmd
	started time.Time
	logFile *os.File
	done    chan error
}

func startServe(ctx context.Context, bin string, env []string, logPath string) (*serveProc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	p := &serveProc{cmd: cmd, logFile: f, done: make(chan error, 1), started: time.Now()}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// waitReady polls /readyz every 50 ms and returns the time from the process's start until it answered 200.
func (p *serveProc) waitReady(ctx context.Context, addr string, limit time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := p.started.Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			return 0, fmt.Errorf("valuator serve exited before it was ready (%v); see %s", err, p.logFile.Name())
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

// stop ends the server with SIGTERM, as an operator would, and returns its peak resident memory.
func (p *serveProc) stop() (int64, error) {
	defer p.logFile.Close()
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
	fmt.Fprintln(w, "| homes | sales | rents | DB | import | import RSS | train (start to ready) | serve peak RSS | lookup p50 | p99 | max | restart to ready | restart RSS |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			thousands(r.Homes), thousands(r.Sales), thousands(r.Rents), mib(r.DBBytes), round(r.Import), mib(r.ImportRSS),
			round(r.Train), mib(r.TrainRSS), ms(r.P50), ms(r.P99), ms(r.Max), round(r.Startup), mib(r.StartupRSS))
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
