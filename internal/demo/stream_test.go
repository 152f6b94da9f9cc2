package demo

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"valuator/internal/property"
)

// EachRecordsN streams exactly GenerateN's records, field for field and with the same line numbers, on two
// fixed days (never the wall clock); the showcase home's resale comes out in its place.
func TestEachRecordsNIsGenerateN(t *testing.T) {
	days := []time.Time{testNow, time.Date(2028, 2, 29, 12, 0, 0, 0, time.UTC)}
	sizes := []int{3000, 30000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, day := range days {
		for _, n := range sizes {
			want := GenerateN(1, day, n).Records()
			got := 0
			err := EachRecordsN(1, day, n, 700, func(b []property.Record) error {
				if len(b) == 0 || len(b) > 700 {
					return fmt.Errorf("batch of %d", len(b))
				}
				for _, r := range b {
					if got >= len(want) {
						return fmt.Errorf("more than the %d records of GenerateN", len(want))
					}
					// Printed, as unknown numbers are NaN (never equal to themselves).
					if a, w := fmt.Sprintf("%+v", r), fmt.Sprintf("%+v", want[got]); a != w || r.Line != got+1 {
						return fmt.Errorf("record %d (line %d):\n got %s\nwant %s", got, r.Line, a, w)
					}
					got++
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s, %d homes: %v", day.Format(time.DateOnly), n, err)
			}
			if got != len(want) {
				t.Fatalf("%s, %d homes: %d records streamed, GenerateN has %d", day.Format(time.DateOnly), n, got, len(want))
			}
		}
	}
	// The first error stops the stream and is returned.
	stop := errors.New("stop")
	calls := 0
	if err := EachRecordsN(1, testNow, 3000, 10, func([]property.Record) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("EachRecordsN after an error: %v, %d calls", err, calls)
	}
}

// streamPeak streams n homes and returns the peak of the heap in use, over the heap in use before, sampled at
// every batch.
func streamPeak(t *testing.T, n int) (peak uint64, records int) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	err := EachRecordsN(1, testNow, n, 1000, func(b []property.Record) error {
		records += len(b)
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > before {
			peak = max(peak, ms.HeapInuse-before)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return peak, records
}

// EachRecordsN's memory grows with the homes of one ZIP code (its streets), not with the market: streaming
// 200,000 homes, which GenerateN would hold in about 300 MiB, peaks at about the heap of streaming 20,000
// (measured: 14.4 and 16.0 MiB over the heap before, most of it garbage not yet collected).
func TestEachRecordsNMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 220,000 homes")
	}
	small, _ := streamPeak(t, 20000)
	large, records := streamPeak(t, 200000)
	t.Logf("peak heap in use over the start: %.1f MiB streaming 20,000 homes, %.1f MiB streaming 200,000 (%d records)",
		float64(small)/(1<<20), float64(large)/(1<<20), records)
	if records < 200000 {
		t.Fatalf("%d records for 200,000 homes", records)
	}
	// Loose bounds, as the collector decides how much garbage the heap holds: a ZIP code of 200,000 homes has
	// about 3,600, and their streets take a few MiB more than those of 360.
	if large > 48<<20 || large > 2*small+16<<20 {
		t.Errorf("streaming 200,000 homes peaked at %.1f MiB of heap over the start (20,000: %.1f MiB), want under "+
			"48 MiB and under twice the smaller market's peak and 16 MiB", float64(large)/(1<<20), float64(small)/(1<<20))
	}
}
