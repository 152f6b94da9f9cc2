package jobs

import (
	"context"
	"encoding/json"
	"testing"

	"valuator/internal/batch"
	"valuator/internal/valuation"
)

// answerValuer answers every lookup at once.
type answerValuer struct{}

func (answerValuer) Lookup(ctx context.Context, in valuation.Input) (*valuation.Result, error) {
	return &valuation.Result{}, nil
}

// afterChecks is a slice that ends once it has been asked n times: time passing, simulated by the count of rows
// started, so that the test depends on neither the machine's speed nor the clock.
func afterChecks(n int) func() bool {
	asked := 0
	return func() bool {
		asked++
		return asked > n
	}
}

// A chunk stops where its slice ends, a prefix of its rows valued and the rest left pending, so that a slow machine
// never runs a chunk into the run's timeout (which fails the run and waits out River's retry delay).
func TestValueStopsAtTheDeadline(t *testing.T) {
	rows := make([]batch.StoredRow, 250)
	for i := range rows {
		b, _ := json.Marshal(batch.Row{Line: i + 2, Address: "1 Main St", City: "Seattle", State: "WA", ZIP: "98103"})
		rows[i] = batch.StoredRow{Idx: i, Input: b}
	}
	w := &batchWorker{q: &Queue{cfg: Config{Valuer: answerValuer{}}}}

	// The slice ends after the fifth row has started: the first row is started unasked, then four more.
	out, err := w.value(context.Background(), rows, afterChecks(4))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 5 {
		t.Fatalf("valued %d of %d rows in a slice that ended after 5", len(out), len(rows))
	}
	for i, o := range out {
		if o.Idx != i || len(o.Result) == 0 {
			t.Fatalf("outcome %d is of row %d (%d bytes): want the rows in order, each answered", i, o.Idx, len(o.Result))
		}
	}

	// With the slice already over, a run still values one row, so every run moves the job.
	out, err = w.value(context.Background(), rows, func() bool { return true })
	if err != nil || len(out) != 1 {
		t.Fatalf("past the slice's end: %d rows, %v; want 1", len(out), err)
	}

	// With time to spare, the whole chunk.
	if out, err := w.value(context.Background(), rows, func() bool { return false }); err != nil || len(out) != len(rows) {
		t.Fatalf("%d of %d rows, %v", len(out), len(rows), err)
	}
}
