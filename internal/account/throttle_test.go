package account

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestThrottleBacksOffAfterFreeFailures(t *testing.T) {
	th := NewThrottle(3, time.Minute, 15*time.Minute)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	key := "email:jane@example.com"

	for i := 0; i < 3; i++ {
		if w := th.Wait(key, now); w != 0 {
			t.Fatalf("attempt %d: Wait = %v, want 0 within the free failures", i+1, w)
		}
		th.Fail(key, now)
	}
	// The 4th failure is the first over the free allowance: 2 s.
	th.Fail(key, now)
	if got, want := th.Wait(key, now), 2*time.Second; got != want {
		t.Fatalf("after 4 failures Wait = %v, want %v", got, want)
	}
	if got := th.Wait(key, now.Add(2*time.Second)); got != 0 {
		t.Errorf("after waiting out the delay Wait = %v, want 0", got)
	}
	th.Fail(key, now.Add(2*time.Second))
	if got, want := th.Wait(key, now.Add(2*time.Second)), 4*time.Second; got != want {
		t.Errorf("after 5 failures Wait = %v, want %v (doubled)", got, want)
	}

	// The delay is capped.
	for i := 0; i < 20; i++ {
		th.Fail(key, now.Add(3*time.Second))
	}
	if got := th.Wait(key, now.Add(3*time.Second)); got != time.Minute {
		t.Errorf("after many failures Wait = %v, want the 1m cap", got)
	}

	// Another key is unaffected; a reset forgets the key.
	if got := th.Wait("email:other@example.com", now); got != 0 {
		t.Errorf("other key Wait = %v, want 0", got)
	}
	th.Reset(key)
	if got := th.Wait(key, now.Add(3*time.Second)); got != 0 {
		t.Errorf("after Reset Wait = %v, want 0", got)
	}
}

func TestThrottleForgetsAfterWindow(t *testing.T) {
	th := NewThrottle(1, time.Hour, 10*time.Minute)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	th.Fail("k", now)
	th.Fail("k", now)
	th.Fail("k", now)
	if th.Wait("k", now) == 0 {
		t.Fatal("Wait = 0 after 3 failures with 1 free, want a delay")
	}
	later := now.Add(10 * time.Minute)
	if got := th.Wait("k", later); got != 0 {
		t.Errorf("Wait after the window = %v, want 0", got)
	}
	th.Fail("k", later)
	if got := th.Wait("k", later); got != 0 {
		t.Errorf("one failure after the window: Wait = %v, want 0 (count restarted)", got)
	}
}

// TestThrottleAttemptCountsBeforeTheCheck: parallel attempts at the same moment (a burst of guesses whose
// passwords are still being verified) cannot all pass; exactly Free+1 go ahead.
func TestThrottleAttemptCountsBeforeTheCheck(t *testing.T) {
	th := NewThrottle(5, 15*time.Minute, 15*time.Minute)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	var allowed atomic.Int32
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if th.Attempt("k", now) == 0 {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if got, want := int(allowed.Load()), th.Free+1; got != want {
		t.Errorf("%d of 50 simultaneous attempts went ahead, want %d", got, want)
	}
	if th.Wait("k", now) == 0 {
		t.Error("Wait = 0 after the burst, want a delay")
	}
}

func TestThrottleForgiveAndReset(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		settle   func(th *Throttle)
		wantWait bool
	}{
		// Forgiven successes leave the count of failures where it was: 2 failures with 2 free, no wait.
		{"forgive", func(th *Throttle) { th.Forgive("k") }, false},
		// Without forgiveness the three attempts count as failures: a wait.
		{"no forgive", func(*Throttle) {}, true},
		{"reset", func(th *Throttle) { th.Reset("k") }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			th := NewThrottle(2, time.Minute, 15*time.Minute)
			th.Fail("k", now)
			th.Fail("k", now)
			if w := th.Attempt("k", now); w != 0 {
				t.Fatalf("third attempt: Attempt = %v, want 0", w)
			}
			tt.settle(th)
			if got := th.Wait("k", now); (got > 0) != tt.wantWait {
				t.Errorf("Wait = %v, want a wait: %v", got, tt.wantWait)
			}
		})
	}
	// Forgiving a key that is not there is harmless, and the last forgiveness forgets the key.
	th := NewThrottle(2, time.Minute, 15*time.Minute)
	th.Forgive("nobody")
	th.Attempt("k", now)
	th.Forgive("k")
	if len(th.entries) != 0 {
		t.Errorf("entries = %v after forgiving the only attempt, want none", th.entries)
	}
}
