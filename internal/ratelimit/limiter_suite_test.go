package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"valuator/internal/testredis"
)

func TestMain(m *testing.M) { testredis.Main(m) }

func TestMemoryConformance(t *testing.T) {
	testLimiter(t, func(t *testing.T) Limiter { return NewMemory(nil) })
}

func TestRedisConformance(t *testing.T) {
	testLimiter(t, newTestRedis)
}

// newTestRedis returns a Redis limiter on an empty database of its own, closed when the test ends; it skips or
// fails the test as testredis.URL does when there is no Redis.
func newTestRedis(t *testing.T) Limiter {
	t.Helper()
	r, err := NewRedis(testredis.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// testLimiter is what every Limiter must do, on the real clock. Limits whose interval is minutes make the
// exact checks immune to slow machines; the refill checks use an interval of 250ms and margins of 50ms or more.
func testLimiter(t *testing.T, newLimiter func(t *testing.T) Limiter) {
	// 20 an hour: one request every 3 minutes, which no test here comes near.
	slow := Limit{Rate: 20, Period: time.Hour, Burst: 20}
	slowInterval := 3 * time.Minute
	// Slack for time that passes during a test, far above what it takes, far below the intervals.
	const slack = time.Minute

	t.Run("BurstThenDeny", func(t *testing.T) {
		t.Parallel()
		l, ctx := newLimiter(t), t.Context()
		for i := range slow.Burst {
			res := allow(t, l, ctx, "k", slow)
			if !res.Allowed {
				t.Fatalf("request %d denied within the burst of %d", i+1, slow.Burst)
			}
			if want := slow.Burst - 1 - i; res.Remaining != want {
				t.Errorf("request %d: Remaining = %d, want %d", i+1, res.Remaining, want)
			}
			if res.Limit != slow.Burst {
				t.Errorf("request %d: Limit = %d, want %d", i+1, res.Limit, slow.Burst)
			}
			if res.RetryAfter != 0 {
				t.Errorf("request %d allowed with RetryAfter = %v, want 0", i+1, res.RetryAfter)
			}
			// After n requests the budget is full again n intervals after the first.
			full := time.Duration(i+1) * slowInterval
			if res.ResetAfter <= full-slack || res.ResetAfter > full {
				t.Errorf("request %d: ResetAfter = %v, want just under or at %v", i+1, res.ResetAfter, full)
			}
		}
		// Denials do not spend anything, so they all look alike.
		for i := range 3 {
			res := allow(t, l, ctx, "k", slow)
			if res.Allowed {
				t.Fatalf("request %d allowed beyond the burst of %d", slow.Burst+1+i, slow.Burst)
			}
			if res.Remaining != 0 || res.Limit != slow.Burst {
				t.Errorf("denied: Remaining = %d, Limit = %d; want 0, %d", res.Remaining, res.Limit, slow.Burst)
			}
			if res.RetryAfter <= slowInterval-slack || res.RetryAfter > slowInterval {
				t.Errorf("denied: RetryAfter = %v, want just under or at the interval %v", res.RetryAfter, slowInterval)
			}
			if res.ResetAfter <= slow.Period-slack || res.ResetAfter > slow.Period {
				t.Errorf("denied: ResetAfter = %v, want just under or at the period %v", res.ResetAfter, slow.Period)
			}
		}
	})

	t.Run("FirstRequest", func(t *testing.T) {
		t.Parallel()
		l, ctx := newLimiter(t), t.Context()
		// Intervals of 0.6 s, 50 ms and 8.57... s are not exact in floating point, unlike slow's.
		for _, lim := range []Limit{PerMinute(100), PerMinute(60), Per(20, time.Second), {Rate: 7, Period: time.Minute, Burst: 3},
			{Rate: 1, Period: time.Minute, Burst: 1}, {Rate: 3, Period: time.Second, Burst: 1}} {
			res := allow(t, l, ctx, fmt.Sprint(lim), lim)
			interval := lim.Period / time.Duration(lim.Rate)
			if !res.Allowed || res.Remaining != lim.Burst-1 || res.Limit != lim.Burst {
				t.Errorf("%+v: Allowed = %v, Remaining = %d, Limit = %d; want true, %d, %d",
					lim, res.Allowed, res.Remaining, res.Limit, lim.Burst-1, lim.Burst)
			}
			// Redis computes in floating-point seconds (0.6000000238 s for 0.6 s), so a microsecond is
			// forgiven.
			if res.ResetAfter <= 0 || res.ResetAfter > interval+time.Microsecond {
				t.Errorf("%+v: ResetAfter = %v, want in (0, %v]", lim, res.ResetAfter, interval)
			}
		}
	})

	t.Run("IndependentKeys", func(t *testing.T) {
		t.Parallel()
		l, ctx := newLimiter(t), t.Context()
		lim := Limit{Rate: 3, Period: time.Hour, Burst: 3}
		for range lim.Burst {
			allow(t, l, ctx, "spent", lim)
		}
		if res := allow(t, l, ctx, "spent", lim); res.Allowed {
			t.Fatal("request beyond the burst allowed")
		}
		for _, key := range []string{"other", "spent2", "Spent", "spent:x"} {
			if res := allow(t, l, ctx, key, lim); !res.Allowed || res.Remaining != lim.Burst-1 {
				t.Errorf("key %q after another key was spent: Allowed = %v, Remaining = %d; want true, %d",
					key, res.Allowed, res.Remaining, lim.Burst-1)
			}
		}
	})

	t.Run("Refill", func(t *testing.T) {
		t.Parallel()
		l, ctx := newLimiter(t), t.Context()
		lim := Limit{Rate: 4, Period: time.Second, Burst: 4}
		interval := 250 * time.Millisecond

		// Spend the burst. The requests take far less than an interval, but count what was allowed
		// rather than assume it.
		start := time.Now()
		var denied Result
		allowed := 0
		for {
			res := allow(t, l, ctx, "k", lim)
			if !res.Allowed {
				denied = res
				break
			}
			allowed++
			if allowed > 2*lim.Burst {
				t.Fatalf("%d requests allowed in a row with a burst of %d", allowed, lim.Burst)
			}
		}
		if maxAllowed := lim.Burst + int(time.Since(start)/interval); allowed < lim.Burst || allowed > maxAllowed {
			t.Errorf("allowed %d requests in %v, want %d to %d", allowed, time.Since(start), lim.Burst, maxAllowed)
		}
		if denied.RetryAfter <= 0 || denied.RetryAfter > interval {
			t.Errorf("denied: RetryAfter = %v, want in (0, %v]", denied.RetryAfter, interval)
		}

		// After RetryAfter there is one request, and only one.
		time.Sleep(denied.RetryAfter + 50*time.Millisecond)
		res := allow(t, l, ctx, "k", lim)
		if !res.Allowed {
			t.Fatalf("denied %v after the RetryAfter of %v", denied.RetryAfter+50*time.Millisecond, denied.RetryAfter)
		}
		if res.Remaining != 0 {
			t.Errorf("one interval later: Remaining = %d, want 0", res.Remaining)
		}
		if again := allow(t, l, ctx, "k", lim); again.Allowed {
			t.Error("a second request right after the refilled one was allowed")
		}

		// After ResetAfter the whole burst is back.
		if res.ResetAfter <= 0 || res.ResetAfter > lim.Period {
			t.Fatalf("ResetAfter = %v, want in (0, %v]", res.ResetAfter, lim.Period)
		}
		time.Sleep(res.ResetAfter + 50*time.Millisecond)
		for i := range lim.Burst {
			res := allow(t, l, ctx, "k", lim)
			if !res.Allowed {
				t.Fatalf("request %d denied after ResetAfter", i+1)
			}
			if i == 0 && res.Remaining != lim.Burst-1 {
				t.Errorf("after ResetAfter: Remaining = %d, want %d (a full budget)", res.Remaining, lim.Burst-1)
			}
		}
	})

	t.Run("ZeroLimitDenies", func(t *testing.T) {
		t.Parallel()
		l, ctx := newLimiter(t), t.Context()
		for _, lim := range []Limit{
			{},
			{Rate: 0, Period: time.Minute, Burst: 10},
			{Rate: 10, Period: time.Minute, Burst: 0},
			{Rate: 10, Period: 0, Burst: 10},
			{Rate: -1, Period: time.Minute, Burst: 10},
			{Rate: 10, Period: -time.Minute, Burst: 10},
			{Rate: 10, Period: time.Minute, Burst: -1},
		} {
			res, err := l.Allow(ctx, "k", lim)
			if err != nil || res.Allowed {
				t.Errorf("%+v: Allowed = %v, err = %v; want false, nil", lim, res.Allowed, err)
			}
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		l, ctx := newLimiter(t), t.Context()
		const goroutines, calls = 50, 10
		var mu sync.Mutex
		var remaining []int
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for range calls {
					res, err := l.Allow(ctx, "shared", slow)
					if err != nil {
						t.Error(err)
						return
					}
					if res.Allowed {
						mu.Lock()
						remaining = append(remaining, res.Remaining)
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if len(remaining) != slow.Burst {
			t.Fatalf("%d goroutines × %d calls on a burst of %d: %d allowed, want %d",
				goroutines, calls, slow.Burst, len(remaining), slow.Burst)
		}
		// Each allowed request saw the budget one lower than the one before it: no two raced.
		slices.Sort(remaining)
		for i, r := range remaining {
			if r != i {
				t.Fatalf("Remaining of the allowed requests = %v, want 0 to %d once each", remaining, slow.Burst-1)
			}
		}
	})
}

// allow calls l.Allow and fails the test on an error.
func allow(t *testing.T, l Limiter, ctx context.Context, key string, lim Limit) Result {
	t.Helper()
	res, err := l.Allow(ctx, key, lim)
	if err != nil {
		t.Fatalf("Allow(%q, %+v): %v", key, lim, err)
	}
	return res
}
