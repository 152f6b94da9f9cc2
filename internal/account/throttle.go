package account

import (
	"sync"
	"time"
)

// Throttle slows down repeated failed sign-ins for one key (an email, or a client address). The first Free
// failures cost nothing; after that each further attempt must wait twice as long as the one before (2 s, 4 s,
// 8 s, ... up to Max) counted from the last failure. A key is forgotten after Window without a failure, or on a
// successful sign-in. Exponential delay rather than a hard lockout keeps a guessing attack useless while a person
// who mistyped can still get in, and an attacker cannot lock a victim out for long.
type Throttle struct {
	Free   int
	Max    time.Duration
	Window time.Duration

	mu      sync.Mutex
	entries map[string]*failures
	sweeps  int
}

type failures struct {
	count int
	last  time.Time
}

// maxThrottleEntries bounds memory under a flood of distinct keys; past it, forgotten entries are swept.
const maxThrottleEntries = 100_000

// NewThrottle returns a throttle with the given free failures, maximum delay and memory window.
func NewThrottle(free int, maxDelay, window time.Duration) *Throttle {
	return &Throttle{Free: free, Max: maxDelay, Window: window, entries: map[string]*failures{}}
}

// Wait returns how long the key must still wait before its next attempt (0: go ahead).
func (t *Throttle) Wait(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.entries[key]
	if !ok || now.Sub(f.last) >= t.Window {
		return 0
	}
	delay := t.delay(f.count)
	if wait := f.last.Add(delay).Sub(now); wait > 0 {
		return wait
	}
	return 0
}

// delay is the pause required after count failures.
func (t *Throttle) delay(count int) time.Duration {
	over := count - t.Free
	if over <= 0 {
		return 0
	}
	d := time.Second
	for i := 0; i < over && d < t.Max; i++ {
		d *= 2
	}
	return min(d, t.Max)
}

// Fail records a failed attempt for key.
func (t *Throttle) Fail(key string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.entries[key]
	if !ok || now.Sub(f.last) >= t.Window {
		if len(t.entries) >= maxThrottleEntries {
			t.sweep(now)
		}
		f = &failures{}
		t.entries[key] = f
	}
	f.count++
	f.last = now
}

// Reset forgets key (after a successful sign-in).
func (t *Throttle) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, key)
}

func (t *Throttle) sweep(now time.Time) {
	for k, f := range t.entries {
		if now.Sub(f.last) >= t.Window {
			delete(t.entries, k)
		}
	}
	t.sweeps++
}
