package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// The circuit breaker's settings: after BreakerFailures consecutive failures of the shared limiter, Guard stops
// asking it for BreakerCooldown, then lets one request try it again.
const (
	BreakerFailures = 5
	BreakerCooldown = 5 * time.Second
)

// Guard puts a circuit breaker in front of a shared limiter (Redis) and answers from an in-process Memory limiter
// whenever the shared one cannot: while the breaker is open, and for each request whose call failed. So a failing
// Redis neither fails requests nor lets them all through: each instance applies the same limits on its own (a key
// may then make up to "number of instances" times its limit), and the shared budgets apply again once Redis
// answers. Guard never returns an error, and logs once when the breaker opens and once when it closes, never once
// per request.
type Guard struct {
	shared   Limiter
	fallback *Memory
	log      *slog.Logger
	now      func() time.Time

	mu        sync.Mutex
	failures  int       // consecutive failures of shared
	open      bool      // shared is not asked until openUntil
	openUntil time.Time // end of the current cool-down
	probing   bool      // one request is trying shared after a cool-down
}

// NewGuard guards shared, reading time from now (time.Now when nil) for the cool-down and the fallback limiter.
func NewGuard(shared Limiter, log *slog.Logger, now func() time.Time) *Guard {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Guard{shared: shared, fallback: NewMemory(now), log: log, now: now}
}

// Allow asks the shared limiter unless the breaker is open, and the in-process one when it is or the shared one
// failed.
func (g *Guard) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	g.mu.Lock()
	if g.open {
		if g.probing || g.now().Before(g.openUntil) {
			g.mu.Unlock()
			return g.fallback.Allow(ctx, key, l)
		}
		g.probing = true // this request tries the shared limiter; the others keep to the fallback meanwhile
	}
	g.mu.Unlock()

	res, err := g.shared.Allow(ctx, key, l)

	g.mu.Lock()
	defer g.mu.Unlock()
	wasProbe := g.open && g.probing
	if wasProbe {
		g.probing = false
	}
	if err == nil {
		g.failures = 0
		if g.open {
			g.open = false
			g.log.Info("rate limiter: Redis answers again; shared limits apply")
		}
		return res, nil
	}
	if ctx.Err() != nil && !wasProbe {
		// The request itself was cancelled or ran out of time: that says nothing about Redis.
		return g.fallbackLocked(ctx, key, l)
	}
	g.failures++
	switch {
	case g.open: // the probe failed: another cool-down, silently
		g.openUntil = g.now().Add(BreakerCooldown)
	case g.failures >= BreakerFailures:
		g.open, g.openUntil = true, g.now().Add(BreakerCooldown)
		g.log.Warn("rate limiter: Redis is failing; each instance applies the limits on its own until it answers",
			"consecutive_failures", g.failures, "retry_in", BreakerCooldown, "err", err)
	}
	return g.fallbackLocked(ctx, key, l)
}

// fallbackLocked asks the in-process limiter (which has its own lock) while g.mu is held.
func (g *Guard) fallbackLocked(ctx context.Context, key string, l Limit) (Result, error) {
	return g.fallback.Allow(ctx, key, l)
}

// Open reports whether the breaker is open (the shared limiter is not being asked).
func (g *Guard) Open() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}
