// Package ratelimit decides whether a caller may make one more request. It uses the generic cell rate algorithm
// (GCRA): each key keeps one timestamp, the "theoretical arrival time", so the limiter is exact, smooth (no burst
// at window edges) and needs O(1) memory per key. The in-memory implementation serves one instance; a Redis one
// (same algorithm, github.com/go-redis/redis_rate) lets several instances share one budget.
package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Limit allows Rate requests per Period, with bursts of up to Burst requests.
type Limit struct {
	Rate   int
	Period time.Duration
	Burst  int
}

// PerMinute allows n requests a minute with a burst of n.
func PerMinute(n int) Limit { return Limit{Rate: n, Period: time.Minute, Burst: n} }

// Per allows n requests per period with a burst of n.
func Per(n int, period time.Duration) Limit { return Limit{Rate: n, Period: period, Burst: n} }

// Result is the decision for one request.
type Result struct {
	Allowed bool
	// Limit is the burst size, Remaining how many more requests would be allowed right now.
	Limit     int
	Remaining int
	// RetryAfter is how long to wait before the next request is allowed (0 when allowed).
	RetryAfter time.Duration
	// ResetAfter is how long until the key is back to its full burst.
	ResetAfter time.Duration
}

// Limiter is implemented by Memory and by the Redis limiter.
type Limiter interface {
	Allow(ctx context.Context, key string, limit Limit) (Result, error)
}

// Memory is a Limiter for a single process.
type Memory struct {
	now func() time.Time

	mu    sync.Mutex
	tat   map[string]time.Time
	calls int
}

// NewMemory returns an in-memory limiter reading time from now (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tat: map[string]time.Time{}}
}

// sweepEvery bounds memory: every so many calls, keys whose budget is full again are forgotten.
const sweepEvery = 10_000

// Allow spends one request of key's budget if it has one.
func (m *Memory) Allow(_ context.Context, key string, l Limit) (Result, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls%sweepEvery == 0 {
		for k, t := range m.tat {
			if !t.After(now) {
				delete(m.tat, k)
			}
		}
	}
	res, newTAT := decide(m.tat[key], now, l)
	if res.Allowed {
		m.tat[key] = newTAT
	}
	return res, nil
}

// decide applies GCRA: with emission interval T = Period/Rate, a request is allowed when the key's theoretical
// arrival time, advanced by T, is no further ahead of now than the burst allowance Burst*T.
func decide(storedTAT, now time.Time, l Limit) (Result, time.Time) {
	if l.Rate <= 0 || l.Burst <= 0 || l.Period <= 0 {
		return Result{Allowed: false, Limit: 0}, storedTAT
	}
	interval := l.Period / time.Duration(l.Rate)
	burstOffset := interval * time.Duration(l.Burst)
	tat := storedTAT
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	allowAt := newTAT.Add(-burstOffset)
	if now.Before(allowAt) {
		return Result{
			Allowed:    false,
			Limit:      l.Burst,
			Remaining:  0,
			RetryAfter: allowAt.Sub(now),
			ResetAfter: tat.Sub(now),
		}, storedTAT
	}
	remaining := int(now.Sub(allowAt) / interval)
	return Result{
		Allowed:    true,
		Limit:      l.Burst,
		Remaining:  min(remaining, l.Burst-1),
		ResetAfter: newTAT.Sub(now),
	}, newTAT
}
