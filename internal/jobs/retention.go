package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"valuator/internal/account"
	"valuator/internal/store"
)

// The retention job erases closed accounts account.ErasureAfterYears after they were closed (the Privacy Policy's
// promise; docs/operations.md, "Data retention"). It is a River periodic job, so it runs on the elected leader
// only; and each account is erased in its own transaction guarded by "closed at or before the cutoff and not yet
// erased", so two runs at once (a leader change, a retry) erase each account once and the second changes nothing.

// RetentionInterval is how often the retention job looks for accounts due for erasure: an account is erased within
// a day of its two years.
const RetentionInterval = 24 * time.Hour

// Bounds of one run: accounts are read eraseBatch at a time (each erased in its own short transaction), and a run
// stops after eraseMaxPerRun, leaving the rest to the next run, so that no run holds much memory or runs past its
// timeout however many accounts are due at once.
const (
	eraseBatch       = 100
	eraseMaxPerRun   = 5000
	retentionTimeout = 10 * time.Minute
)

type retentionArgs struct{}

func (retentionArgs) Kind() string { return "account_retention" }

type retentionWorker struct {
	river.WorkerDefaults[retentionArgs]
	q *Queue
}

// Timeout lets a run of eraseMaxPerRun accounts finish: the queue's default fits a slice of a batch job.
func (w *retentionWorker) Timeout(*river.Job[retentionArgs]) time.Duration { return retentionTimeout }

// Work erases the accounts due at the queue's time.
func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[retentionArgs]) error {
	_, err := EraseClosedAccounts(ctx, w.q.cfg.Store, w.q.cfg.Now(), w.q.cfg.Logger)
	return err
}

// EraseClosedAccounts erases every account closed at least account.ErasureAfterYears before now (up to
// eraseMaxPerRun of them) and returns how many it erased. Running it again erases nothing more.
func EraseClosedAccounts(ctx context.Context, st *store.DB, now time.Time, log *slog.Logger) (int, error) {
	cutoff := account.ErasureCutoff(now)
	erased := 0
	for looked := 0; looked < eraseMaxPerRun; {
		ids, err := st.ClosedAccountsDue(ctx, cutoff, min(eraseBatch, eraseMaxPerRun-looked))
		if err != nil {
			return erased, err
		}
		for _, id := range ids {
			ok, err := st.EraseAccount(ctx, id, cutoff, now)
			if err != nil {
				return erased, err
			}
			if ok {
				erased++
			}
		}
		looked += len(ids)
		if len(ids) < eraseBatch {
			break
		}
	}
	if erased > 0 && log != nil {
		log.Info("erased closed accounts", "accounts", erased, "closed_before", cutoff)
	}
	return erased, nil
}
