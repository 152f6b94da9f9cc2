package ratelimit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"valuator/internal/testredis"
)

// flaky is a shared limiter that fails while down is set, and counts its calls.
type flaky struct {
	down  atomic.Bool
	calls atomic.Int32
	inner *Memory
}

func (f *flaky) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	f.calls.Add(1)
	if f.down.Load() {
		return Result{}, errors.New("redis: i/o timeout")
	}
	return f.inner.Allow(ctx, key, l)
}

// TestGuardBreaker checks the breaker: failures are answered from the in-process limiter (with its limits, not
// all allowed), the breaker opens after BreakerFailures consecutive ones and then the shared limiter is not asked
// during the cool-down, one request tries it after the cool-down, and the breaker logs once when it opens and
// once when it closes.
func TestGuardBreaker(t *testing.T) {
	clock := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	shared := &flaky{inner: NewMemory(clock.now)}
	var logs bytes.Buffer
	g := NewGuard(shared, slog.New(slog.NewTextHandler(&logs, nil)), clock.now)
	ctx := t.Context()
	lim := PerMinute(3)

	shared.down.Store(true)
	allowed := 0
	for range 10 {
		res, err := g.Allow(ctx, "k", lim)
		if err != nil {
			t.Fatalf("Guard returned an error: %v", err)
		}
		if res.Allowed {
			allowed++
		}
	}
	if allowed != lim.Burst {
		t.Errorf("with the shared limiter down, %d of 10 allowed; want the in-process limit %d", allowed, lim.Burst)
	}
	if n := shared.calls.Load(); n != BreakerFailures {
		t.Errorf("shared limiter asked %d times; want %d (then the breaker is open)", n, BreakerFailures)
	}
	if !g.Open() {
		t.Fatal("breaker not open")
	}

	// After the cool-down one request tries again; it fails, so the breaker stays open for another cool-down.
	clock.t = clock.t.Add(BreakerCooldown)
	g.Allow(ctx, "k", lim)
	g.Allow(ctx, "k", lim)
	if n := shared.calls.Load(); n != BreakerFailures+1 {
		t.Errorf("after a cool-down the shared limiter was asked %d more times; want 1", n-BreakerFailures)
	}

	// Redis is back: after the next cool-down the probe succeeds and shared limits apply again.
	shared.down.Store(false)
	clock.t = clock.t.Add(BreakerCooldown)
	if _, err := g.Allow(ctx, "k2", lim); err != nil || g.Open() {
		t.Fatalf("after recovery: err = %v, open = %v", err, g.Open())
	}
	before := shared.calls.Load()
	g.Allow(ctx, "k2", lim)
	if shared.calls.Load() != before+1 {
		t.Error("breaker closed but the shared limiter was not asked")
	}

	out := logs.String()
	if strings.Count(out, "Redis is failing") != 1 || strings.Count(out, "Redis answers again") != 1 {
		t.Errorf("want one line for the opening and one for the closing, got:\n%s", out)
	}
}

// TestGuardIgnoresCancelledRequests checks that a request cancelled by its client does not count as a failure of
// Redis.
func TestGuardIgnoresCancelledRequests(t *testing.T) {
	shared := &flaky{inner: NewMemory(nil)}
	shared.down.Store(true)
	g := NewGuard(shared, nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 2 * BreakerFailures {
		g.Allow(ctx, "k", PerMinute(10))
	}
	if g.Open() {
		t.Error("cancelled requests opened the breaker")
	}
}

// pausableProxy forwards TCP connections to a Redis server and can be paused: while paused it forwards nothing,
// as a Redis stopped with SIGSTOP (or a partitioned network) would answer nothing.
type pausableProxy struct {
	ln     net.Listener
	paused atomic.Bool
	wg     sync.WaitGroup
}

func newPausableProxy(t *testing.T, upstream string) *pausableProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pausableProxy{ln: ln}
	var conns sync.Map
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			conns.Store(c, u)
			p.wg.Add(2)
			go p.pipe(u, c)
			go p.pipe(c, u)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.paused.Store(false)
		conns.Range(func(k, v any) bool { k.(net.Conn).Close(); v.(net.Conn).Close(); return true })
		p.wg.Wait()
	})
	return p
}

func (p *pausableProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.paused.Load() {
			time.Sleep(2 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				dst.Close()
			} else if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
	}
}

// TestRedisPausedAnswersFast checks the case: a Redis that stops answering (paused) costs a rate-limited
// request at most a few hundred milliseconds, never the client's default seconds; the limits still apply, per
// instance, while it is paused; and once it answers again the shared budget applies again.
func TestRedisPausedAnswersFast(t *testing.T) {
	u, err := url.Parse(testredis.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newPausableProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	r := openRedis(t, u.String())
	g := NewGuard(r, nil, nil)
	ctx := t.Context()
	lim := PerMinute(20)

	for range 5 { // warm the connection pool
		if _, err := r.Allow(ctx, "warm", lim); err != nil {
			t.Fatal(err)
		}
	}

	proxy.paused.Store(true)
	var slowest time.Duration
	allowed := 0
	for i := range 30 {
		start := time.Now()
		res, err := g.Allow(ctx, "paused", lim)
		d := time.Since(start)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if res.Allowed {
			allowed++
		}
		slowest = max(slowest, d)
	}
	t.Logf("Redis paused: slowest of 30 decisions took %v", slowest)
	if slowest > 500*time.Millisecond {
		t.Errorf("a decision with Redis paused took %v; want at most a few hundred milliseconds", slowest)
	}
	if allowed != lim.Burst {
		t.Errorf("with Redis paused %d of 30 allowed; want the per-instance limit %d", allowed, lim.Burst)
	}
	if !g.Open() {
		t.Error("breaker not open while Redis is paused")
	}

	// Redis answers again: after the cool-down the shared limits apply (a fresh key's full budget, then 429s).
	proxy.paused.Store(false)
	deadline := time.Now().Add(BreakerCooldown + 3*time.Second)
	for g.Open() && time.Now().Before(deadline) {
		g.Allow(ctx, "probe", lim)
		time.Sleep(50 * time.Millisecond)
	}
	if g.Open() {
		t.Fatal("breaker still open after Redis came back")
	}
	for i := range lim.Burst {
		if res, err := r.Allow(ctx, "after", lim); err != nil || !res.Allowed {
			t.Fatalf("request %d after recovery: allowed = %v, err = %v", i, res.Allowed, err)
		}
	}
	if res, _ := g.Allow(ctx, "after", lim); res.Allowed {
		t.Error("after recovery the guard did not apply the shared budget spent in Redis")
	}
}
