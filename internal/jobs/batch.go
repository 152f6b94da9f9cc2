package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/apperr"
	"valuator/internal/batch"
	"valuator/internal/store"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

type batchArgs struct {
	JobID int64 `json:"job_id"`
}

func (batchArgs) Kind() string { return "batch_valuation" }

type batchWorker struct {
	river.WorkerDefaults[batchArgs]
	q *Queue
}

// chunkSize rows are valued, then saved and charged in one transaction.
const chunkSize = 250

// Work runs a batch job for one slice of time: it values pending rows a chunk at a time and saves each chunk with
// its charge. When the slice is used up it hands over to the next run (JobSnooze(0)), so no run outlives the
// queue's rescue delay. It ends the job when no row is pending, or when credits run out.
func (w *batchWorker) Work(ctx context.Context, job *river.Job[batchArgs]) error {
	q := w.q
	id := job.Args.JobID
	log := q.cfg.Logger.With("batch_job", id)
	deadline := time.Now().Add(q.cfg.Slice)
	j, ok, err := q.cfg.Store.StartBatchJob(ctx, id, q.cfg.Now())
	if errors.Is(err, batch.ErrNoBatch) {
		return nil
	}
	if err != nil {
		return err
	}
	if !ok {
		return nil // cancelled or finished: nothing to do
	}
	err = w.run(ctx, j, deadline, true)
	switch {
	case errors.Is(err, errSliceDone):
		log.Debug("batch job continues in the next run")
		return river.JobSnooze(0)
	case apperr.IsKind(err, apperr.KindUnavailable):
		// The engine is still loading in this process: come back shortly, without spending an attempt.
		return river.JobSnooze(5 * time.Second)
	}
	return err
}

var errSliceDone = errors.New("slice used up")

// RunNow runs a pending batch job to its end in the calling goroutine, as the queue's runs do (the same chunks,
// charges, usage record and finish), with the times cfg.Now gives: the demo seeding uses it to leave a finished job
// of the past in the demo account. Only cfg.Store, cfg.Valuer, cfg.Logger and cfg.Now are used; a job with a
// webhook is refused, as there is no queue to send it.
func RunNow(ctx context.Context, cfg Config, jobID int64) error {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Valuer == nil {
		return errors.New("jobs: RunNow needs a valuer")
	}
	w := &batchWorker{q: &Queue{cfg: cfg}}
	j, err := cfg.Store.BatchJobForWorker(ctx, jobID)
	if err != nil {
		return err
	}
	if j.WebhookURL != "" {
		return fmt.Errorf("jobs: batch job %d has a webhook; RunNow has no queue to send it", jobID)
	}
	j, ok, err := cfg.Store.StartBatchJob(ctx, jobID, cfg.Now())
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("jobs: batch job %d is %s, not pending", jobID, j.Status)
	}
	// No slice to hand over at: the job runs to its end here.
	return w.run(ctx, j, time.Now().Add(24*time.Hour), false)
}

// MinTurn is how long a run keeps its worker before it hands over to another account's waiting job: long enough
// to value a few chunks, short enough that a customer's small job starts within seconds of its upload while
// another customer's large jobs hold every worker.
const MinTurn = time.Second

// run values the job's pending rows until none is left, the slice ends, the job stops (cancelled: a retry queues a
// run of its own), or, when it takes turns, after MinTurn a job of another account is waiting: the run then hands
// over, and its next run queues behind that job, so accounts take turns on the workers.
func (w *batchWorker) run(ctx context.Context, j batch.Job, deadline time.Time, takeTurns bool) error {
	q := w.q
	after := -1
	started := time.Now()
	// The slice is elapsed time (real seconds of work on this worker), not the business clock.
	// A stopping queue ends the slice too, so that a chunk being valued saves what it has and hands over.
	over := func() bool { return time.Now().After(deadline) || q.stopping.Load() }
	for {
		// The slice ends, or the process stops (Queue.Stop, or its context): the run hands over between chunks.
		if over() || ctx.Err() != nil {
			return errSliceDone
		}
		if takeTurns && time.Since(started) >= MinTurn {
			waiting, err := q.cfg.Store.OthersWaiting(ctx, j.UserID)
			if err != nil {
				return err
			}
			if waiting {
				return errSliceDone
			}
		}
		rows, err := q.cfg.Store.PendingBatchRows(ctx, j.ID, after, chunkSize)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		outcomes, err := w.value(ctx, rows, over)
		if err != nil {
			return err
		}
		after = rows[len(outcomes)-1].Idx
		res, err := q.cfg.Store.SaveBatchChunk(ctx, j.ID, outcomes, q.cfg.Now())
		if err != nil {
			return err
		}
		q.cfg.Metrics.BatchRows(res.Charged, res.Failed)
		q.cfg.Metrics.Credits(usage.ServiceBatch, int64(res.Charged))
		if res.Stopped {
			return nil
		}
		if res.OutOfCredits {
			cur, err := q.cfg.Store.BatchJobForWorker(ctx, j.ID)
			if err != nil {
				return err
			}
			left := cur.Total - cur.Processed
			msg := fmt.Sprintf("Out of credits after valuing %d of %d properties. Add credits, then retry the job to value the remaining %d.",
				cur.Successful, cur.Total, left)
			return w.finish(ctx, j, batch.StatusFailed, msg)
		}
	}
	return w.finish(ctx, j, batch.StatusCompleted, "")
}

func (w *batchWorker) finish(ctx context.Context, j batch.Job, status, msg string) error {
	q := w.q
	var enqueue batch.Enqueue
	if j.WebhookURL != "" {
		enqueue = q.enqueueWebhook
	}
	done, ok, err := q.cfg.Store.FinishBatchJob(ctx, j.ID, status, msg, q.cfg.Now(), enqueue)
	if err == nil && ok {
		q.cfg.Logger.Info("batch job finished", "batch_job", j.ID, "status", status, "valued", done.Successful,
			"failed", done.Failed, "total", done.Total, "credits", done.CreditsUsed)
	}
	return err
}

// value values rows in parallel, one goroutine per core (the engine is CPU-bound and safe for concurrent use), in
// order, and starts no row once over says the slice has ended (at least one is valued): it returns the outcomes of
// the rows it valued, a prefix of rows. On a loaded machine a whole chunk can outlast the run's timeout (three
// slices); cut off there, the run would fail and wait out River's growing retry delay, while the rows left here
// simply stay pending for the next run.
// A row that cannot be valued (bad address, not found) is an outcome; the engine not being ready is an error,
// and the job is tried again later.
func (w *batchWorker) value(ctx context.Context, rows []batch.StoredRow, over func() bool) ([]store.RowOutcome, error) {
	out := make([]store.RowOutcome, len(rows))
	errs := make([]error, len(rows))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(rows)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = w.valueRow(ctx, rows[i])
			}
		}()
	}
	n := 0
	for n < len(rows) && (n == 0 || !over()) {
		next <- n
		n++
	}
	close(next)
	wg.Wait()
	return out[:n], errors.Join(errs[:n]...)
}

func (w *batchWorker) valueRow(ctx context.Context, row batch.StoredRow) (store.RowOutcome, error) {
	var in batch.Row
	if err := json.Unmarshal(row.Input, &in); err != nil {
		return store.RowOutcome{}, fmt.Errorf("batch row %d: %w", row.Idx, err)
	}
	res := batch.Result{Line: in.Line, Address: in.Address, FullAddress: inputLine(in)}
	// A row is valued by the rules of a single lookup (Service.Lookup): a home not on record only from the facts
	// its columns give. Whatever the lookup refuses, the row records why, and it is not charged.
	var v *valuation.Result
	facts, err := in.Facts()
	if err == nil {
		v, err = w.q.cfg.Valuer.Lookup(ctx, valuation.Input{Address: in.Address, City: in.City, State: in.State,
			ZIP: in.ZIP, PropertyType: facts.PropertyType, SquareFeet: facts.SquareFeet, Bedrooms: facts.Bedrooms,
			Bathrooms: facts.Bathrooms, YearBuilt: facts.YearBuilt, LotSize: facts.LotSize, Brief: true})
	}
	if reason, refused := rowReason(err); refused {
		e, _ := apperr.As(err)
		res.Status, res.Reason, res.Error = batch.RowFailed, &reason, e.Message
	} else if err != nil {
		return store.RowOutcome{}, err
	} else {
		fill(&res, v)
	}
	b, err := json.Marshal(res)
	return store.RowOutcome{Idx: row.Idx, Success: res.Status == batch.RowSuccess, Result: b}, err
}

// rowReasons are the refusals of a lookup a row records (not charged), by error kind, with the reason it gives;
// any other error is the worker's own failure, and the row stays pending to be tried again.
var rowReasons = map[apperr.Kind]string{
	apperr.KindInvalid:       batch.ReasonInvalid,
	apperr.KindNotFound:      batch.ReasonNotFound,
	apperr.KindUnprocessable: batch.ReasonTooUncertain,
}

// rowReason is the reason a row records for a refused lookup: by the error's kind, for a 422 by its code (a fact
// outside the records, or a value too uncertain to sell), and for a 404 by its code (an address outside the markets
// loaded, or one not found).
func rowReason(err error) (string, bool) {
	if e, ok := apperr.As(err); ok {
		switch {
		case e.Kind == apperr.KindUnprocessable && e.Code == batch.ReasonOutsideRecords:
			return batch.ReasonOutsideRecords, true
		case e.Kind == apperr.KindNotFound && e.Code == valuation.CodeAreaNotCovered:
			return batch.ReasonAreaNotCovered, true
		}
	}
	reason, ok := rowReasons[kindOf(err)]
	return reason, ok
}

// kindOf is an error's kind (KindInternal for one that is not an apperr.Error, or nil).
func kindOf(err error) apperr.Kind {
	if e, ok := apperr.As(err); ok {
		return e.Kind
	}
	return apperr.KindInternal
}

// inputLine is the row's address as given, on one line.
func inputLine(in batch.Row) string {
	return valuation.Input{Address: in.Address, City: in.City, State: in.State, ZIP: in.ZIP}.Line()
}

// fill copies a valuation into a row's result.
func fill(r *batch.Result, v *valuation.Result) {
	r.Status = batch.RowSuccess
	r.Address = v.Property.Address
	r.FullAddress = v.Property.FormattedAddress
	r.MatchCode = v.Property.MatchCode
	r.EstimatedValue = ptr(v.Valuation.EstimatedValue)
	r.ValueLow, r.ValueHigh = ptr(v.Valuation.Low), ptr(v.Valuation.High)
	r.Confidence = ptr(v.Valuation.Confidence)
	r.ConfidenceLevel = ptr(v.Valuation.ConfidenceLevel)
	r.FSD, r.WithinTenPercent = ptr(v.Valuation.FSD), ptr(v.Valuation.WithinTenPercent)
	r.ValuationDate = ptr(v.Valuation.ValuationDate)
	if len(v.Valuation.Warnings) > 0 {
		r.Warning = ptr(strings.Join(v.Valuation.Warnings, " "))
	}
	r.IsDemo = ptr(v.Property.IsDemo)
	r.PricePerSqFt = v.Valuation.PricePerSqFt
	r.Bedrooms, r.Bathrooms = v.Details.Bedrooms, v.Details.Bathrooms
	r.SquareFeet, r.YearBuilt, r.LotSize = v.Details.SquareFeet, v.Details.YearBuilt, v.Details.LotSizeSqFt
	if v.Details.PropertyType != nil {
		r.PropertyType = *v.Details.PropertyType
	}
	if v.Details.ImageURL != nil {
		r.ImageURL = *v.Details.ImageURL
	}
	r.RentEstimate = v.MarketData.RentEstimate
}

func ptr[T any](v T) *T { return &v }
