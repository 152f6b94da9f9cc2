package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"valuator/internal/billing"
	"valuator/internal/credit"
)

// noFloor lets a posting take the balance anywhere (grants, forfeits).
const noFloor = math.MinInt64

// errBelowFloor means a posting would have taken the balance below its floor; nothing was changed.
var errBelowFloor = errors.New("balance would fall below its floor")

// postCredit changes a balance (as charge in meter_group.go does for the charges of services): it adds e.Amount to
// the user's credits (and positive amounts to total_credits_earned) and appends the ledger row with the balance
// after it, inside the caller's transaction. The conditional UPDATE ... RETURNING takes the row lock first, so
// concurrent postings for one user serialise, every row's balance_after is exact, and a debit that would take the
// balance below floor changes nothing (errBelowFloor).
func postCredit(ctx context.Context, x q, e credit.Entry, floor int64) (credit.Entry, error) {
	earned := max(e.Amount, 0)
	var period dbTime
	err := x.row(ctx, `UPDATE users SET credits = credits + ?, total_credits_earned = total_credits_earned + ?
		WHERE id = ? AND credits + ? >= ? RETURNING credits, period_start`, e.Amount, earned, e.UserID, e.Amount, floor).
		Scan(&e.BalanceAfter, &period)
	if errors.Is(err, sql.ErrNoRows) {
		var exists int
		if err := x.row(ctx, `SELECT 1 FROM users WHERE id = ?`, e.UserID).Scan(&exists); err != nil {
			return credit.Entry{}, fmt.Errorf("post credit: user %d does not exist", e.UserID)
		}
		return credit.Entry{}, errBelowFloor
	}
	if err != nil {
		return credit.Entry{}, fmt.Errorf("post credit: %w", err)
	}
	err = x.row(ctx, `INSERT INTO credit_ledger (user_id, amount, balance_after, kind, description, reference, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.UserID, e.Amount, e.BalanceAfter, e.Kind, e.Description, e.Reference, x.t(e.CreatedAt)).Scan(&e.ID)
	if err != nil {
		return credit.Entry{}, fmt.Errorf("insert ledger row: %w", err)
	}
	if err := queueAlerts(ctx, x, e.UserID, e.BalanceAfter-e.Amount, e.BalanceAfter, floor, period, e.CreatedAt); err != nil {
		return credit.Entry{}, err
	}
	return e, nil
}

// queueAlerts queues the emails of the alert thresholds a debit from before to after crosses, in the caller's
// transaction, once per kind and period (billing_alerts is unique on them); the alert job sends them if the
// user's settings ask for it.
func queueAlerts(ctx context.Context, x q, userID, before, after, floor int64, period dbTime, at time.Time) error {
	for _, kind := range billing.CrossedAlerts(before, after, floor) {
		if _, err := x.exec(ctx, `INSERT INTO billing_alerts (user_id, kind, period_key, balance, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, userID, kind, fmt.Sprint(period.Time.Unix()), after,
			x.t(at)); err != nil {
			return fmt.Errorf("queue alert: %w", err)
		}
	}
	return nil
}

// Ledger returns a user's ledger rows, newest first, at most limit.
func (db *DB) Ledger(ctx context.Context, userID int64, limit int) ([]credit.Entry, error) {
	rows, err := db.q().query(ctx, `SELECT id, user_id, amount, balance_after, kind, description, reference, created_at
		FROM credit_ledger WHERE user_id = ? ORDER BY id DESC LIMIT ?`, userID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []credit.Entry
	for rows.Next() {
		var e credit.Entry
		var at dbTime
		if err := rows.Scan(&e.ID, &e.UserID, &e.Amount, &e.BalanceAfter, &e.Kind, &e.Description, &e.Reference, &at); err != nil {
			return nil, err
		}
		e.CreatedAt = at.Time
		out = append(out, e)
	}
	return out, rows.Err()
}

// Grant adds credits to an account through the ledger (plan credits, top-ups, corrections).
func (db *DB) Grant(ctx context.Context, userID, amount int64, kind, description, reference string, at time.Time) (int64, error) {
	var balance int64
	err := db.tx(ctx, func(x q) error {
		e, err := postCredit(ctx, x, credit.Entry{UserID: userID, Amount: amount, Kind: kind, Description: description,
			Reference: reference, CreatedAt: at}, noFloor)
		balance = e.BalanceAfter
		return err
	})
	return balance, err
}

// SetPlan changes an account's plan and overage limit (cents; nil: no limit).
func (db *DB) SetPlan(ctx context.Context, userID int64, plan string, overageLimitCents *int64, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE users SET plan = ?, overage_limit_cents = ?, updated_at = ? WHERE id = ? AND closed_at IS NULL`,
		plan, overageLimitCents, x.t(at), userID)
	return expectOne(res, err)
}

// CreditTerms returns what a charge to the user would be checked against: the balance, the plan and the overage
// limit (credit.Floor of the last two is the lowest balance allowed).
func (db *DB) CreditTerms(ctx context.Context, userID int64) (balance int64, plan string, overageLimitCents *int64, err error) {
	err = db.q().row(ctx, `SELECT credits, plan, overage_limit_cents FROM users WHERE id = ?`, userID).
		Scan(&balance, &plan, &overageLimitCents)
	return balance, plan, overageLimitCents, err
}
