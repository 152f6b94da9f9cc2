package account

import (
	"sync"
	"time"
)

// Throttle slows down repeated failed sign-ins for one key (an email at a client address, or a client address).
// The first Free failures cost nothing; after that each further attempt must wait twice as long as the one before
// (2 s, 4 s, 8 s, ... up to Max) counted from the last failure. A key is forgotten after Window without a failure,
// or on a successful sign-in. Exponential delay rather than a hard lockout keeps a guessing attack useless while a
// person who mistyped can still get in, and an attacker cannot lock a victim out for long.
//
// Sign-in uses Attempt, which checks the wait and counts the attempt in one locked step before the password is
// verified: checking first and counting after the slow verification would let any number of parallel guesses
// through while the first ones are still being verified.
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
	return t.wait(key, now)
}

func (t *Throttle) wait(key string, now time.Time) time.Duration {
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

// Attempt is the throttle's one locked step for an attempt about to be checked: when key must still wait it
// returns the wait and records nothing; otherwise it records the attempt as a failure at once and returns 0. The
// caller takes the failure back when the attempt succeeds (Reset or Forgive) or was never checked (Forgive).
// Because the check and the count happen under one lock, parallel attempts cannot all pass the check before any
// of them is counted: at most Free+1 attempts of a key go through without waiting.
func (t *Throttle) Attempt(key string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if wait := t.wait(key, now); wait > 0 {
		return wait
	}
	t.fail(key, now)
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
	t.fail(key, now)
}

func (t *Throttle) fail(key string, now time.Time) {
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

// Forgive takes back one failure recorded by Attempt: the attempt succeeded but the key is shared by other
// people (a client address), or it was refused before its password was checked. The count of a key thus stays a
// count of failures, while attempts still being checked count too.
func (t *Throttle) Forgive(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.entries[key]
	if !ok {
		return
	}
	f.count--
	if f.count <= 0 {
		delete(t.entries, key)
	}
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
