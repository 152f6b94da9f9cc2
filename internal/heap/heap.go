// Package heap keeps the process's memory near what it holds live (issue 39, "Memory bounded per home").
//
// Go's collector lets the heap grow to twice what is live before it collects (GOGC=100): right for a program whose
// live heap is small, wasteful for a server whose live heap is a market of millions of homes that changes only on a
// reload: at ten million homes a restarted server held 7.8 GiB resident with GOGC=100, and 4.7 GiB with this. So
// the headroom above the live heap is bounded instead: a quarter of it, at least 256 MiB (a lookup allocates a few
// hundred kilobytes; a batch chunk a few megabytes), which for a small market is GOGC=100 as before. And memory the
// heap held at a peak (a training holds two to three times what is served) is given back to the operating system
// once it is free, rather than kept for a peak that only comes again at the next training.
package heap

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// MinRoom is the least headroom above the live heap.
const MinRoom = 256 << 20

// Room is the headroom the heap may grow by beyond live bytes before the collector runs.
func Room(live uint64) uint64 { return max(MinRoom, live/4) }

// Percent is the GOGC percent that gives live bytes their Room: 100 (Go's default) for a live heap up to 256 MiB, a
// quarter above a gigabyte, never under 10 (a collection for every tenth of the heap allocated).
func Percent(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(min(100, max(10, Room(live)*100/live)))
}

// Release says whether free memory the heap keeps from the operating system should be given back: when it is more
// than twice the headroom the live heap needs (after a training or a reload), not the few megabytes between
// collections.
func Release(live, free uint64) bool { return free > 2*Room(live) }

// Tune sets the collector's percent from the live heap every interval until ctx ends, and gives memory back after a
// peak (at most once a minute: a release forces a full collection). An operator who sets GOGC keeps it: Tune then
// does nothing.
func Tune(ctx context.Context, every time.Duration, log *slog.Logger) {
	if os.Getenv("GOGC") != "" {
		log.Info("GOGC is set: the collector's percent is left as set", "GOGC", os.Getenv("GOGC"))
		return
	}
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	percent := 0 // not set yet: the first sample sets it
	var released time.Time
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		metrics.Read(samples)
		live, free := samples[0].Value.Uint64(), samples[1].Value.Uint64()
		if p := Percent(live); p != percent {
			debug.SetGCPercent(p)
			percent = p
		}
		if Release(live, free) && time.Since(released) > time.Minute {
			debug.FreeOSMemory()
			released = time.Now()
			log.Info("heap memory given back after a peak", "live_mib", live>>20, "free_mib", free>>20, "gc_percent", percent)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
