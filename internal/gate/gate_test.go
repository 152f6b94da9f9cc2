package gate

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGateBoundsConcurrency(t *testing.T) {
	g := New(3)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := g.Enter(context.Background(), time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			defer release()
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			running.Add(-1)
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 1 {
		t.Errorf("peak concurrency %d, want 1 to 3", p)
	}
	if g.InUse() != 0 {
		t.Errorf("%d slots still taken", g.InUse())
	}
}

func TestGateFullAnswersBusyOrContextError(t *testing.T) {
	g := New(1)
	release, err := g.Enter(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Enter(context.Background(), 0); !errors.Is(err, ErrBusy) {
		t.Errorf("no wait: err = %v, want ErrBusy", err)
	}
	if _, err := g.Enter(context.Background(), 5*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Errorf("short wait: err = %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Enter(ctx, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	// A slot given back is taken by a waiter.
	done := make(chan error, 1)
	go func() {
		r, err := g.Enter(context.Background(), time.Minute)
		if err == nil {
			r()
		}
		done <- err
	}()
	time.Sleep(5 * time.Millisecond)
	release()
	if err := <-done; err != nil {
		t.Errorf("waiter: %v", err)
	}
	if New(0).Size() != 1 {
		t.Errorf("New(0) has %d slots, want 1", New(0).Size())
	}
}
