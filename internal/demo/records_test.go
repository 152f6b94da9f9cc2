package demo

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"valuator/internal/property"
)

// EachRecords streams exactly Records, in order and with the same line numbers, in batches of the asked size.
func TestEachRecordsStreamsRecords(t *testing.T) {
	m := GenerateN(3, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 400)
	want := m.Records()
	if len(want) < len(m.Homes) {
		t.Fatalf("%d records for %d homes", len(want), len(m.Homes))
	}
	var got []property.Record
	batches := 0
	err := m.EachRecords(64, func(b []property.Record) error {
		if len(b) == 0 || len(b) > 64 {
			t.Fatalf("batch of %d", len(b))
		}
		batches++
		got = append(got, b...) // copies: the batch is reused
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if batches != (len(want)+63)/64 {
		t.Errorf("%d batches for %d records", batches, len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("%d records streamed, Records() has %d", len(got), len(want))
	}
	for i, r := range got {
		// Printed, as unknown numbers are NaN (never equal to themselves).
		if a, b := fmt.Sprintf("%+v", r), fmt.Sprintf("%+v", want[i]); a != b || r.Line != i+1 {
			t.Fatalf("record %d (line %d):\n got %s\nwant %s", i, r.Line, a, b)
		}
	}
	// The first error stops the stream and is returned.
	stop := errors.New("stop")
	calls := 0
	if err := m.EachRecords(10, func([]property.Record) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("EachRecords after an error: %v, %d calls", err, calls)
	}
}
