package ratelimit

import (
	"context"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestMemoryAllowsBurstThenThrottles(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := NewMemory(clock.now)
	ctx := context.Background()
	limit := PerMinute(60) // one per second, burst 60

	for i := 0; i < 60; i++ {
		res, err := m.Allow(ctx, "key", limit)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Allowed {
			t.Fatalf("request %d denied within the burst", i+1)
		}
		if want := 60 - 1 - i; res.Remaining != want {
			t.Fatalf("request %d: Remaining = %d, want %d", i+1, res.Remaining, want)
		}
	}
	res, _ := m.Allow(ctx, "key", limit)
	if res.Allowed {
		t.Fatal("request 61 allowed, want denied")
	}
	if res.RetryAfter != time.Second {
		t.Errorf("RetryAfter = %v, want 1s", res.RetryAfter)
	}
	if res.ResetAfter != time.Minute {
		t.Errorf("ResetAfter = %v, want 1m", res.ResetAfter)
	}

	// Other keys have their own budget.
	if res, _ := m.Allow(ctx, "other", limit); !res.Allowed {
		t.Error("another key was denied")
	}

	// One interval later exactly one more request is allowed.
	clock.t = clock.t.Add(time.Second)
	if res, _ := m.Allow(ctx, "key", limit); !res.Allowed || res.Remaining != 0 {
		t.Errorf("after 1s: Allowed=%v Remaining=%d, want true 0", res.Allowed, res.Remaining)
	}
	if res, _ := m.Allow(ctx, "key", limit); res.Allowed {
		t.Error("second request after 1s allowed, want denied")
	}

	// A full period restores the whole burst.
	clock.t = clock.t.Add(time.Minute)
	if res, _ := m.Allow(ctx, "key", limit); !res.Allowed || res.Remaining != 59 {
		t.Errorf("after a minute: Allowed=%v Remaining=%d, want true 59", res.Allowed, res.Remaining)
	}
}

func TestMemoryZeroLimitDenies(t *testing.T) {
	m := NewMemory(nil)
	res, _ := m.Allow(context.Background(), "k", Limit{})
	if res.Allowed {
		t.Error("a zero limit allowed a request")
	}
}
