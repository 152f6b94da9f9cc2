// Package clock is the time a server runs on. In production that is the wall clock. In development and tests it
// may start at a chosen instant (VALUATOR_CLOCK) and then run at the wall clock's pace, so that what depends on
// the day (the demo market's history, billing periods, token expiry, the weekly reports) is the same on every
// day a test runs; a test moves it forward (Advance) instead of sleeping.
package clock

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Clock is a wall clock moved by a fixed offset, which only grows. The zero value is not usable; use Wall or
// Starting.
type Clock struct {
	offset atomic.Int64 // nanoseconds added to the wall clock
	set    bool         // started at a chosen instant: it may be advanced
}

// Wall is the wall clock itself.
func Wall() *Clock { return &Clock{} }

// Starting is a clock that reads start now and runs on at the wall clock's pace.
func Starting(start time.Time) *Clock {
	c := &Clock{set: true}
	c.offset.Store(int64(time.Until(start)))
	return c
}

// Now is the clock's time, in UTC.
func (c *Clock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load())).UTC()
}

// Settable reports whether the clock was started at a chosen instant, and so may be advanced.
func (c *Clock) Settable() bool { return c.set }

// Advance moves a settable clock forward by d (time passing in a test, without sleeping). A clock never goes
// back: a negative d, or any d on the wall clock, is refused.
func (c *Clock) Advance(d time.Duration) error {
	switch {
	case !c.set:
		return fmt.Errorf("the wall clock cannot be moved")
	case d < 0:
		return fmt.Errorf("a clock only moves forward, not by %s", d)
	}
	c.offset.Add(int64(d))
	return nil
}

// Parse reads a clock's start: a day (2026-11-28, at noon UTC, so that no time zone puts it on another day) or an
// RFC 3339 instant (2026-11-28T23:59:30Z).
func Parse(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Add(12 * time.Hour), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be a day such as 2026-11-28 or an instant such as 2026-11-28T09:30:00Z, got %q", s)
	}
	return t.UTC(), nil
}
