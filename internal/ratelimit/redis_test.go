package ratelimit

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"valuator/internal/testredis"
)

// TestRedisSharedBudget checks the point of the Redis limiter: two of them (two instances of the service) on
// one server spend from one budget per key.
func TestRedisSharedBudget(t *testing.T) {
	u := testredis.URL(t)
	a, b := openRedis(t, u), openRedis(t, u)
	ctx := t.Context()
	lim := Limit{Rate: 10, Period: time.Hour, Burst: 10}
	for i := range lim.Burst {
		l := []*Redis{a, b}[i%2]
		res := allow(t, l, ctx, "key", lim)
		if !res.Allowed || res.Remaining != lim.Burst-1-i {
			t.Fatalf("request %d, alternating limiters: Allowed = %v, Remaining = %d; want true, %d",
				i+1, res.Allowed, res.Remaining, lim.Burst-1-i)
		}
	}
	for _, l := range []*Redis{a, b} {
		if res := allow(t, l, ctx, "key", lim); res.Allowed {
			t.Error("a limiter allowed a request beyond the shared burst")
		}
	}
}

// TestRedisKeys checks that the limiter's keys carry its namespace and expire once the budget is full again,
// so that Redis does not fill up with the keys of callers long gone.
func TestRedisKeys(t *testing.T) {
	u := testredis.URL(t)
	r := openRedis(t, u)
	ctx := t.Context()
	res := allow(t, r, ctx, "api-key-1", Limit{Rate: 10, Period: time.Minute, Burst: 10})

	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := "rate:" + KeyPrefix + "api-key-1"
	if len(keys) != 1 || keys[0] != want {
		t.Fatalf("keys after one request = %q, want [%q]", keys, want)
	}
	ttl, err := c.TTL(ctx, want).Result()
	if err != nil {
		t.Fatal(err)
	}
	// redis_rate sets the expiry to ResetAfter rounded up to whole seconds.
	if ttl <= 0 || ttl > res.ResetAfter.Truncate(time.Second)+time.Second {
		t.Errorf("TTL = %v, want in (0, %v rounded up to the second]", ttl, res.ResetAfter)
	}
}

// TestRedisZeroLimitSkipsRedis checks that a zero limit is decided without Redis: on a closed limiter it still
// denies without an error, while a real limit reports the error.
func TestRedisZeroLimitSkipsRedis(t *testing.T) {
	r := openRedis(t, testredis.URL(t))
	r.Close()
	res, err := r.Allow(t.Context(), "k", Limit{})
	if err != nil || res.Allowed {
		t.Errorf("zero limit on a closed limiter: Allowed = %v, err = %v; want false, nil", res.Allowed, err)
	}
	res, err = r.Allow(t.Context(), "k", PerMinute(10))
	if err == nil || res.Allowed {
		t.Errorf("real limit on a closed limiter: Allowed = %v, err = %v; want false and an error", res.Allowed, err)
	}
}

// TestNewRedisErrors checks that NewRedis fails with a message that names the server but never the password.
// It needs no Redis: nothing listens on the port it tries.
func TestNewRedisErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()

	tests := []struct {
		name, url, want string
	}{
		{"unreachable", fmt.Sprintf("redis://:s3cret@127.0.0.1:%d/0", closedPort),
			fmt.Sprintf("cannot reach Redis at 127.0.0.1:%d", closedPort)},
		{"wrong scheme", "http://:s3cret@127.0.0.1:6379/0", "invalid URL scheme"},
		{"bad database", "redis://:s3cret@127.0.0.1:6379/zero", "invalid database number"},
		{"unparsable", "redis://:s3cret@[::1/0", "invalid Redis URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r, err := NewRedis(tt.url)
			if err == nil {
				r.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the password", err)
			}
			if d := time.Since(start); d > pingTimeout+time.Second {
				t.Errorf("took %v, want at most the ping timeout %v", d, pingTimeout)
			}
		})
	}
}

func openRedis(t *testing.T, url string) *Redis {
	t.Helper()
	r, err := NewRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
