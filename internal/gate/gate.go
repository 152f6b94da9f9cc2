// Package gate bounds how many costly operations (reading a spreadsheet, hashing a password) run at once in this
// process. Each costs a known amount of memory and CPU, so bounding their number bounds what a burst of requests
// can take from the server, whatever the requests hold; the requests past the bound wait their turn for a while,
// then are told to come back (the caller answers 429 with Retry-After).
package gate

import (
	"context"
	"errors"
	"time"
)

// ErrBusy says no slot freed within the wait.
var ErrBusy = errors.New("gate: every slot is taken")

// Gate is a counting semaphore. The zero value is not usable; use New.
type Gate struct {
	slots chan struct{}
}

// New returns a gate of n slots (at least 1).
func New(n int) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1))}
}

// Size is the number of slots.
func (g *Gate) Size() int { return cap(g.slots) }

// InUse is the number of slots taken now (for metrics and tests).
func (g *Gate) InUse() int { return len(g.slots) }

// Enter takes a slot, waiting up to wait for one to free. It returns the function that gives the slot back (call
// it exactly once), or ErrBusy when none freed in time, or ctx's error when ctx ended first (the client went away).
func (g *Gate) Enter(ctx context.Context, wait time.Duration) (release func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	default:
	}
	if wait <= 0 {
		return nil, ErrBusy
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	case <-t.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *Gate) release() { <-g.slots }
