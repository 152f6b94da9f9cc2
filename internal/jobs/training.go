package jobs

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"valuator/internal/store"
	"valuator/internal/valuation"
)

// Training (issue 39): a partition of the market (a state's homes, or the whole market) whose engine is not saved
// is trained by a job, so that the `valuator worker` processes on one database train different partitions at
// once. A service that needs the engine (valuation.Service.TrainBy) queues the job and waits for the saved engine.

// Trainer trains a partition's engine and saves it (valuation.Service.TrainPart).
type Trainer interface {
	TrainPart(ctx context.Context, part valuation.Part) error
}

// TrainArgs is a training job: the partition, and the fingerprint of the records the service that queued it read
// (so that a partition whose records change is queued again, not folded into the older job).
type TrainArgs struct {
	Part        valuation.Part `json:"part"`
	Fingerprint string         `json:"fingerprint"`
}

func (TrainArgs) Kind() string { return "train_partition" }

// queueTraining runs one training a process at a time: a training uses every core of the machine, so a second one
// beside it would only slow both, and leaves the next partition to another worker.
const queueTraining = "training"

// EnqueueTraining queues the training of a partition's engine, once: a job for the same partition and records
// that is waiting or running is not queued twice (every instance that starts on a market without its engines
// queues them).
func (q *Queue) EnqueueTraining(ctx context.Context, part valuation.Part, fingerprint string) error {
	_, err := q.client.Insert(ctx, TrainArgs{Part: part, Fingerprint: fingerprint}, &river.InsertOpts{
		Queue: queueTraining,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{rivertype.JobStateAvailable,
			rivertype.JobStatePending, rivertype.JobStateRunning, rivertype.JobStateRetryable,
			rivertype.JobStateScheduled}},
	})
	return err
}

type trainWorker struct {
	river.WorkerDefaults[TrainArgs]
	q *Queue
}

// Timeout: a training takes minutes to an hour (a state of millions of homes); it ends when it is done.
func (w *trainWorker) Timeout(*river.Job[TrainArgs]) time.Duration { return -1 }

// Work trains the partition while holding its lock. River runs a job that has been running longer than its
// rescue delay again, possibly on another worker, while the first run still trains: that run finds the lock held
// and comes back later, by when the first has saved the engine (or died, releasing the lock).
func (w *trainWorker) Work(ctx context.Context, job *river.Job[TrainArgs]) error {
	started := time.Now()
	ran, err := w.q.cfg.Store.TryLock(ctx, trainLock(job.Args.Part), func() error {
		return w.q.cfg.Trainer.TrainPart(ctx, job.Args.Part)
	})
	if err != nil {
		return fmt.Errorf("training %s: %w", job.Args.Part, err)
	}
	if !ran {
		return river.JobSnooze(30 * time.Second)
	}
	w.q.cfg.Logger.Info("training job done", "part", job.Args.Part.String(), "seconds", time.Since(started).Seconds())
	return nil
}

// trainLock is the lock id of a partition's training.
func trainLock(p valuation.Part) int64 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%t|%s", p.Whole, p.State)
	return store.LockTrain + int64(h.Sum32()&0xffffff)
}
