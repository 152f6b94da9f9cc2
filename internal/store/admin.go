package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"valuator/internal/admin"
	"valuator/internal/batch"
	"valuator/internal/billing"
	"valuator/internal/credit"
)

// The store implements admin.Store (the operators' console, issue 27).
var _ admin.Store = (*DB)(nil)

// auditRow is one row of the operators' audit log to write.
type auditRow struct {
	adminID, accountID int64 // 0: none (the command line; no account)
	action, reason     string
	before, after      map[string]any
	at                 time.Time
}

// insertAdminAudit appends a row to the operators' audit log in the caller's transaction, so that an action and
// its record are committed together or not at all. The table refuses UPDATE and DELETE (migration 00015).
func insertAdminAudit(ctx context.Context, x q, r auditRow) error {
	before, err := json.Marshal(orEmpty(r.before))
	if err != nil {
		return err
	}
	after, err := json.Marshal(orEmpty(r.after))
	if err != nil {
		return err
	}
	_, err = x.exec(ctx, `INSERT INTO admin_audit (admin_id, action, account_id, reason, before_state, after_state, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, nullID(r.adminID), r.action, nullID(r.accountID), r.reason, string(before),
		string(after), x.t(r.at))
	if err != nil {
		return fmt.Errorf("audit %s: %w", r.action, err)
	}
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// likePattern is a case-insensitive substring pattern for LIKE ... ESCAPE '\'.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// SearchAccounts finds accounts whose email, name or company contains q (lower case), newest first.
func (db *DB) SearchAccounts(ctx context.Context, qs string, offset, limit int64) ([]admin.AccountRow, int64, error) {
	x := db.q()
	where, args := "1 = 1", []any{}
	if qs != "" {
		p := likePattern(qs)
		where = `(LOWER(email) LIKE ? ESCAPE '\' OR LOWER(full_name) LIKE ? ESCAPE '\' OR LOWER(company) LIKE ? ESCAPE '\')`
		args = []any{p, p, p}
	}
	var total int64
	if err := x.row(ctx, `SELECT COUNT(*) FROM users WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT id, email, full_name, company, plan, credits, overage_limit_cents, suspended_at,
		closed_at, created_at FROM users WHERE `+where+` ORDER BY id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []admin.AccountRow{}
	for rows.Next() {
		var a admin.AccountRow
		var c admin.Credits
		var suspended, closed, created dbTime
		if err := rows.Scan(&a.ID, &a.Email, &a.FullName, &a.Company, &a.Plan, &c.Credits, &c.OverageLimitCents,
			&suspended, &closed, &created); err != nil {
			return nil, 0, err
		}
		c.Plan = a.Plan
		a.Balance = c.Balance()
		a.Status, a.CreatedAt = admin.StatusOf(suspended.ptr(), closed.ptr()), created.Time
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// adminAccount reads the account part of the console's detail and what its balance is computed from.
func adminAccount(ctx context.Context, x q, id int64) (admin.Account, admin.Credits, error) {
	var a admin.Account
	var c admin.Credits
	var suspended, closed, created dbTime
	var reason sql.NullString
	err := x.row(ctx, `SELECT id, email, full_name, company, plan, role, suspended_at, suspend_reason, created_at,
		closed_at, credits, overage_limit_cents FROM users WHERE id = ?`, id).
		Scan(&a.ID, &a.Email, &a.FullName, &a.Company, &a.Plan, &a.Role, &suspended, &reason, &created, &closed,
			&c.Credits, &c.OverageLimitCents)
	if errors.Is(err, sql.ErrNoRows) {
		return a, c, admin.ErrNotFound
	}
	if err != nil {
		return a, c, err
	}
	a.SuspendedAt, a.ClosedAt, a.CreatedAt = suspended.ptr(), closed.ptr(), created.Time
	if reason.Valid {
		a.SuspendReason = &reason.String
	}
	a.Status = admin.StatusOf(a.SuspendedAt, a.ClosedAt)
	c.Plan = a.Plan
	return a, c, nil
}

// AccountDetail is everything the console shows of one account.
func (db *DB) AccountDetail(ctx context.Context, id int64, monthStart time.Time) (admin.Detail, admin.Credits, error) {
	x := db.q()
	var d admin.Detail
	acct, c, err := adminAccount(ctx, x, id)
	if err != nil {
		return d, c, err
	}
	d.Account = acct
	d.Ledger, d.Payments, d.Keys, d.BatchJobs, d.PersonLookups = []admin.LedgerRow{}, []admin.Payment{}, []admin.Key{},
		[]admin.BatchJob{}, []admin.PersonLookup{}
	d.Usage.Recent = []admin.UsageCall{}

	each := func(query string, scan func(*sql.Rows) error, args ...any) error {
		rows, err := x.query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if err := each(`SELECT id, amount, balance_after, kind, description, reference, created_at FROM credit_ledger
		WHERE user_id = ? ORDER BY id DESC LIMIT 50`, func(r *sql.Rows) error {
		var l admin.LedgerRow
		var at dbTime
		if err := r.Scan(&l.ID, &l.Amount, &l.BalanceAfter, &l.Kind, &l.Description, &l.Reference, &at); err != nil {
			return err
		}
		l.CreatedAt = at.Time
		d.Ledger = append(d.Ledger, l)
		return nil
	}, id); err != nil {
		return d, c, err
	}
	if err := each(`SELECT `+paymentColumns+` FROM payments WHERE user_id = ? ORDER BY id DESC LIMIT 50`,
		func(r *sql.Rows) error {
			p, err := scanPayment(r)
			if err != nil {
				return err
			}
			d.Payments = append(d.Payments, admin.PaymentOf(p))
			return nil
		}, id); err != nil {
		return d, c, err
	}
	if err := each(`SELECT id, name, key_preview, created_at, last_used_at FROM api_keys
		WHERE user_id = ? AND deleted_at IS NULL ORDER BY id DESC`, func(r *sql.Rows) error {
		var k admin.Key
		var created, used dbTime
		if err := r.Scan(&k.ID, &k.Name, &k.Preview, &created, &used); err != nil {
			return err
		}
		k.CreatedAt, k.LastUsedAt = created.Time, used.ptr()
		d.Keys = append(d.Keys, k)
		return nil
	}, id); err != nil {
		return d, c, err
	}
	if err := x.row(ctx, `SELECT COUNT(*), COALESCE(SUM(credits_used), 0) FROM usage_records
		WHERE user_id = ? AND created_at >= ?`, id, x.t(monthStart)).
		Scan(&d.Usage.CallsThisMonth, &d.Usage.CreditsThisMonth); err != nil {
		return d, c, err
	}
	if err := each(`SELECT request_id, endpoint, response_status, credits_used, created_at FROM usage_records
		WHERE user_id = ? ORDER BY id DESC LIMIT 20`, func(r *sql.Rows) error {
		var u admin.UsageCall
		var at dbTime
		if err := r.Scan(&u.RequestID, &u.Endpoint, &u.Status, &u.Credits, &at); err != nil {
			return err
		}
		u.CreatedAt = at.Time
		d.Usage.Recent = append(d.Usage.Recent, u)
		return nil
	}, id); err != nil {
		return d, c, err
	}
	if err := each(`SELECT id, file_name, status, held_at, total, processed, failed, created_at FROM batch_jobs
		WHERE user_id = ? ORDER BY id DESC LIMIT 20`, func(r *sql.Rows) error {
		var j admin.BatchJob
		var held, at dbTime
		if err := r.Scan(&j.ID, &j.FileName, &j.Status, &held, &j.TotalRows, &j.ProcessedRows, &j.FailedRows, &at); err != nil {
			return err
		}
		j.Held, j.CreatedAt = held.Valid, at.Time
		d.BatchJobs = append(d.BatchJobs, j)
		return nil
	}, id); err != nil {
		return d, c, err
	}
	err = each(`SELECT id, purpose, outcome, credits, created_at FROM person_lookups
		WHERE user_id = ? ORDER BY id DESC LIMIT 20`, func(r *sql.Rows) error {
		var p admin.PersonLookup
		var at dbTime
		if err := r.Scan(&p.ID, &p.Purpose, &p.Outcome, &p.Credits, &at); err != nil {
			return err
		}
		p.Outcome, p.CreatedAt = admin.Outcome(p.Outcome), at.Time
		d.PersonLookups = append(d.PersonLookups, p)
		return nil
	}, id)
	return d, c, err
}

// openAccountForAction locks an account an action changes and reads it: ErrNotFound for no such account, a
// StateError for a closed one.
func openAccountForAction(ctx context.Context, x q, id int64) (admin.Account, admin.Credits, error) {
	if _, err := lockUser(ctx, x, id); errors.Is(err, sql.ErrNoRows) {
		return admin.Account{}, admin.Credits{}, admin.ErrNotFound
	} else if err != nil {
		return admin.Account{}, admin.Credits{}, err
	}
	a, c, err := adminAccount(ctx, x, id)
	if err == nil && a.ClosedAt != nil {
		err = &admin.StateError{Message: "This account is closed."}
	}
	return a, c, err
}

// AdjustCredits posts an operator's grant or deduction, with its audit row, in one transaction. The ledger row's
// reference is made here and unique: the account's row is locked, so the count of its adjustments is exact.
func (db *DB) AdjustCredits(ctx context.Context, a admin.Action, amount int64, description string) (credit.Entry, admin.Credits, error) {
	var e credit.Entry
	var c admin.Credits
	err := db.tx(ctx, func(x q) error {
		_, before, err := openAccountForAction(ctx, x, a.AccountID)
		if err != nil {
			return err
		}
		var n int64
		if err := x.row(ctx, `SELECT COUNT(*) FROM credit_ledger WHERE user_id = ? AND kind = ?`, a.AccountID,
			credit.KindAdminAdjustment).Scan(&n); err != nil {
			return err
		}
		floor := int64(noFloor)
		if amount < 0 {
			floor = 0
		}
		e, err = postCredit(ctx, x, credit.Entry{UserID: a.AccountID, Amount: amount, Kind: credit.KindAdminAdjustment,
			Description: description, Reference: fmt.Sprintf("admin:%d:%d", a.AccountID, n+1), CreatedAt: a.At}, floor)
		if errors.Is(err, errBelowFloor) {
			return admin.ErrBelowZero
		}
		if err != nil {
			return err
		}
		c = before
		c.Credits = e.BalanceAfter
		return insertAdminAudit(ctx, x, auditRow{adminID: a.AdminID, accountID: a.AccountID,
			action: admin.ActionCreditAdjustment, reason: a.Reason, at: a.At,
			before: map[string]any{"balance": before.Credits},
			after:  map[string]any{"balance": e.BalanceAfter, "amount": amount, "ledgerId": e.ID}})
	})
	return e, c, err
}

// Payment is one of the account's payments.
func (db *DB) AdminPayment(ctx context.Context, accountID, paymentID int64) (billing.PaymentRecord, error) {
	p, err := scanPayment(db.q().row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ? AND user_id = ?`,
		paymentID, accountID))
	if errors.Is(err, billing.ErrNotFound) || errors.Is(err, sql.ErrNoRows) {
		return p, admin.ErrPaymentNotFound
	}
	return p, err
}

// MarkRefunded applies the refund rule (paymentRefunded, as a provider's refund event does: the credits back and,
// for the payment of the current period, the plan ended) to a paid payment the provider has refunded in full, and
// audits it with the plan before and after, in one transaction.
func (db *DB) MarkRefunded(ctx context.Context, a admin.Action, paymentID int64) (billing.PaymentRecord, admin.Credits, error) {
	var p billing.PaymentRecord
	var c admin.Credits
	err := db.tx(ctx, func(x q) error {
		var before admin.Credits
		var err error
		if _, before, err = openAccountForAction(ctx, x, a.AccountID); err != nil {
			return err
		}
		p, err = scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ? AND user_id = ?`,
			paymentID, a.AccountID))
		if errors.Is(err, billing.ErrNotFound) || errors.Is(err, sql.ErrNoRows) {
			return admin.ErrPaymentNotFound
		}
		if err != nil {
			return err
		}
		if !admin.Refundable(p) {
			return &admin.StateError{Message: fmt.Sprintf("Payment #%d is %s, not paid: only a paid payment can be refunded.",
				p.ID, billing.StatusText(p.Status))}
		}
		var planBefore, planAfter string
		if err := x.row(ctx, `SELECT plan FROM users WHERE id = ?`, a.AccountID).Scan(&planBefore); err != nil {
			return err
		}
		userID, err := paymentRefunded(ctx, x, p.Provider, p.Ref, p.AmountCents, a.At)
		if err != nil {
			return err
		}
		if err := x.row(ctx, `SELECT plan FROM users WHERE id = ?`, a.AccountID).Scan(&planAfter); err != nil {
			return err
		}
		if userID != 0 {
			if _, err := closeDueOpen(ctx, x, userID, a.At); err != nil {
				return err
			}
		}
		if p, err = scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ?`, paymentID)); err != nil {
			return err
		}
		if _, c, err = adminAccount(ctx, x, a.AccountID); err != nil {
			return err
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: a.AdminID, accountID: a.AccountID, action: admin.ActionRefund,
			reason: a.Reason, at: a.At,
			before: map[string]any{"paymentId": p.ID, "status": billing.PaymentSucceeded, "balance": before.Credits,
				"plan": planBefore},
			after: map[string]any{"paymentId": p.ID, "status": p.Status, "balance": c.Credits, "amountCents": p.AmountCents,
				"plan": planAfter}})
	})
	return p, c, err
}

// Suspend suspends an open account and holds its waiting and running batch jobs; its data is kept.
func (db *DB) SuspendAccount(ctx context.Context, a admin.Action) (admin.Account, error) {
	var acct admin.Account
	err := db.tx(ctx, func(x q) error {
		before, _, err := openAccountForAction(ctx, x, a.AccountID)
		if err != nil {
			return err
		}
		if before.SuspendedAt != nil {
			return &admin.StateError{Message: "This account is already suspended."}
		}
		if _, err := x.exec(ctx, `UPDATE users SET suspended_at = ?, suspend_reason = ?, updated_at = ? WHERE id = ?`,
			x.t(a.At), a.Reason, x.t(a.At), a.AccountID); err != nil {
			return err
		}
		res, err := x.exec(ctx, `UPDATE batch_jobs SET held_at = ? WHERE user_id = ? AND status IN (?, ?) AND held_at IS NULL`,
			x.t(a.At), a.AccountID, batch.StatusPending, batch.StatusProcessing)
		if err != nil {
			return err
		}
		held, _ := res.RowsAffected()
		if acct, _, err = adminAccount(ctx, x, a.AccountID); err != nil {
			return err
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: a.AdminID, accountID: a.AccountID, action: admin.ActionSuspend,
			reason: a.Reason, at: a.At, before: map[string]any{"status": before.Status},
			after: map[string]any{"status": acct.Status, "heldJobs": held}})
	})
	return acct, err
}

// Reinstate lifts a suspension and queues the held batch jobs again, in one transaction.
func (db *DB) ReinstateAccount(ctx context.Context, a admin.Action, enqueue admin.Enqueue) (admin.Account, error) {
	var acct admin.Account
	err := db.tx(ctx, func(x q) error {
		before, _, err := openAccountForAction(ctx, x, a.AccountID)
		if err != nil {
			return err
		}
		if before.SuspendedAt == nil {
			return &admin.StateError{Message: "This account is not suspended."}
		}
		if _, err := x.exec(ctx, `UPDATE users SET suspended_at = NULL, suspend_reason = NULL, updated_at = ? WHERE id = ?`,
			x.t(a.At), a.AccountID); err != nil {
			return err
		}
		held, err := x.ids(ctx, `SELECT id FROM batch_jobs WHERE user_id = ? AND held_at IS NOT NULL ORDER BY id`, a.AccountID)
		if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE batch_jobs SET held_at = NULL WHERE user_id = ? AND held_at IS NOT NULL`,
			a.AccountID); err != nil {
			return err
		}
		for _, id := range held {
			if err := enqueue(ctx, x.tx, id); err != nil {
				return fmt.Errorf("queue held batch job %d: %w", id, err)
			}
		}
		if acct, _, err = adminAccount(ctx, x, a.AccountID); err != nil {
			return err
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: a.AdminID, accountID: a.AccountID, action: admin.ActionReinstate,
			reason: a.Reason, at: a.At, before: map[string]any{"status": before.Status},
			after: map[string]any{"status": acct.Status, "resumedJobs": len(held)}})
	})
	return acct, err
}

// Close closes an account as its owner's closing does (closeUser: email freed, sessions revoked, balance
// forfeited through the ledger), and audits it.
func (db *DB) CloseAccountByAdmin(ctx context.Context, a admin.Action) (admin.Account, error) {
	var acct admin.Account
	err := db.tx(ctx, func(x q) error {
		before, c, err := openAccountForAction(ctx, x, a.AccountID)
		if err != nil {
			return err
		}
		if err := closeUser(ctx, x, a.AccountID, a.At); err != nil {
			return err
		}
		var after admin.Credits
		if acct, after, err = adminAccount(ctx, x, a.AccountID); err != nil {
			return err
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: a.AdminID, accountID: a.AccountID, action: admin.ActionClose,
			reason: a.Reason, at: a.At, before: map[string]any{"status": before.Status, "balance": c.Credits},
			after: map[string]any{"status": acct.Status, "balance": after.Credits}})
	})
	return acct, err
}

// AuditLog is a page of the operators' audit log, newest first, of one account (0: every row).
func (db *DB) AdminAuditLog(ctx context.Context, accountID int64, offset, limit int64) ([]admin.AuditEntry, int64, error) {
	x := db.q()
	where, args := "1 = 1", []any{}
	if accountID != 0 {
		where, args = "a.account_id = ?", []any{accountID}
	}
	var total int64
	if err := x.row(ctx, `SELECT COUNT(*) FROM admin_audit a WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT a.id, a.admin_id, ad.email, a.action, a.account_id, ac.email, a.reason,
			a.before_state, a.after_state, a.created_at
		FROM admin_audit a LEFT JOIN users ad ON ad.id = a.admin_id LEFT JOIN users ac ON ac.id = a.account_id
		WHERE `+where+` ORDER BY a.id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []admin.AuditEntry{}
	for rows.Next() {
		var e admin.AuditEntry
		var adminID, accountID sql.NullInt64
		var adminEmail, accountEmail sql.NullString
		var before, after string
		var at dbTime
		if err := rows.Scan(&e.ID, &adminID, &adminEmail, &e.Action, &accountID, &accountEmail, &e.Reason, &before,
			&after, &at); err != nil {
			return nil, 0, err
		}
		if adminID.Valid {
			e.AdminID, e.AdminEmail = &adminID.Int64, &adminEmail.String
		}
		if accountID.Valid {
			e.AccountID, e.AccountEmail = &accountID.Int64, &accountEmail.String
		}
		e.Before, e.After, e.CreatedAt = json.RawMessage(before), json.RawMessage(after), at.Time
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// missesWithinHour counts the misses of p's account in the hour up to p (person.MissesPerHour's window). The
// hour back is computed by each database: SQLite's times are UTC text, PostgreSQL's timestamptz.
func missesWithinHour(x q) string {
	hourBefore := `strftime('%Y-%m-%dT%H:%M:%fZ', p.created_at, '-1 hour')`
	if x.d == Postgres {
		hourBefore = `p.created_at - INTERVAL '1 hour'`
	}
	return `(SELECT COUNT(*) FROM person_lookups m WHERE m.user_id = p.user_id AND m.outcome = 'not_found'
		AND m.created_at > ` + hourBefore + ` AND m.created_at <= p.created_at)`
}

// PersonAudits is a page of every account's person lookups matching f, newest first, each flagged when its
// account made more than admin.FlagMisses misses in the hour up to it.
func (db *DB) AdminPersonAudits(ctx context.Context, f admin.PersonAuditFilter, offset, limit int64) ([]admin.PersonAudit, int64, error) {
	x := db.q()
	where, args := []string{"1 = 1"}, []any{}
	if f.AccountID != 0 {
		where, args = append(where, "p.user_id = ?"), append(args, f.AccountID)
	}
	if f.Purpose != "" {
		where, args = append(where, "p.purpose = ?"), append(args, f.Purpose)
	}
	switch f.Outcome {
	case "hit":
		where = append(where, "p.outcome = 'found'")
	case "miss":
		where = append(where, "p.outcome <> 'found'")
	}
	if !f.From.IsZero() {
		where, args = append(where, "p.created_at >= ?"), append(args, x.t(f.From))
	}
	if !f.To.IsZero() {
		where, args = append(where, "p.created_at < ?"), append(args, x.t(f.To.AddDate(0, 0, 1)))
	}
	inner := `SELECT p.id, p.user_id, u.email, p.api_key_name, p.purpose, p.query, p.outcome, p.credits, p.request_id,
			p.created_at, ` + missesWithinHour(x) + ` AS misses
		FROM person_lookups p JOIN users u ON u.id = p.user_id WHERE ` + strings.Join(where, " AND ")
	outer := "1 = 1"
	if f.Flagged {
		outer = fmt.Sprintf("misses > %d", admin.FlagMisses)
	}
	var total int64
	if err := x.row(ctx, `SELECT COUNT(*) FROM (`+inner+`) t WHERE `+outer, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT * FROM (`+inner+`) t WHERE `+outer+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []admin.PersonAudit{}
	for rows.Next() {
		var a admin.PersonAudit
		var key sql.NullString
		var at dbTime
		var misses int64
		if err := rows.Scan(&a.ID, &a.AccountID, &a.AccountEmail, &key, &a.Purpose, &a.Query, &a.Result, &a.Credits,
			&a.RequestID, &at, &misses); err != nil {
			return nil, 0, err
		}
		if key.Valid {
			a.KeyName = &key.String
		}
		a.Outcome, a.CreatedAt, a.Flagged = admin.Outcome(a.Result), at.Time, misses > admin.FlagMisses
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// OptOuts is a page of the opt-out requests, newest first.
func (db *DB) AdminOptOuts(ctx context.Context, offset, limit int64) ([]admin.OptOut, int64, error) {
	x := db.q()
	var total int64
	if err := x.row(ctx, `SELECT COUNT(*) FROM person_optout_requests`).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT id, query, listing_id, outcome, created_at, expires_at, confirmed_at
		FROM person_optout_requests ORDER BY id DESC LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []admin.OptOut{}
	for rows.Next() {
		var o admin.OptOut
		var listing sql.NullString
		var at, expires, confirmed dbTime
		if err := rows.Scan(&o.ID, &o.Query, &listing, &o.Outcome, &at, &expires, &confirmed); err != nil {
			return nil, 0, err
		}
		if listing.Valid && listing.String != "" {
			o.ListingID = &listing.String
		}
		o.CreatedAt, o.ExpiresAt, o.ConfirmedAt = at.Time, expires.ptr(), confirmed.ptr()
		out = append(out, o)
	}
	return out, total, rows.Err()
}

// dayOf is the UTC day (YYYY-MM-DD) of a time column, in the dialect's terms: SQLite keeps times as UTC text
// that starts with the day; PostgreSQL converts its timestamptz to UTC first.
func dayOf(x q, column string) string {
	if x.d == Postgres {
		return `to_char(` + column + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
	}
	return `substr(` + column + `, 1, 10)`
}

// Overview counts the business from the database over [from, to].
func (db *DB) AdminOverview(ctx context.Context, from, to time.Time) (admin.OverviewData, error) {
	x := db.q()
	d := admin.OverviewData{PayingByPlan: map[string]int64{}, SignupsPerDay: map[string]int64{},
		CallsPerDay: map[string]int64{}, FailingJobs: []admin.FailingJob{}}
	counts := func(m map[string]int64, query string, args ...any) error {
		rows, err := x.query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				return err
			}
			m[k] = n
		}
		return rows.Err()
	}
	if err := counts(d.PayingByPlan, `SELECT plan, COUNT(*) FROM users WHERE closed_at IS NULL AND plan <> ?
		GROUP BY plan`, billing.Free); err != nil {
		return d, err
	}
	if err := counts(d.SignupsPerDay, `SELECT `+dayOf(x, "created_at")+` AS day, COUNT(*) FROM users
		WHERE created_at >= ? AND created_at <= ? GROUP BY `+dayOf(x, "created_at"), x.t(from), x.t(to)); err != nil {
		return d, err
	}
	if err := counts(d.CallsPerDay, `SELECT `+dayOf(x, "created_at")+` AS day, COUNT(*) FROM usage_records
		WHERE created_at >= ? AND created_at <= ? GROUP BY `+dayOf(x, "created_at"), x.t(from), x.t(to)); err != nil {
		return d, err
	}
	if err := x.row(ctx, `SELECT COALESCE(SUM(credits), 0) FROM payments WHERE status = ? AND created_at >= ?
		AND created_at <= ?`, billing.PaymentSucceeded, x.t(from), x.t(to)).Scan(&d.CreditsSold); err != nil {
		return d, err
	}
	if err := x.row(ctx, `SELECT COALESCE(SUM(credits_used), 0) FROM usage_records WHERE created_at >= ?
		AND created_at <= ?`, x.t(from), x.t(to)).Scan(&d.CreditsUsed); err != nil {
		return d, err
	}
	if err := x.row(ctx, `SELECT COALESCE(SUM(amount_cents), 0) FROM payments WHERE kind = ? AND status IN (?, ?)
		AND created_at >= ? AND created_at <= ?`, billing.KindOverage, billing.PaymentSucceeded, billing.PaymentInvoiced,
		x.t(from), x.t(to)).Scan(&d.OverageBilledCents); err != nil {
		return d, err
	}
	rows, err := x.query(ctx, `SELECT b.id, b.user_id, u.email, b.file_name, b.failed, b.status, b.created_at
		FROM batch_jobs b JOIN users u ON u.id = b.user_id
		WHERE b.created_at >= ? AND b.created_at <= ? AND (b.status = ? OR b.failed > 0)
		ORDER BY b.id DESC LIMIT ?`, x.t(from), x.t(to), batch.StatusFailed, admin.FailingJobsMax)
	if err != nil {
		return d, err
	}
	defer rows.Close()
	for rows.Next() {
		var j admin.FailingJob
		var at dbTime
		if err := rows.Scan(&j.ID, &j.AccountID, &j.AccountEmail, &j.FileName, &j.FailedRows, &j.Status, &at); err != nil {
			return d, err
		}
		j.CreatedAt = at.Time
		d.FailingJobs = append(d.FailingJobs, j)
	}
	return d, rows.Err()
}

// SetRole gives or takes the admin role (the command line), and audits it with no admin (admin_id NULL); an account
// that has the role already is left alone, unaudited (a row that changes nothing would only bury the ones that do).
func (db *DB) SetRole(ctx context.Context, emailKey, role string, at time.Time) (admin.RoleChange, error) {
	var c admin.RoleChange
	err := db.tx(ctx, func(x q) error {
		var id int64
		var before string
		var suspended dbTime
		err := x.row(ctx, `SELECT id, role, suspended_at FROM users WHERE email_key = ? AND closed_at IS NULL`,
			emailKey).Scan(&id, &before, &suspended)
		if errors.Is(err, sql.ErrNoRows) {
			return admin.ErrNotFound
		}
		if err != nil {
			return err
		}
		c = admin.RoleChange{Changed: before != role, Suspended: suspended.ptr() != nil}
		if !c.Changed {
			return nil
		}
		if _, err := x.exec(ctx, `UPDATE users SET role = ?, updated_at = ? WHERE id = ?`, role, x.t(at), id); err != nil {
			return err
		}
		action := admin.ActionRoleGrant
		if role != "admin" {
			action = admin.ActionRoleRevoke
		}
		return insertAdminAudit(ctx, x, auditRow{accountID: id, action: action, at: at,
			reason: admin.CommandLineReason, before: map[string]any{"role": before},
			after: map[string]any{"role": role}})
	})
	return c, err
}

// OpenAccountID is the id of the open account with this email key (admin.ErrNotFound).
func (db *DB) OpenAccountID(ctx context.Context, emailKey string) (int64, error) {
	var id int64
	err := db.q().row(ctx, `SELECT id FROM users WHERE email_key = ? AND closed_at IS NULL`, emailKey).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, admin.ErrNotFound
	}
	return id, err
}
