package day

import (
	"testing"
	"time"
)

// Every day from before 1970 to far ahead reads back as the same midnight UTC, the form the store and the
// importers give dates.
func TestRoundTrip(t *testing.T) {
	for d := time.Date(1901, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2200; d = d.AddDate(0, 0, 1) {
		if got := Of(d).Time(); got != d {
			t.Fatalf("%s read back as %s", d, got)
		}
	}
}
