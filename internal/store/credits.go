package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"valuator/internal/credit"
)

// postCredit is the only code that changes a balance: it adds e.Amount to the user's credits (and positive
// amounts to total_credits_earned) and appends the ledger row with the balance after it, inside the caller's
// transaction. The UPDATE ... RETURNING takes the row lock first, so concurrent postings for one user serialise
// and every row's balance_after is exact.
func postCredit(ctx context.Context, x q, e credit.Entry) (credit.Entry, error) {
	earned := max(e.Amount, 0)
	err := x.row(ctx, `UPDATE users SET credits = credits + ?, total_credits_earned = total_credits_earned + ?
		WHERE id = ? RETURNING credits`, e.Amount, earned, e.UserID).Scan(&e.BalanceAfter)
	if errors.Is(err, sql.ErrNoRows) {
		return credit.Entry{}, fmt.Errorf("post credit: user %d does not exist", e.UserID)
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
	return e, nil
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
