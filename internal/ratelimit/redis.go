package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// KeyPrefix namespaces the limiter's keys, so that it can share a Redis database with other users. redis_rate
// puts its own "rate:" in front, so a key k is stored as "rate:valuator:rl:k". Each key holds one number (the
// theoretical arrival time) and expires once its budget is full again.
const KeyPrefix = "valuator:rl:"

// pingTimeout bounds how long NewRedis waits for the server to answer, so that a wrong address fails a start-up
// quickly rather than hanging it.
const pingTimeout = 5 * time.Second

// A rate-limit decision sits in front of every API request, so a Redis that does not answer (paused, partitioned,
// swapping) must cost a request a bounded, short time, not the client's default seconds. Each try of a command
// may take callTimeout to write and to read, a failed try is retried at most once (after a short backoff), and
// allowDeadline bounds the whole of Allow, retry included. Guard then stops asking a failing Redis at all.
const (
	callTimeout   = 100 * time.Millisecond
	allowDeadline = 250 * time.Millisecond
	maxRetries    = 1
)

// Redis is a Limiter whose state lives in Redis, so that every instance of the service spends from one budget per
// key. The algorithm is the same GCRA as Memory's, run by github.com/go-redis/redis_rate as a Lua script, which
// Redis executes atomically, and with Redis's clock, so that the instances' clocks need not agree.
type Redis struct {
	client  *redis.Client
	limiter *redis_rate.Limiter
	addr    string // host:port, for error messages; never the password.
}

// NewRedis connects to the Redis server at rawURL, of the form redis://[[user]:password@]host:port[/db] (or
// rediss:// for TLS, unix:///path/to/socket?db=N for a socket), and checks that it answers. Errors name the
// server's address but never the password.
func NewRedis(rawURL string) (*Redis, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		// url.Parse's errors quote the whole URL, password included, so only the cause is kept.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("ratelimit: invalid Redis URL (want redis://[:password@]host:port/db): %w", err)
	}
	opts.ReadTimeout, opts.WriteTimeout = callTimeout, callTimeout
	opts.PoolTimeout = callTimeout
	opts.MaxRetries = maxRetries
	opts.MinRetryBackoff, opts.MaxRetryBackoff = 5*time.Millisecond, 20*time.Millisecond
	// Dialling (TCP, TLS, AUTH) may take longer than one command, but a request's deadline still bounds it.
	opts.DialTimeout = time.Second
	opts.ContextTimeoutEnabled = true
	client := redis.NewClient(opts)
	r := &Redis{client: client, limiter: redis_rate.NewLimiter(client), addr: opts.Addr}

	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("ratelimit: cannot reach Redis at %s (database %d): %w", r.addr, opts.DB, err)
	}
	return r, nil
}

// Allow spends one request of key's budget if it has one. A limit with no rate, burst or period denies every
// request without asking Redis, as Memory does. An error means Redis could not be asked; the caller decides
// whether to let the request through (Guard does). Allow returns within allowDeadline, whatever Redis does.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	if l.Rate <= 0 || l.Burst <= 0 || l.Period <= 0 {
		return Result{Allowed: false, Limit: 0}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, allowDeadline)
	defer cancel()
	res, err := r.limiter.Allow(ctx, KeyPrefix+key, redis_rate.Limit{Rate: l.Rate, Burst: l.Burst, Period: l.Period})
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: Redis at %s: %w", r.addr, err)
	}
	return toResult(res, l), nil
}

// toResult converts redis_rate's answer to a Result with Memory's meaning. The script computes in floating-point
// seconds on a clock with microsecond resolution, so its durations can be off by some nanoseconds; they are kept
// within the bounds that Memory's never leave.
func toResult(res *redis_rate.Result, l Limit) Result {
	interval := l.Period / time.Duration(l.Rate)
	out := Result{
		Allowed:    res.Allowed > 0,
		Limit:      l.Burst,
		ResetAfter: min(max(res.ResetAfter, 0), interval*time.Duration(l.Burst)),
	}
	if !out.Allowed {
		// redis_rate reports -1 for "no need to wait", but a denied request always has to: at least the
		// clock's resolution, so that a caller never reads "denied, retry at once".
		out.RetryAfter = min(max(res.RetryAfter, time.Microsecond), interval)
		return out
	}
	out.Remaining = remaining(res, l)
	return out
}

// remaining is how many more requests the key may make right now. redis_rate's own Remaining is the script's
// floating-point count truncated to an integer by Redis. On a key whose budget is full, the float arithmetic
// (on Redis's clock, about 3e8 seconds since 2017, so in steps of about 6e-8 s) lands just below Burst-1 whenever
// the interval is not exact in binary, which truncates to Burst-2: with 100 requests a minute (0.6 s) a fresh key
// reports 98 left after its first request, every time. The script's ResetAfter (seconds, printed to 14
// significant digits) carries the same information, so the count is recomputed from it, forgiving up to a
// microsecond: that is the resolution of Redis's clock, so less than any time that Redis could have seen pass.
func remaining(res *redis_rate.Result, l Limit) int {
	interval := l.Period.Seconds() / float64(l.Rate)
	left := (float64(l.Burst)*interval - res.ResetAfter.Seconds() + 1e-6) / interval
	n := int(math.Floor(left))
	// Never report less than redis_rate did, and stay within what Memory can report.
	return min(max(n, res.Remaining, 0), l.Burst-1)
}

// Ping checks that Redis answers, for readiness checks.
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ratelimit: Redis at %s: %w", r.addr, err)
	}
	return nil
}

// Close closes the connections to Redis. Allow fails after it.
func (r *Redis) Close() error { return r.client.Close() }
