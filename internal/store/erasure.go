package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"valuator/internal/account"
	"valuator/internal/batch"
	"valuator/internal/credit"
)

// Erasure of closed accounts (account.ErasureAfterYears after closing; the retention job in internal/jobs runs it
// daily). What an erased account leaves behind, table by table. Every table with a user_id column must be named
// here: TestErasureCoversEveryTableWithAUserID fails for one that is not, so that a table added later cannot keep
// a closed account's personal data by oversight.
var erasureOfTable = map[string]string{
	"users":            "kept, anonymised: email a placeholder (account.ErasedEmail), name, company and password hash emptied, notifications off, erased_at set",
	"sessions":         "deleted (token hashes, browser and address)",
	"password_resets":  "deleted",
	"known_devices":    "deleted",
	"api_keys":         "kept for the records that name them, with the name, hash, sealed key and preview overwritten",
	"usage_records":    "kept for statistics and the ledger's references, without address, request data, client request id or key name",
	"person_lookups":   "kept (purpose, outcome, credits, time: the compliance audit), without the query, the person found, the client request id or key name",
	"batch_files":      "deleted (uploaded tables)",
	"batch_jobs":       "kept (counts and credits), without file name, file hash, mapping, message, webhook, idempotency key or key name; rows deleted",
	"contact_messages": "deleted (the account's, and those sent signed out from its address while it was open)",
	"mail_outbox":      "deleted (the account's, and those to or from its address while it was open)",
	"credit_ledger":    "kept (amount, kind, date, reference), the description replaced by its kind's name (credit.ErasedDescription)",
	"payments":         "kept (amounts, dates, status, descriptions: tax and accounting), without the payment method or client secret hash",
	"subscriptions":    "kept (plan, status, provider references), without the payment method and card",
	"test_cards":       "deleted (card brand and last four digits)",
	"billing_alerts":   "deleted",
	"welcome_grants":   "kept: the SHA-256 of the mailbox, so that it gets welcome credits once, ever (DESIGN.md section 5)",
	// Issue 27. The operators' audit log (admin_audit, no user_id column) is kept as it is, append-only: it names
	// accounts by id and reads their emails from users, so an erased account shows only its placeholder.
	"support_conversations": "deleted, with their messages (the account's support chats)",
	// Issue 40: the account's portfolios and everything in them (addresses, values, alerts). Their charges stay in
	// the ledger and the usage records, as every charge does.
	"portfolios": "deleted, with their homes, valuations and alerts",
}

// ClosedAccountsDue lists up to limit accounts closed at or before cutoff and not yet erased, in id order.
func (db *DB) ClosedAccountsDue(ctx context.Context, cutoff time.Time, limit int) ([]int64, error) {
	x := db.q()
	return x.ids(ctx, `SELECT id FROM users WHERE closed_at IS NOT NULL AND closed_at <= ? AND erased_at IS NULL
		ORDER BY id LIMIT ?`, x.t(cutoff), limit)
}

// EraseAccount erases the personal data of a closed account (see erasureOfTable) in one transaction, if it is still
// due: closed at or before cutoff and not erased yet. It reports whether it erased the account; false when the
// account is open, closed too recently, already erased (by another instance's run too: the guarded update of the
// user's row decides, and waits for a transaction erasing the same account) or does not exist.
func (db *DB) EraseAccount(ctx context.Context, id int64, cutoff, at time.Time) (bool, error) {
	erased := false
	err := db.tx(ctx, func(x q) error {
		var email string
		var closed dbTime
		err := x.row(ctx, `SELECT email, closed_at FROM users WHERE id = ? AND closed_at IS NOT NULL AND closed_at <= ?
			AND erased_at IS NULL`, id, x.t(cutoff)).Scan(&email, &closed)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		res, err := x.exec(ctx, `UPDATE users SET email = ?, email_key = NULL, password_hash = '', full_name = '',
				company = '', notify_email = ?, notify_usage = ?, notify_weekly = ?, notify_marketing = ?,
				erased_at = ?, updated_at = ?
			WHERE id = ? AND closed_at IS NOT NULL AND closed_at <= ? AND erased_at IS NULL`,
			account.ErasedEmail(id), false, false, false, false, x.t(at), x.t(at), id, x.t(cutoff))
		if err != nil {
			return fmt.Errorf("erase user %d: %w", id, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // erased meanwhile by another run
		}
		if err := eraseUserData(ctx, x, id, email, closed.Time, at); err != nil {
			return fmt.Errorf("erase user %d: %w", id, err)
		}
		erased = true
		return nil
	})
	return erased, err
}

// eraseUserData deletes or overwrites what the account's other rows hold of it (erasureOfTable). email is the
// account's address before erasure and closedAt when it was closed: messages sent signed out from that address
// while the account was open are the account holder's too.
func eraseUserData(ctx context.Context, x q, id int64, email string, closedAt, at time.Time) error {
	stmts := []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM sessions WHERE user_id = ?`, []any{id}},
		{`DELETE FROM password_resets WHERE user_id = ?`, []any{id}},
		{`DELETE FROM known_devices WHERE user_id = ?`, []any{id}},
		{`DELETE FROM batch_files WHERE user_id = ?`, []any{id}},
		{`DELETE FROM test_cards WHERE user_id = ?`, []any{id}},
		{`DELETE FROM billing_alerts WHERE user_id = ?`, []any{id}},
		{`DELETE FROM batch_rows WHERE job_id IN (SELECT id FROM batch_jobs WHERE user_id = ?)`, []any{id}},
		// A job still unfinished (a worker can find none two years on, but nothing may value rows that are gone).
		{`UPDATE batch_jobs SET status = ?, finished_at = ? WHERE user_id = ? AND status IN (?, ?)`,
			[]any{batch.StatusCancelled, x.t(at), id, batch.StatusPending, batch.StatusProcessing}},
		{`UPDATE batch_jobs SET file_name = '', file_sha256 = '', mapping = '{}', status_message = NULL, webhook_url = NULL,
			webhook_secret = NULL, idempotency_key = NULL, api_key_name = NULL, purged_at = COALESCE(purged_at, ?)
			WHERE user_id = ?`, []any{x.t(at), id}},
		{`UPDATE api_keys SET name = '', key_hash = 'erased:' || CAST(id AS TEXT), key_enc = ?, key_preview = '',
			deleted_at = COALESCE(deleted_at, ?) WHERE user_id = ?`, []any{[]byte{}, x.t(at), id}},
		{`UPDATE usage_records SET property_address = NULL, request_data = NULL, client_request_id = NULL,
			api_key_name = NULL WHERE user_id = ?`, []any{id}},
		{`UPDATE person_lookups SET query = '{}', result_id = '', client_request_id = NULL, api_key_name = NULL
			WHERE user_id = ?`, []any{id}},
		{`DELETE FROM support_messages WHERE conversation_id IN (SELECT id FROM support_conversations WHERE user_id = ?)`,
			[]any{id}},
		{`DELETE FROM support_conversations WHERE user_id = ?`, []any{id}},
		{`DELETE FROM portfolio_valuations WHERE home_id IN (SELECT h.id FROM portfolio_homes h
			JOIN portfolios p ON p.id = h.portfolio_id WHERE p.user_id = ?)`, []any{id}},
		{`DELETE FROM portfolio_homes WHERE portfolio_id IN (SELECT id FROM portfolios WHERE user_id = ?)`, []any{id}},
		{`DELETE FROM portfolio_alerts WHERE portfolio_id IN (SELECT id FROM portfolios WHERE user_id = ?)`, []any{id}},
		{`DELETE FROM portfolios WHERE user_id = ?`, []any{id}},
		{`DELETE FROM contact_messages WHERE user_id = ?
			OR (user_id IS NULL AND LOWER(email) = LOWER(?) AND created_at <= ?)`, []any{id, email, x.t(closedAt)}},
		{`DELETE FROM mail_outbox WHERE user_id = ?
			OR (user_id IS NULL AND (LOWER(recipient) = LOWER(?) OR LOWER(reply_to) = LOWER(?)) AND created_at <= ?)`,
			[]any{id, email, email, x.t(closedAt)}},
		{`UPDATE subscriptions SET payment_method_ref = '', card_brand = '', card_last4 = '', card_exp_month = 0,
			card_exp_year = 0 WHERE user_id = ?`, []any{id}},
		{`UPDATE payments SET payment_method_ref = '', secret_hash = NULL WHERE user_id = ?`, []any{id}},
	}
	for _, s := range stmts {
		if _, err := x.exec(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return eraseLedgerDescriptions(ctx, x, id)
}

// eraseLedgerDescriptions replaces the description of each of the account's ledger rows by its kind's name, the one
// change the ledger's append-only trigger allows, and only for an erased account (migration 00014).
func eraseLedgerDescriptions(ctx context.Context, x q, id int64) error {
	rows, err := x.query(ctx, `SELECT DISTINCT kind FROM credit_ledger WHERE user_id = ?`, id)
	if err != nil {
		return err
	}
	var kinds []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return err
		}
		kinds = append(kinds, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range kinds {
		d := credit.ErasedDescription(k)
		if _, err := x.exec(ctx, `UPDATE credit_ledger SET description = ? WHERE user_id = ? AND kind = ? AND description <> ?`,
			d, id, k, d); err != nil {
			return fmt.Errorf("ledger descriptions: %w", err)
		}
	}
	return nil
}
