package heap

import (
	"context"
	"log/slog"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib, gib = 1 << 20, 1 << 30
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},           // nothing measured yet: Go's default
		{10 * mib, 100},    // a small market: at most doubled, as before
		{256 * mib, 100},   // 256 MiB of room is GOGC=100 here
		{512 * mib, 50},    // still 256 MiB of room
		{1 * gib, 25},      // a quarter from a gigabyte on
		{4 * gib, 25},      // ten million homes: 1 GiB of room, not 4
		{100 * gib, 25},    // never less than a quarter
		{2*gib + 1, 24},    // rounding down: never more room than a quarter
		{768 * mib, 33},    // 256 MiB of 768
		{1536 * mib, 25},   // 384 MiB of 1536
		{3 * mib / 2, 100}, // never above Go's default
	} {
		if got := Percent(c.live); got != c.want {
			t.Errorf("Percent(%d MiB) = %d, want %d", c.live/mib, got, c.want)
		}
		if c.live > 0 {
			// The heap goal the percent gives is the live heap plus its room, within the percent's rounding.
			goal := c.live + c.live*uint64(Percent(c.live))/100
			if room := Room(c.live); goal > c.live+room || (Percent(c.live) < 100 && goal+c.live/50 < c.live+room) {
				t.Errorf("live %d MiB: goal %d MiB, want live plus %d MiB", c.live/mib, goal/mib, room/mib)
			}
		}
	}
}

func TestRelease(t *testing.T) {
	const gib = 1 << 30
	if Release(4*gib, 1*gib) {
		t.Error("1 GiB free beside 4 GiB live is the headroom between collections, not a peak to give back")
	}
	if !Release(4*gib, 5*gib) {
		t.Error("5 GiB free beside 4 GiB live (a training's peak) should be given back")
	}
	if Release(10<<20, 400<<20) {
		t.Error("a small heap keeps 512 MiB free before giving any back")
	}
}

// Tune sets the collector's percent from the heap (a test binary's few megabytes: Go's default) and stops with its
// context.
func TestTuneStops(t *testing.T) {
	prev := debug.SetGCPercent(77)
	defer debug.SetGCPercent(prev)
	t.Setenv("GOGC", "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Tune(ctx, time.Millisecond, slog.New(slog.DiscardHandler)); close(done) }()
	cancel()
	<-done
	if got := debug.SetGCPercent(prev); got != 100 {
		t.Errorf("GC percent after Tune = %d, want 100 for a small heap", got)
	}
}
