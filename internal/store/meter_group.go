package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"valuator/internal/credit"
	"valuator/internal/usage"
)

// Group commit of charges. A charge (Meter) is a short transaction whose fixed costs (the statements' round
// trips, the commit, SQLite's one writer and its WAL write) outweigh its rows. Charges that arrive while another
// group is being written wait in a group and are then written by one of them, the leader, in one transaction with
// one statement per table for the whole group (charge). A refused debit is left out of the group alone; when a
// group's transaction fails, each of its charges is tried again on its own, so that one charge's failure never
// costs another its own. A group commits together or not at all, and a caller learns its result only after the
// commit.

// meterGroupMax bounds a group, so that a leader's own answer waits for at most this many charges.
const meterGroupMax = 64

type meterReq struct {
	ctx         context.Context
	rec         usage.Record
	cost        int64
	description string
	done        chan meterResult // the result, once the group it was in has committed (or failed)
	lead        chan struct{}    // closed when this request is handed the lead, to write the next group
}

type meterResult struct {
	balance int64
	err     error
}

type meterGroup struct {
	mu      sync.Mutex
	pending []*meterReq // waiting for a leader to take them into a group
	leading bool        // a leader is writing a group, or has been named to write the next
	largest int         // the largest group written so far (tests see that charges were grouped)
}

// meterGrouped is Meter: it writes a group itself when no one leads, and otherwise waits, either to be written in
// the leader's next group or to be handed the lead. One group is written at a time: SQLite has one writer, and
// on PostgreSQL several groups at once were slower (they wait on each other's account rows) in BenchmarkMeter
// and the load benchmark.
func (db *DB) meterGrouped(ctx context.Context, rec usage.Record, cost int64, description string) (int64, error) {
	req := &meterReq{ctx: ctx, rec: rec, cost: cost, description: description,
		done: make(chan meterResult, 1), lead: make(chan struct{})}
	g := &db.meters
	g.mu.Lock()
	if !g.leading {
		g.leading = true
		g.mu.Unlock()
	} else {
		g.pending = append(g.pending, req)
		g.mu.Unlock()
		// A charge in a group is never abandoned half-way: the wait is for a commit already under way.
		select {
		case r := <-req.done:
			return r.balance, r.err
		case <-req.lead: // taken out of pending and handed the lead
		}
	}
	// Let the charges already on their way (goroutines ready to run) join before the group is taken: under load
	// this makes groups several times larger; on an idle server nothing else is ready and it returns at once.
	runtime.Gosched()
	g.mu.Lock()
	n := min(len(g.pending), meterGroupMax-1)
	group := append([]*meterReq{req}, g.pending[:n]...)
	g.pending = g.pending[n:]
	g.largest = max(g.largest, len(group))
	g.mu.Unlock()

	func() {
		// Hand the lead to the first waiting charge, or give it up; deferred, so that a panic in the writing
		// does not leave every later charge waiting for a leader.
		defer func() {
			g.mu.Lock()
			if len(g.pending) > 0 {
				next := g.pending[0]
				g.pending = g.pending[1:]
				close(next.lead)
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

// writeMeterGroup writes a group of charges and gives each its result.
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
	// The statements run without the callers' contexts: a cancelled context interrupts the SQLite connection, which
	// would also cut short the other callers' charges. The deadline, shared by the retries below, keeps a stalled
	// database from holding every later charge behind this group for long.
	ctx, cancel := context.WithTimeout(context.Background(), meterTimeout)
	defer cancel()
	if err := db.chargeTx(ctx, group, results); err != nil {
		if len(group) == 1 {
			results[0] = meterResult{err: err}
		} else {
			for i := range group { // nothing of the group was written: each charge on its own
				results[i] = meterResult{}
				if err := db.chargeTx(ctx, group[i:i+1], results[i:i+1]); err != nil {
					results[i] = meterResult{err: err}
				}
			}
		}
	}
	for i, r := range group {
		r.done <- results[i]
	}
	delivered = true
}

// chargeTx writes charges in a transaction of their own.
func (db *DB) chargeTx(ctx context.Context, group []*meterReq, results []meterResult) error {
	return db.tx(ctx, func(x q) error { return charge(ctx, x, group, results) })
}

const meterTimeout = 30 * time.Second

// debited is what a charge needs to know of the account it debits.
type debited struct {
	plan    string
	limit   *int64 // overage limit in cents
	balance int64  // running, as the group's charges are decided in order
	total   int64  // debited by the group's charges so far
	period  dbTime // start of the billing period (the key of its alerts)
	closed  bool
}

// charge debits each charge's account and records its usage and ledger row, inside the caller's transaction, in a
// few statements for the whole group: it reads and locks the accounts, decides every charge in order in Go (a
// charge is refused when it would take the balance below the account's floor, the rule postCredit applies in its
// UPDATE), then writes one UPDATE per account, one INSERT of the usage records and one of the ledger rows. A
// refused charge gets *credit.ErrInsufficient in its result and writes nothing. The error is the transaction's:
// nothing of the group may then be committed.
func charge(ctx context.Context, x q, group []*meterReq, results []meterResult) error {
	accounts, ids, err := lockAccounts(ctx, x, group)
	if err != nil {
		return err
	}
	type debit struct {
		req           *meterReq
		before, after int64
		floor         int64
	}
	debits := make([]debit, 0, len(group))
	for i, r := range group {
		if err := r.ctx.Err(); err != nil { // a caller gone before its charge is written is not charged
			results[i].err = err
			continue
		}
		a := accounts[r.rec.UserID]
		switch {
		case a == nil:
			results[i].err = fmt.Errorf("meter: user %d does not exist", r.rec.UserID)
			continue
		case a.closed:
			results[i].err = fmt.Errorf("meter: account %d is closed", r.rec.UserID)
			continue
		}
		floor := credit.Floor(a.plan, a.limit)
		if !credit.Pays(a.balance, r.cost, floor) {
			results[i].err = &credit.ErrInsufficient{Balance: a.balance, Plan: a.plan, OverageLimitCents: a.limit}
			continue
		}
		debits = append(debits, debit{req: r, before: a.balance, after: a.balance - r.cost, floor: floor})
		a.balance -= r.cost
		a.total += r.cost
		results[i].balance = a.balance
	}
	if len(debits) == 0 {
		return nil
	}
	if err := debitAccounts(ctx, x, accounts, ids); err != nil {
		return err
	}

	// The usage records come first so that each ledger row can name its record: a ledger reference is made by the
	// server and unique, never the caller's X-Request-Id (which a client chooses and may repeat). Ids are handed
	// out in the order of the rows in one INSERT (SQLite's AUTOINCREMENT, PostgreSQL's sequence), ascending, so
	// the sorted ids match the debits in order.
	args := make([]any, 0, len(debits)*usageColumnCount)
	for _, d := range debits {
		rec := d.req.rec
		rec.CreditsUsed = d.req.cost
		args = append(args, usageArgs(x, rec)...)
	}
	rows, err := x.query(ctx, `INSERT INTO usage_records (`+usageColumns+`) VALUES `+
		placeholders(len(debits), usageColumnCount)+` RETURNING id`, args...)
	if err != nil {
		return fmt.Errorf("meter: insert usage: %w", err)
	}
	usageIDs := make([]int64, 0, len(debits))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		usageIDs = append(usageIDs, id)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(usageIDs) != len(debits) {
		return fmt.Errorf("meter: %d usage ids for %d records", len(usageIDs), len(debits))
	}
	slices.Sort(usageIDs)

	args = args[:0]
	for i, d := range debits {
		args = append(args, d.req.rec.UserID, -d.req.cost, d.after, d.req.rec.Service, d.req.description,
			fmt.Sprintf("usage:%d", usageIDs[i]), x.t(d.req.rec.CreatedAt))
	}
	if _, err := x.exec(ctx, `INSERT INTO credit_ledger (user_id, amount, balance_after, kind, description, reference,
		created_at) VALUES `+placeholders(len(debits), 7), args...); err != nil {
		return fmt.Errorf("meter: insert ledger rows: %w", err)
	}
	for _, d := range debits {
		a := accounts[d.req.rec.UserID]
		if err := queueAlerts(ctx, x, d.req.rec.UserID, d.before, d.after, d.floor, a.period, d.req.rec.CreatedAt); err != nil {
			return err
		}
	}
	return nil
}

// debitAccounts takes each account's total from its balance, in one statement for the group, and checks that
// the balances are the ones the charges were decided on (the rows are locked: anything else is a bug, and the
// transaction then writes nothing).
func debitAccounts(ctx context.Context, x q, accounts map[int64]*debited, ids []int64) error {
	var values []string
	var args []any
	for _, id := range ids {
		if a := accounts[id]; a != nil && a.total != 0 {
			values = append(values, "(CAST(? AS BIGINT), CAST(? AS BIGINT))")
			args = append(args, id, a.total)
		}
	}
	if len(values) == 0 {
		return nil
	}
	rows, err := x.query(ctx, `UPDATE users SET credits = credits - d.column2 FROM (VALUES `+strings.Join(values, ", ")+
		`) AS d WHERE users.id = d.column1 RETURNING users.id, users.credits`, args...)
	if err != nil {
		return fmt.Errorf("meter: debit accounts: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, balance int64
		if err := rows.Scan(&id, &balance); err != nil {
			return err
		}
		if a := accounts[id]; a == nil || balance != a.balance {
			return fmt.Errorf("meter: account %d has balance %d after the debit, not the one decided", id, balance)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n != len(values) {
		return fmt.Errorf("meter: %d of %d accounts debited", n, len(values))
	}
	return nil
}

// lockAccounts reads the accounts the group's charges debit, locking their rows (in id order, so that instances
// charging the same accounts at once never deadlock; SQLite's one writer already serialises), and returns them
// with their ids in that order.
func lockAccounts(ctx context.Context, x q, group []*meterReq) (map[int64]*debited, []int64, error) {
	ids := make([]int64, 0, len(group))
	for _, r := range group {
		ids = append(ids, r.rec.UserID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := x.query(ctx, `SELECT id, plan, overage_limit_cents, credits, period_start, closed_at FROM users
		WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+`) ORDER BY id`+forUpdate(x), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("meter: read accounts: %w", err)
	}
	defer rows.Close()
	accounts := make(map[int64]*debited, len(ids))
	for rows.Next() {
		var id int64
		var a debited
		var closed dbTime
		if err := rows.Scan(&id, &a.plan, &a.limit, &a.balance, &a.period, &closed); err != nil {
			return nil, nil, err
		}
		a.closed = closed.Valid
		accounts[id] = &a
	}
	return accounts, ids, rows.Err()
}

// errMeterAborted is the answer of the charges of a group whose writing panicked: none of them was written.
var errMeterAborted = errors.New("meter: the group of charges was aborted")
