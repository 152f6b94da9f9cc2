package jobs

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"valuator/internal/batch"
	"valuator/internal/valuation"
)

// slowValuer takes a fixed time a lookup, as a loaded machine does. The deadlines below are elapsed time, as a
// run's slice is (real seconds of work, not the business clock), so they read the wall clock.
type slowValuer struct{ each time.Duration }

func (v slowValuer) Lookup(ctx context.Context, in valuation.Input) (*valuation.Result, error) {
	time.Sleep(v.each)
	return &valuation.Result{}, nil
}

// A chunk stops at the slice's deadline, a prefix of its rows valued and the rest left pending, so that a slow
// machine never runs a chunk into the run's timeout (which fails the run and waits out River's retry delay).
func TestValueStopsAtTheDeadline(t *testing.T) {
	// Enough rows that every worker (one per core) cannot finish them by the deadline, on any machine.
	rows := make([]batch.StoredRow, max(250, 20*runtime.GOMAXPROCS(0)))
	for i := range rows {
		b, _ := json.Marshal(batch.Row{Line: i + 2, Address: "1 Main St", City: "Seattle", State: "WA", ZIP: "98103"})
		rows[i] = batch.StoredRow{Idx: i, Input: b}
	}
	w := &batchWorker{q: &Queue{cfg: Config{Valuer: slowValuer{each: 10 * time.Millisecond}}}}

	out, err := w.value(context.Background(), rows, time.Now().Add(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 || len(out) >= len(rows) {
		t.Fatalf("valued %d of %d rows by a deadline of 50 ms at 10 ms a row", len(out), len(rows))
	}
	for i, o := range out {
		if o.Idx != i || len(o.Result) == 0 {
			t.Fatalf("outcome %d is of row %d (%d bytes): want the rows in order, each answered", i, o.Idx, len(o.Result))
		}
	}

	// Past its deadline a run still values one row, so every run moves the job.
	out, err = w.value(context.Background(), rows, time.Now().Add(-time.Second))
	if err != nil || len(out) != 1 {
		t.Fatalf("past the deadline: %d rows, %v; want 1", len(out), err)
	}

	// With time to spare, the whole chunk.
	fast := &batchWorker{q: &Queue{cfg: Config{Valuer: slowValuer{}}}}
	if out, err := fast.value(context.Background(), rows, time.Now().Add(time.Minute)); err != nil || len(out) != len(rows) {
		t.Fatalf("%d of %d rows, %v", len(out), len(rows), err)
	}
}
