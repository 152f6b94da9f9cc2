package valuation

import (
	"math"
	"testing"
	"time"

	"valuator/internal/avm"
)

// TestValueHistoryFollowsTheIndex: each month's value is today's carried by the index to the month's end, rounded as
// the estimate; the last is the estimate.
func TestValueHistoryFollowsTheIndex(t *testing.T) {
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	ix := &avm.Index{Start: start, MaxAhead: 12}
	for m := 0; m < 80; m++ {
		ix.Levels = append(ix.Levels, 0.01*float64(m)) // 1% a month
	}
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	h := valueHistory(ix, 812345, at)
	if len(h) != ValueHistoryMonths || h[0].Month != "2021-04" || h[59].Month != "2026-03" {
		t.Fatalf("months %v .. %v", h[0], h[59])
	}
	if h[59].Value != round(812345) {
		t.Errorf("last %d, want the estimate %d", h[59].Value, round(812345))
	}
	end := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).Add(-time.Second) // the end of February 2025
	if want := round(812345 * math.Exp(ix.At(end)-ix.At(at))); h[46].Month != "2025-02" || h[46].Value != want {
		t.Errorf("February 2025: %+v, want %d", h[46], want)
	}
	for i := 1; i < len(h); i++ {
		if h[i].Value < h[i-1].Value {
			t.Errorf("a rising index, a falling value: %v then %v", h[i-1], h[i])
		}
	}
}
