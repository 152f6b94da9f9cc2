package store

import (
	"context"
	"errors"
	"sync"

	"valuator/internal/usage"
)

// Group commit of charges on SQLite. SQLite takes one writer at a time, and a charge (Meter) is a short
// transaction whose commit costs as much as its statements (the WAL write, the lock). Charges that arrive while
// another batch commits wait in a group and are then written by one of them, the leader, in one transaction:
// each in a savepoint of its own, so a refused debit (or any error) rolls back that charge alone, and every charge
// is still all-or-nothing with its usage record and ledger row. A group commits together or not at all; a caller
// learns its result only after the commit. PostgreSQL commits charges in parallel on its own connections and
// does not group.

// meterGroupMax bounds a group, so that a leader's own answer waits for at most this many charges.
const meterGroupMax = 64

type meterReq struct {
	ctx         context.Context
	rec         usage.Record
	cost        int64
	description string
	done        chan meterResult // the result, once the group it was in has committed (or failed)
	lead        chan struct{}    // closed when this request is to lead the next group
}

type meterResult struct {
	balance int64
	err     error
}

type meterGroup struct {
	mu      sync.Mutex
	pending []*meterReq
	leading bool // a leader is writing a group, or has been named to write the next
	largest int  // the largest group written so far (tests see that charges were grouped)
}

// meterGrouped is Meter on SQLite: it joins the pending group and either waits for a leader to write it or, when
// no one leads, writes the group itself.
func (db *DB) meterGrouped(ctx context.Context, rec usage.Record, cost int64, description string) (int64, error) {
	req := &meterReq{ctx: ctx, rec: rec, cost: cost, description: description,
		done: make(chan meterResult, 1), lead: make(chan struct{})}
	g := &db.meters
	g.mu.Lock()
	g.pending = append(g.pending, req)
	if g.leading {
		g.mu.Unlock()
		// A charge in a group is never abandoned half-way: the wait is for a commit already under way.
		select {
		case r := <-req.done:
			return r.balance, r.err
		case <-req.lead:
			g.mu.Lock()
		}
	}
	g.leading = true
	n := min(len(g.pending), meterGroupMax)
	group := g.pending[:n:n]
	g.pending = g.pending[n:]
	g.largest = max(g.largest, n)
	g.mu.Unlock()

	func() {
		// Hand the lead to the first waiting charge, or give it up; deferred, so that a panic in the writing does
		// not leave every later charge waiting for a leader.
		defer func() {
			g.mu.Lock()
			if len(g.pending) > 0 {
				close(g.pending[0].lead)
			} else {
				g.leading = false
			}
			g.mu.Unlock()
		}()
		db.writeMeterGroup(group)
	}()
	r := <-req.done
	return r.balance, r.err
}

// writeMeterGroup writes a group of charges and gives each its result. A lone charge is one plain transaction.
func (db *DB) writeMeterGroup(group []*meterReq) {
	results := make([]meterResult, len(group))
	delivered := false
	defer func() {
		if !delivered { // a panic: nobody may wait forever, and nothing of the group was committed
			for _, r := range group {
				r.done <- meterResult{err: errMeterAborted}
			}
		}
	}()
	var err error
	if len(group) == 1 {
		r := group[0]
		err = db.tx(r.ctx, func(x q) error {
			var err error
			results[0].balance, err = meter(r.ctx, x, r.rec, r.cost, r.description)
			return err
		})
		results[0].err = err
	} else {
		// The statements run without the callers' contexts: a cancelled context interrupts the SQLite connection,
		// which would also cut short another caller's charge. A caller gone before its turn is not charged.
		ctx := context.Background()
		err = db.tx(ctx, func(x q) error {
			for i, r := range group {
				res := &results[i]
				if res.err = r.ctx.Err(); res.err != nil {
					continue
				}
				if _, err := x.exec(ctx, `SAVEPOINT meter`); err != nil {
					return err
				}
				if res.balance, res.err = meter(ctx, x, r.rec, r.cost, r.description); res.err != nil {
					if _, err := x.exec(ctx, `ROLLBACK TO meter`); err != nil {
						return err
					}
				}
				if _, err := x.exec(ctx, `RELEASE meter`); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for i, r := range group {
		if err != nil && results[i].err == nil { // the transaction did not commit: nothing of it was written
			results[i] = meterResult{err: err}
		}
		r.done <- results[i]
	}
	delivered = true
}

// errMeterAborted is the answer of the charges of a group whose writing panicked: none of them was written.
var errMeterAborted = errors.New("meter: the group of charges was aborted")
