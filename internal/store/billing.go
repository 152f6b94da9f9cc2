package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"valuator/internal/billing"
	"valuator/internal/credit"
	"valuator/internal/notify"
)

// The store implements billing.Store.
var _ billing.Store = (*DB)(nil)

// forUpdate is the row lock of a locking read: PostgreSQL takes it; SQLite's single writer connection already
// serialises every write transaction.
func forUpdate(x q) string {
	if x.d == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// billingState reads an account's billing state (locking its row inside a write transaction), and the time its
// periods are anchored at.
func billingState(ctx context.Context, x q, userID int64, lock bool) (billing.State, time.Time, error) {
	var st billing.State
	var anchor, start, end, created, closed dbTime
	l := ""
	if lock {
		l = forUpdate(x)
	}
	err := x.row(ctx, `SELECT id, email, full_name, plan, credits, overage_limit_cents, period_anchor, period_start,
		period_end, carried_credits, created_at, closed_at FROM users WHERE id = ?`+l, userID).
		Scan(&st.UserID, &st.Email, &st.FullName, &st.Plan, &st.Balance, &st.OverageLimitCents, &anchor, &start, &end,
			&st.CarriedCredits, &created, &closed)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && closed.Valid) {
		return st, time.Time{}, billing.ErrNotFound
	}
	if err != nil {
		return st, time.Time{}, err
	}
	st.Period = billing.Period{Start: start.Time, End: end.Time}
	if !anchor.Valid {
		anchor = created
	}
	var sub billing.Sub
	var pending sql.NullString
	err = x.row(ctx, `SELECT plan, status, pending_plan, cancel_at_period_end, provider, customer_ref, subscription_ref,
		payment_method_ref, card_brand, card_last4, card_exp_month, card_exp_year FROM subscriptions WHERE user_id = ?`, userID).
		Scan(&sub.Plan, &sub.Status, &pending, &sub.CancelAtPeriodEnd, &sub.Provider, &sub.CustomerRef, &sub.SubscriptionRef,
			&sub.PaymentMethodRef, &sub.Card.Brand, &sub.Card.Last4, &sub.Card.ExpMonth, &sub.Card.ExpYear)
	switch {
	case err == nil:
		sub.PendingPlan = pending.String
		st.Sub = &sub
	case !errors.Is(err, sql.ErrNoRows):
		return st, time.Time{}, err
	}
	if start.Valid {
		if st.SpentThisPeriod, err = spentBetween(ctx, x, userID, start.Time, end.Time); err != nil {
			return st, time.Time{}, err
		}
	}
	if err := x.row(ctx, `SELECT COALESCE(MAX(id), 0) FROM payments WHERE user_id = ? AND status IN (?, ?)`, userID,
		billing.PaymentSucceeded, billing.PaymentRefunded).Scan(&st.LastSettledPayment); err != nil {
		return st, time.Time{}, err
	}
	return st, anchor.Time, nil
}

// spentBetween is the credits services consumed in [from, to): every debit except the billing's own (expiry,
// forfeit, refund).
func spentBetween(ctx context.Context, x q, userID int64, from, to time.Time) (int64, error) {
	var n int64
	err := x.row(ctx, `SELECT CAST(COALESCE(SUM(-amount), 0) AS BIGINT) FROM credit_ledger WHERE user_id = ? AND amount < 0
		AND kind NOT IN (?, ?, ?) AND created_at >= ? AND created_at < ?`,
		userID, credit.KindExpiry, credit.KindForfeit, credit.KindRefund, x.t(from), x.t(to)).Scan(&n)
	return n, err
}

// BillingState is an account's plan, balance, period and subscription.
func (db *DB) BillingState(ctx context.Context, userID int64, _ time.Time) (billing.State, error) {
	st, _, err := billingState(ctx, db.q(), userID, false)
	return st, err
}

// SetOverageLimit saves a user's overage limit in cents (nil: no limit).
func (db *DB) SetOverageLimit(ctx context.Context, userID int64, cents *int64, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE users SET overage_limit_cents = ?, updated_at = ? WHERE id = ? AND closed_at IS NULL`,
		cents, x.t(at), userID)
	return expectOne(res, err)
}

const paymentColumns = `id, user_id, provider, ref, kind, plan, from_plan, amount_cents, credits, status, description,
	failure_message, period_start, period_end, dedupe_key, created_at, payment_method_ref, parent_ref, open_for,
	expires_at, priced_state, awaiting`

func scanPayment(sc interface{ Scan(...any) error }) (billing.PaymentRecord, error) {
	var p billing.PaymentRecord
	var ref, dedupe sql.NullString
	var openFor sql.NullInt64
	var start, end, created, expires dbTime
	err := sc.Scan(&p.ID, &p.UserID, &p.Provider, &ref, &p.Kind, &p.Plan, &p.FromPlan, &p.AmountCents, &p.Credits,
		&p.Status, &p.Description, &p.FailureMessage, &start, &end, &dedupe, &created, &p.PaymentMethodRef, &p.Parent,
		&openFor, &expires, &p.PricedState, &p.Awaiting)
	if errors.Is(err, sql.ErrNoRows) {
		return p, billing.ErrNotFound
	}
	p.Ref, p.DedupeKey = ref.String, dedupe.String
	p.Period = billing.Period{Start: start.Time, End: end.Time}
	p.CreatedAt, p.ExpiresAt, p.Open = created.Time, expires.Time, openFor.Valid
	return p, err
}

// nullable is s, or NULL when empty (unique columns where many rows have none).
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullTime is t, or NULL when zero.
func nullTime(x q, t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return x.t(t)
}

func insertPayment(ctx context.Context, x q, p billing.PaymentRecord) (int64, error) {
	var id int64
	var openFor any
	if p.Open {
		openFor = p.UserID
	}
	err := x.row(ctx, `INSERT INTO payments (user_id, provider, ref, kind, plan, from_plan, amount_cents, credits, status,
		description, failure_message, period_start, period_end, dedupe_key, created_at, updated_at, payment_method_ref,
		parent_ref, open_for, expires_at, priced_state, awaiting)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		p.UserID, p.Provider, nullable(p.Ref), p.Kind, p.Plan, p.FromPlan, p.AmountCents, p.Credits, p.Status,
		p.Description, p.FailureMessage, nullTime(x, p.Period.Start), nullTime(x, p.Period.End), nullable(p.DedupeKey),
		x.t(p.CreatedAt), x.t(p.CreatedAt), p.PaymentMethodRef, p.Parent, openFor, nullTime(x, p.ExpiresAt),
		p.PricedState, p.Awaiting).Scan(&id)
	return id, err
}

// openPaymentOf is the account's open payment, locked (nil for none).
func openPaymentOf(ctx context.Context, x q, userID int64) (*billing.PaymentRecord, error) {
	p, err := scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE open_for = ?`+forUpdate(x), userID))
	if errors.Is(err, billing.ErrNotFound) {
		return nil, nil
	}
	return &p, err
}

// closeOpen closes an open payment as c says; a closing without a message keeps the payment's own.
func closeOpen(ctx context.Context, x q, p *billing.PaymentRecord, c billing.Closing, now time.Time) error {
	msg := c.Message
	if msg == "" {
		msg = p.FailureMessage
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = ?, open_for = NULL, awaiting = '',
		provider_action = ?, updated_at = ? WHERE id = ?`, c.Status, msg, c.Action, x.t(now), p.ID); err != nil {
		return err
	}
	p.Status, p.FailureMessage, p.Open, p.Awaiting = c.Status, msg, false, ""
	return nil
}

// closeDueOpen closes the account's open payment if it is due (billing.PaymentRecord.Due against the account as it
// is now, inside the caller's transaction), and answers the payment that is still open, if any. Every transaction
// that changes what a payment is priced against ends with it, so a payment never outlives the state it was for.
func closeDueOpen(ctx context.Context, x q, userID int64, now time.Time) (*billing.PaymentRecord, error) {
	open, err := openPaymentOf(ctx, x, userID)
	if err != nil || open == nil {
		return nil, err
	}
	st, _, err := billingState(ctx, x, userID, false)
	if errors.Is(err, billing.ErrNotFound) {
		// A closed account pays nothing more.
		return nil, closeOpen(ctx, x, open, billing.CloseWithdrawn(*open), now)
	}
	if err != nil {
		return nil, err
	}
	if c, due := open.Due(st.PricedState(), now); due {
		return nil, closeOpen(ctx, x, open, c, now)
	}
	return open, nil
}

// OpenPayment starts a payment the customer asked for, in one transaction under the account's row lock: the
// account's open payment is first closed if it is due, then decide (the billing rules) sees the locked state and
// the open payment and answers the payment to open, or nil to answer the open one again. A new payment closes the
// open one first (superseded). Parallel requests therefore open one payment between them.
func (db *DB) OpenPayment(ctx context.Context, userID int64, now time.Time,
	decide func(st billing.State, open *billing.PaymentRecord) (*billing.PaymentRecord, error)) (billing.Opening, error) {
	var out billing.Opening
	err := db.tx(ctx, func(x q) error {
		out = billing.Opening{}
		st, _, err := billingState(ctx, x, userID, true)
		if err != nil {
			return err
		}
		open, err := closeDueOpen(ctx, x, userID, now)
		if err != nil {
			return err
		}
		p, err := decide(st, open)
		if err != nil {
			return err
		}
		out.State = st
		if p == nil {
			if open == nil {
				return errors.New("open payment: decide reused a payment that is not there")
			}
			out.Payment = *open
			return nil
		}
		if open != nil {
			if err := closeOpen(ctx, x, open, billing.CloseSuperseded(*open), now); err != nil {
				return err
			}
		}
		p.UserID, p.Open, p.PricedState, p.CreatedAt = userID, true, st.PricedState(), now
		if p.ExpiresAt.IsZero() {
			p.ExpiresAt = now.Add(billing.PaymentTTL)
		}
		if p.Status == "" {
			p.Status = billing.PaymentPending
		}
		if p.Awaiting == "" {
			p.Awaiting = billing.AwaitProcessing
		}
		if p.ID, err = insertPayment(ctx, x, *p); err != nil {
			return err
		}
		out.Payment, out.Created = *p, true
		return nil
	})
	return out, err
}

// RecordAttempt records what the provider answered for an open payment: its reference (and a test-mode secret's
// hash), amount, what it waits for now, and a decline. A payment that closed meanwhile (withdrawn by the customer
// in another tab) keeps its closing; the provider action it owes stays queued.
func (db *DB) RecordAttempt(ctx context.Context, paymentID int64, a billing.Attempt, now time.Time) (billing.PaymentRecord, error) {
	var p billing.PaymentRecord
	err := db.tx(ctx, func(x q) error {
		res, err := x.exec(ctx, `UPDATE payments SET ref = COALESCE(?, ref), secret_hash = COALESCE(?, secret_hash),
			parent_ref = COALESCE(?, parent_ref), payment_method_ref = COALESCE(?, payment_method_ref), amount_cents = ?,
			awaiting = ?, status = ?, failure_message = ?, updated_at = ? WHERE id = ? AND open_for IS NOT NULL`,
			nullable(a.Ref), nullable(a.SecretHash), nullable(a.Parent), nullable(a.PaymentMethodRef), a.AmountCents,
			a.Awaiting, a.Status, a.Message, x.t(now), paymentID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// Closed meanwhile: remember what the provider made, so that the queued cancel reaches it.
			if _, err := x.exec(ctx, `UPDATE payments SET ref = COALESCE(ref, ?), parent_ref = COALESCE(?, parent_ref),
				provider_action = CASE WHEN status IN (?, ?, ?) THEN ? ELSE provider_action END, updated_at = ?
				WHERE id = ?`, nullable(a.Ref), nullable(a.Parent), billing.PaymentCancelled, billing.PaymentExpired,
				billing.PaymentFailed, billing.ActionCancel, x.t(now), paymentID); err != nil {
				return err
			}
		}
		p, err = scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ?`, paymentID))
		return err
	})
	return p, err
}

// ClosePayment closes one of the user's open payments as how says (withdrawn by the customer, declined by the
// provider), answering the closed payment; billing.ErrNotFound when it is not theirs, and the payment unchanged
// with ok false when it was not open.
func (db *DB) ClosePayment(ctx context.Context, userID, paymentID int64, how func(billing.PaymentRecord) billing.Closing,
	now time.Time) (p billing.PaymentRecord, ok bool, err error) {
	err = db.tx(ctx, func(x q) error {
		p, err = scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ? AND user_id = ?`+forUpdate(x),
			paymentID, userID))
		if err != nil || !p.Open {
			return err
		}
		ok = true
		return closeOpen(ctx, x, &p, how(p), now)
	})
	return p, ok, err
}

// CloseDuePayment closes the user's open payment if it is due, so that what the customer reads (the payment
// history) is never an expired or stale payment shown as pending while the periodic job has not come by yet.
func (db *DB) CloseDuePayment(ctx context.Context, userID int64, now time.Time) error {
	var open int
	if err := db.q().row(ctx, `SELECT COUNT(*) FROM payments WHERE open_for = ?`, userID).Scan(&open); err != nil || open == 0 {
		return err
	}
	return db.tx(ctx, func(x q) error {
		if _, _, err := billingState(ctx, x, userID, true); err != nil {
			if errors.Is(err, billing.ErrNotFound) {
				return nil
			}
			return err
		}
		_, err := closeDueOpen(ctx, x, userID, now)
		return err
	})
}

// SweepOpenPayments closes every open payment that is due (expired, abandoned mid-call, or priced against an
// account that has since changed), each under its account's lock, and answers how many it closed. It is the
// billing job's safety net: the transactions that change an account close its payment themselves.
func (db *DB) SweepOpenPayments(ctx context.Context, now time.Time) (int, error) {
	rows, err := db.q().query(ctx, `SELECT open_for FROM payments WHERE open_for IS NOT NULL ORDER BY id LIMIT 10000`)
	if err != nil {
		return 0, err
	}
	var users []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		users = append(users, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, userID := range users {
		err := db.tx(ctx, func(x q) error {
			if _, _, err := billingState(ctx, x, userID, true); err != nil && !errors.Is(err, billing.ErrNotFound) {
				return err
			}
			still, err := closeDueOpen(ctx, x, userID, now)
			if err == nil && still == nil {
				n++
			}
			return err
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ProviderActions is up to limit payments (of one user, or of all for 0) that still owe the provider a call (the
// outbox), oldest first.
func (db *DB) ProviderActions(ctx context.Context, userID int64, limit int) ([]billing.PendingAction, error) {
	rows, err := db.q().query(ctx, `SELECT provider_action, `+paymentColumns+` FROM payments WHERE provider_action <> ''
		AND (? = 0 OR user_id = ?) ORDER BY id LIMIT ?`, userID, userID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []billing.PendingAction
	for rows.Next() {
		var a billing.PendingAction
		var err error
		a.Payment, err = scanPayment(scanPrefix{rows, &a.Action})
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	for i, a := range out {
		if a.Action != billing.ActionEndSubscription {
			continue
		}
		err := db.q().row(ctx, `SELECT subscription_ref FROM subscriptions WHERE user_id = ?`, a.Payment.UserID).
			Scan(&out[i].SubscriptionRef)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	return out, nil
}

// scanPrefix scans leading columns into dest before the rest of a row.
type scanPrefix struct {
	sc   interface{ Scan(...any) error }
	dest *string
}

func (s scanPrefix) Scan(dest ...any) error { return s.sc.Scan(append([]any{s.dest}, dest...)...) }

// ProviderActionDone clears a payment's provider action once the provider carried it out.
func (db *DB) ProviderActionDone(ctx context.Context, paymentID int64, action string, at time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `UPDATE payments SET provider_action = '', updated_at = ? WHERE id = ? AND provider_action = ?`,
		x.t(at), paymentID, action)
	return err
}

// SaveCard makes a card the subscription's card on file.
func (db *DB) SaveCard(ctx context.Context, userID int64, paymentMethodRef string, c billing.Card, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE subscriptions SET payment_method_ref = ?, card_brand = ?, card_last4 = ?,
		card_exp_month = ?, card_exp_year = ?, updated_at = ? WHERE user_id = ?`, paymentMethodRef, c.Brand, c.Last4,
		c.ExpMonth, c.ExpYear, x.t(at), userID)
	return expectOne(res, err)
}

// AttachPayment records the provider's reference, a test-mode secret's hash and the amount of a payment.
func (db *DB) AttachPayment(ctx context.Context, paymentID int64, ref, secretHash string, amountCents int64, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE payments SET ref = ?, secret_hash = ?, amount_cents = ?, updated_at = ? WHERE id = ?`,
		nullable(ref), nullable(secretHash), amountCents, x.t(at), paymentID)
	return expectOne(res, err)
}

// FailPayment marks a pending payment failed with the provider's message.
func (db *DB) FailPayment(ctx context.Context, paymentID int64, message string, at time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = ?, updated_at = ? WHERE id = ? AND status = ?`,
		billing.PaymentFailed, message, x.t(at), paymentID, billing.PaymentPending)
	return err
}

// SaveSubscription creates or replaces an account's subscription row (a new attempt replaces an old one).
func (db *DB) SaveSubscription(ctx context.Context, userID int64, s billing.Sub, at time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `INSERT INTO subscriptions (user_id, plan, status, pending_plan, cancel_at_period_end, provider,
			customer_ref, subscription_ref, payment_method_ref, card_brand, card_last4, card_exp_month, card_exp_year,
			created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET plan = excluded.plan, status = excluded.status,
			pending_plan = excluded.pending_plan, cancel_at_period_end = excluded.cancel_at_period_end,
			provider = excluded.provider, customer_ref = excluded.customer_ref,
			subscription_ref = excluded.subscription_ref, payment_method_ref = excluded.payment_method_ref,
			card_brand = excluded.card_brand, card_last4 = excluded.card_last4, card_exp_month = excluded.card_exp_month,
			card_exp_year = excluded.card_exp_year, updated_at = excluded.updated_at`,
		userID, s.Plan, s.Status, nullable(s.PendingPlan), s.CancelAtPeriodEnd, s.Provider, s.CustomerRef,
		s.SubscriptionRef, s.PaymentMethodRef, s.Card.Brand, s.Card.Last4, s.Card.ExpMonth, s.Card.ExpYear,
		x.t(at), x.t(at))
	return err
}

// ScheduleChange sets (or clears, with "") a downgrade at period end and the cancellation flag. The account's open
// payment, priced against the schedule as it was, closes with it.
func (db *DB) ScheduleChange(ctx context.Context, userID int64, pendingPlan string, cancel bool, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		st, _, err := billingState(ctx, x, userID, true)
		if err != nil {
			return err
		}
		res, err := x.exec(ctx, `UPDATE subscriptions SET pending_plan = ?, cancel_at_period_end = ?, updated_at = ?
			WHERE user_id = ? AND status IN (?, ?)`, nullable(pendingPlan), cancel, x.t(at), userID,
			billing.StatusActive, billing.StatusPastDue)
		if err := expectOne(res, err); err != nil {
			return err
		}
		// The notice of what is now scheduled, when it is new (its key keeps it to once a period besides).
		change := notify.PlanChange{From: st.Plan, EffectiveAt: st.Period.End, At: at}
		switch {
		case cancel && st.Sub != nil && !st.Sub.CancelAtPeriodEnd:
			change.To = billing.Free
			_, err = insertMail(ctx, x, notify.NewCancellation(userID, st.Period.Start, change))
		case !cancel && pendingPlan != "" && st.Sub != nil && (st.Sub.PendingPlan != pendingPlan || st.Sub.CancelAtPeriodEnd):
			change.To = pendingPlan
			_, err = insertMail(ctx, x, notify.NewDowngrade(userID, st.Period.Start, change))
		}
		if err != nil {
			return err
		}
		_, err = closeDueOpen(ctx, x, userID, at)
		return err
	})
}

// SaveTestCard keeps a test-mode payment method: brand, last four digits and outcome, never the number.
func (db *DB) SaveTestCard(ctx context.Context, userID int64, id string, c billing.CheckedCard, at time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `INSERT INTO test_cards (id, user_id, brand, last4, exp_month, exp_year, outcome, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, userID, c.Card.Brand, c.Card.Last4, c.Card.ExpMonth, c.Card.ExpYear,
		c.Outcome, x.t(at))
	return err
}

// TestCard is one of the user's test-mode payment methods.
func (db *DB) TestCard(ctx context.Context, userID int64, id string) (billing.CheckedCard, error) {
	var c billing.CheckedCard
	err := db.q().row(ctx, `SELECT brand, last4, exp_month, exp_year, outcome FROM test_cards WHERE id = ? AND user_id = ?`,
		id, userID).Scan(&c.Card.Brand, &c.Card.Last4, &c.Card.ExpMonth, &c.Card.ExpYear, &c.Outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return c, billing.ErrNotFound
	}
	if c.Outcome != billing.OutcomeSucceed {
		c.Message = billing.DeclineMessage(c.Outcome)
	}
	return c, err
}

// PaymentBySecret is the user's payment with that test-mode client secret hash.
func (db *DB) PaymentBySecret(ctx context.Context, userID int64, secretHash string) (billing.PaymentRecord, error) {
	return scanPayment(db.q().row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE secret_hash = ? AND user_id = ?`,
		secretHash, userID))
}

// Payments is a page of the user's payments, newest first, older than before (0: from the newest).
func (db *DB) Payments(ctx context.Context, userID, before int64, limit int) ([]billing.PaymentRecord, bool, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := db.q().query(ctx, `SELECT `+paymentColumns+` FROM payments WHERE user_id = ? AND id < ?
		ORDER BY id DESC LIMIT ?`, userID, before, limit+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []billing.PaymentRecord
	for rows.Next() {
		p, err := scanPayment(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, p)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
}

// Payment is one of the user's payments (billing.ErrNotFound for another user's).
func (db *DB) Payment(ctx context.Context, userID, id int64) (billing.PaymentRecord, error) {
	return scanPayment(db.q().row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = ? AND user_id = ?`, id, userID))
}

// CreditHistory is a page of the user's ledger, newest first, older than before (0: from the newest).
func (db *DB) CreditHistory(ctx context.Context, userID, before int64, limit int) ([]credit.Entry, bool, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := db.q().query(ctx, `SELECT id, user_id, amount, balance_after, kind, description, reference, created_at
		FROM credit_ledger WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, userID, before, limit+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []credit.Entry
	for rows.Next() {
		var e credit.Entry
		var at dbTime
		if err := rows.Scan(&e.ID, &e.UserID, &e.Amount, &e.BalanceAfter, &e.Kind, &e.Description, &e.Reference, &at); err != nil {
			return nil, false, err
		}
		e.CreatedAt = at.Time
		out = append(out, e)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
}

// DuePeriods is up to limit open accounts whose billing period has ended by now, or has not been started (accounts
// made before billing periods existed).
func (db *DB) DuePeriods(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	x := db.q()
	return x.ids(ctx, `SELECT id FROM users WHERE closed_at IS NULL AND (period_end IS NULL OR period_end <= ?)
		ORDER BY id LIMIT ?`, x.t(now), limit)
}

// maxClosesPerRun bounds how many missed periods one run closes for an account (a server that was off for years
// catches up over several runs rather than in one long transaction).
const maxClosesPerRun = 24

// RollPeriod closes every period of the account that ended by now, in one transaction under the account's row
// lock. A period is closed only while its end is still in the row, so a second run, here or on another instance,
// finds nothing due and changes nothing.
func (db *DB) RollPeriod(ctx context.Context, userID int64, now time.Time) (billing.Roll, error) {
	var roll billing.Roll
	err := db.tx(ctx, func(x q) error {
		roll = billing.Roll{}
		st, anchor, err := billingState(ctx, x, userID, true)
		if errors.Is(err, billing.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := rollDue(ctx, x, &st, anchor, now, &roll); err != nil {
			return err
		}
		_, err = closeDueOpen(ctx, x, userID, now)
		return err
	})
	return roll, err
}

// rollDue closes st's periods that ended by now, inside the caller's transaction and row lock.
func rollDue(ctx context.Context, x q, st *billing.State, anchor, now time.Time, roll *billing.Roll) error {
	if st.Period.End.IsZero() {
		// An account from before billing periods: start the period it is in now, with no grant for the past.
		p := billing.PeriodAt(anchor, now)
		_, err := x.exec(ctx, `UPDATE users SET period_anchor = ?, period_start = ?, period_end = ? WHERE id = ?`,
			x.t(anchor), x.t(p.Start), x.t(p.End), st.UserID)
		st.Period = p
		return err
	}
	for i := 0; i < maxClosesPerRun && !st.Period.End.After(now); i++ {
		if err := closePeriod(ctx, x, st, anchor, now, roll); err != nil {
			return err
		}
		roll.Rolled = true
	}
	roll.Sub = st.Sub
	return nil
}

// closePeriod closes st's current period and opens the next (billing.ClosePeriod gives the numbers): carried
// credits still unused expire, overage is settled and billed, a cancelled subscription ends (its unused credits
// are forfeited, as the terms say) and a scheduled downgrade takes effect, then the new period's plan credits are
// granted (Free) or billed (paid: granted when the payment succeeds). Every change of credits is a ledger row
// dated at the period's end.
func closePeriod(ctx context.Context, x q, st *billing.State, anchor, now time.Time, roll *billing.Roll) error {
	plan := billing.Get(st.Plan)
	end := st.Period.End
	key := fmt.Sprintf("%d:%d", st.UserID, st.Period.Start.Unix())
	spent, err := spentBetween(ctx, x, st.UserID, st.Period.Start, end)
	if err != nil {
		return err
	}
	out := billing.ClosePeriod(billing.PeriodClose{Plan: plan, Balance: st.Balance, CarriedIn: st.CarriedCredits, Spent: spent})
	post := func(amount int64, kind, description, ref string) error {
		e, err := postCredit(ctx, x, credit.Entry{UserID: st.UserID, Amount: amount, Kind: kind, Description: description,
			Reference: ref, CreatedAt: end}, noFloor)
		st.Balance = e.BalanceAfter
		return err
	}
	if out.Expired > 0 {
		if err := post(-out.Expired, credit.KindExpiry, fmt.Sprintf("%s unused credits carried from the previous period expired",
			thousands(out.Expired)), "expire:"+key); err != nil {
			return err
		}
	}
	if out.OverageCredits > 0 {
		desc := fmt.Sprintf("Overage: %s credits at %s billed (%s)", thousands(out.OverageCredits),
			billing.Dollars(plan.OverageCents), billing.Dollars(out.OverageCents))
		if err := post(out.OverageCredits, credit.KindOverageBilled, desc, "overage:"+key); err != nil {
			return err
		}
		p := billing.PaymentRecord{UserID: st.UserID, Provider: subProvider(st.Sub), Kind: billing.KindOverage,
			Plan: plan.ID, AmountCents: out.OverageCents, Credits: out.OverageCredits, Status: billing.PaymentPending,
			Description: fmt.Sprintf("Overage, %s: %s credits at %s", periodText(st.Period), thousands(out.OverageCredits),
				billing.Dollars(plan.OverageCents)),
			Period: st.Period, DedupeKey: "overage:" + key, CreatedAt: end}
		if p.ID, err = insertPayment(ctx, x, p); err != nil {
			return err
		}
		roll.Payments = append(roll.Payments, p)
	}
	carry := out.CarryOut
	next := plan
	sub := st.Sub
	if sub != nil && plan.Paid() {
		switch {
		case sub.CancelAtPeriodEnd || sub.Status == billing.StatusCanceled:
			if carry > 0 {
				if err := post(-carry, credit.KindForfeit, fmt.Sprintf("Subscription ended: %s unused credits forfeited",
					thousands(carry)), "forfeit:"+key); err != nil {
					return err
				}
				carry = 0
			}
			next = billing.Get(billing.Free)
			sub.Status, sub.CancelAtPeriodEnd, sub.PendingPlan = billing.StatusCanceled, false, ""
		case sub.PendingPlan != "":
			next = billing.Get(sub.PendingPlan)
			sub.Plan, sub.PendingPlan = next.ID, ""
		}
		if _, err := x.exec(ctx, `UPDATE subscriptions SET plan = ?, status = ?, pending_plan = NULL,
			cancel_at_period_end = ?, updated_at = ? WHERE user_id = ?`, sub.Plan, sub.Status, sub.CancelAtPeriodEnd,
			x.t(end), st.UserID); err != nil {
			return err
		}
	}
	period := billing.PeriodAt(anchor, end)
	if _, err := x.exec(ctx, `UPDATE users SET plan = ?, period_start = ?, period_end = ?, carried_credits = ?,
		updated_at = ? WHERE id = ?`, next.ID, x.t(period.Start), x.t(period.End), carry, x.t(end), st.UserID); err != nil {
		return err
	}
	st.Plan, st.Period, st.CarriedCredits = next.ID, period, carry
	nextKey := fmt.Sprintf("%d:%d", st.UserID, period.Start.Unix())
	if !next.Paid() {
		if err := post(next.Credits, credit.KindPlanCredits, fmt.Sprintf("%s plan: %s credits for %s", next.Name,
			thousands(next.Credits), periodText(period)), "grant:"+nextKey); err != nil {
			return err
		}
		if period.End.After(now) {
			// Mailed for the period the account is in only: a server that was off for months grants each missed
			// period, but one email says where the balance stands.
			return queueCreditsGranted(ctx, x, st.UserID, next, next.Credits, st.Balance, period, end)
		}
		return nil
	}
	p := billing.PaymentRecord{UserID: st.UserID, Provider: subProvider(sub), Kind: billing.KindRenewal, Plan: next.ID,
		AmountCents: next.PriceCents, Credits: next.Credits, Status: billing.PaymentPending,
		Description: fmt.Sprintf("%s plan, %s", next.Name, periodText(period)), Period: period,
		DedupeKey: "renewal:" + nextKey, CreatedAt: end}
	if p.ID, err = insertPayment(ctx, x, p); err != nil {
		return err
	}
	roll.Payments = append(roll.Payments, p)
	return nil
}

func subProvider(s *billing.Sub) string {
	if s == nil {
		return ""
	}
	return s.Provider
}

// periodText is a period as a person reads it: "Nov 24 – Dec 24, 2026".
func periodText(p billing.Period) string {
	return p.Start.Format("Jan 2") + " – " + p.End.Format("Jan 2, 2006")
}

// thousands writes n with comma separators.
func thousands(n int64) string { return billing.Thousands(n) }

// ApplyEvent applies a provider event once, in one transaction: the event's id is recorded first, so a repeated
// delivery finds it and changes nothing (false). It is the only place a payment becomes credits.
//
// An event that changes what a payment is priced against (a payment settled, a renewal, a subscription ended)
// closes the account's open payment in the same transaction.
func (db *DB) ApplyEvent(ctx context.Context, provider string, ev billing.Event, now time.Time) (billing.EventResult, error) {
	var out billing.EventResult
	err := db.tx(ctx, func(x q) error {
		out = billing.EventResult{}
		res, err := x.exec(ctx, `INSERT INTO billing_events (provider, event_id, type, received_at) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, provider, ev.ID, string(ev.Type), x.t(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		out.Applied = true
		var userID int64
		switch ev.Type {
		case billing.EventPaymentSucceeded:
			paidAt := now
			if !ev.Created.IsZero() && ev.Created.Before(now) {
				paidAt = ev.Created
			}
			err = paymentSucceeded(ctx, x, provider, ev.PaymentRef, now, paidAt, &out)
			userID = out.Payment.UserID
		case billing.EventPaymentFailed:
			userID, err = paymentFailedEvent(ctx, x, provider, ev, now)
		case billing.EventRenewalPaid, billing.EventRenewalFailed:
			userID, err = renewalEvent(ctx, x, provider, ev, now)
		case billing.EventSubscriptionEnded:
			// The period job ends it at the period's end (overage settled, credits forfeited, back to Free).
			if err = x.row(ctx, `SELECT user_id FROM subscriptions WHERE provider = ? AND subscription_ref = ?`, provider,
				ev.SubscriptionRef).Scan(&userID); errors.Is(err, sql.ErrNoRows) {
				return nil
			} else if err != nil {
				return err
			}
			if _, _, err := billingState(ctx, x, userID, true); err != nil && !errors.Is(err, billing.ErrNotFound) {
				return err
			}
			_, err = x.exec(ctx, `UPDATE subscriptions SET status = ?, updated_at = ? WHERE provider = ? AND subscription_ref = ?`,
				billing.StatusCanceled, x.t(now), provider, ev.SubscriptionRef)
		case billing.EventPaymentRefunded:
			userID, err = paymentRefunded(ctx, x, provider, ev.PaymentRef, ev.AmountCents, now)
		}
		if err != nil || userID == 0 {
			return err
		}
		out.UserID = userID
		_, err = closeDueOpen(ctx, x, userID, now)
		return err
	})
	return out, err
}

func paymentByRef(ctx context.Context, x q, provider, ref string) (billing.PaymentRecord, error) {
	return scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE provider = ? AND ref = ?`+forUpdate(x),
		provider, ref))
}

// lockedPaymentByRef finds a payment and locks its account, then the payment, in the order every billing
// transaction takes them (account first), so that two of them never wait for each other. It answers the account's
// state; billing.ErrNotFound for an unknown payment or a closed account.
func lockedPaymentByRef(ctx context.Context, x q, provider, ref string) (billing.PaymentRecord, billing.State, error) {
	var userID int64
	err := x.row(ctx, `SELECT user_id FROM payments WHERE provider = ? AND ref = ?`, provider, ref).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return billing.PaymentRecord{}, billing.State{}, billing.ErrNotFound
	}
	if err != nil {
		return billing.PaymentRecord{}, billing.State{}, err
	}
	st, _, err := billingState(ctx, x, userID, true)
	if err != nil {
		return billing.PaymentRecord{}, st, err
	}
	p, err := paymentByRef(ctx, x, provider, ref)
	return p, st, err
}

// paymentSucceeded marks a payment paid and grants what it bought: a new subscription's plan and first period, an
// upgrade's plan and prorated credits, a renewal's plan credits.
//
// A customer's payment (one with a priced state) is granted only while it is open and the account is still as it
// was priced; otherwise it is stale: in test mode, where this confirmation is the charge, it is refused and
// nothing moves; on Stripe the money already moved, so it is refunded (the provider action below) and nothing is
// granted.
//
// paidAt is when the provider says the payment was made (its event's time): a payment paid at the provider just
// before it expired here is not refused because its webhook came a moment later.
func paymentSucceeded(ctx context.Context, x q, provider, ref string, now, paidAt time.Time, out *billing.EventResult) error {
	p, st, err := lockedPaymentByRef(ctx, x, provider, ref)
	if errors.Is(err, billing.ErrNotFound) {
		return nil // not one of ours (another integration on the same Stripe account), or its account is closed
	}
	if err != nil {
		return err
	}
	out.Payment = p
	if p.Status == billing.PaymentSucceeded || p.Status == billing.PaymentRefunded || p.Status == billing.PaymentInvoiced {
		return nil // paid already: a second confirmation changes nothing
	}
	customer := p.PricedState != ""
	_, due := p.Due(st.PricedState(), paidAt)
	if customer && (!p.Open || due) {
		out.Stale = true
		if provider == billing.ModeTest {
			if c, due := p.Due(st.PricedState(), paidAt); due {
				return closeOpen(ctx, x, &out.Payment, c, now)
			}
			return nil
		}
		return closeOpen(ctx, x, &out.Payment, billing.RefundStale(), now)
	}
	// A payment declined once may succeed when the customer retries it with another card.
	if !customer && p.Status != billing.PaymentPending && p.Status != billing.PaymentFailed {
		return nil
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = '', open_for = NULL, awaiting = '',
		updated_at = ? WHERE id = ?`, billing.PaymentSucceeded, x.t(now), p.ID); err != nil {
		return err
	}
	out.Payment.Status, out.Payment.Open, out.Payment.FailureMessage = billing.PaymentSucceeded, false, ""
	plan := billing.Get(p.Plan)
	// granted is the period's plan credits this payment bought (a subscription's first period, a renewal), for
	// their email.
	var granted *credit.Entry
	grant := func(amount int64, kind, description string) error {
		if amount <= 0 {
			return nil
		}
		e, err := postCredit(ctx, x, credit.Entry{UserID: p.UserID, Amount: amount, Kind: kind, Description: description,
			Reference: fmt.Sprintf("payment:%d", p.ID), CreatedAt: now}, noFloor)
		if err == nil && kind == credit.KindPlanCredits {
			granted = &e
		}
		return err
	}
	period := p.Period
	switch p.Kind {
	case billing.KindSubscription:
		// The paid period starts now; what the account held before carries into it for one period.
		period = billing.PeriodAt(now, now)
		if _, err := x.exec(ctx, `UPDATE users SET plan = ?, period_anchor = ?, period_start = ?, period_end = ?,
			carried_credits = ?, updated_at = ? WHERE id = ?`, plan.ID, x.t(now), x.t(period.Start), x.t(period.End),
			max(st.Balance, 0), x.t(now), p.UserID); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE payments SET period_start = ?, period_end = ? WHERE id = ?`,
			x.t(period.Start), x.t(period.End), p.ID); err != nil {
			return err
		}
		out.Payment.Period = period
		if err := activate(ctx, x, p.UserID, plan.ID, now); err != nil {
			return err
		}
		err = grant(p.Credits, credit.KindPlanCredits, fmt.Sprintf("%s plan: %s credits for %s", plan.Name,
			thousands(p.Credits), periodText(period)))
	case billing.KindUpgrade:
		if _, err := x.exec(ctx, `UPDATE users SET plan = ?, updated_at = ? WHERE id = ?`, plan.ID, x.t(now), p.UserID); err != nil {
			return err
		}
		if err := activate(ctx, x, p.UserID, plan.ID, now); err != nil {
			return err
		}
		err = grant(p.Credits, credit.KindProration, fmt.Sprintf("Upgrade from %s to %s: %s prorated credits for the rest of the period",
			billing.Get(p.FromPlan).Name, plan.Name, thousands(p.Credits)))
	case billing.KindRenewal:
		if _, err := x.exec(ctx, `UPDATE subscriptions SET status = ?, updated_at = ? WHERE user_id = ? AND status = ?`,
			billing.StatusActive, x.t(now), p.UserID, billing.StatusPastDue); err != nil {
			return err
		}
		err = grant(p.Credits, credit.KindPlanCredits, fmt.Sprintf("%s plan: %s credits for %s", plan.Name,
			thousands(p.Credits), periodText(p.Period)))
	}
	// Overage: its credits were settled when the period closed.
	if err != nil {
		return err
	}
	if err := queueReceipt(ctx, x, p, st, period, now); err != nil {
		return err
	}
	if granted != nil {
		return queueCreditsGranted(ctx, x, p.UserID, plan, granted.Amount, granted.BalanceAfter, period, now)
	}
	return nil
}

// activate makes the subscription active on plan, clearing a scheduled change.
func activate(ctx context.Context, x q, userID int64, plan string, now time.Time) error {
	_, err := x.exec(ctx, `UPDATE subscriptions SET plan = ?, status = ?, pending_plan = NULL, cancel_at_period_end = ?,
		updated_at = ? WHERE user_id = ?`, plan, billing.StatusActive, false, x.t(now), userID)
	return err
}

// paymentFailedEvent records a decline. A customer's open payment stays open for another card; a closed one is
// left as it closed.
func paymentFailedEvent(ctx context.Context, x q, provider string, ev billing.Event, now time.Time) (int64, error) {
	p, _, err := lockedPaymentByRef(ctx, x, provider, ev.PaymentRef)
	if errors.Is(err, billing.ErrNotFound) {
		return 0, nil
	}
	if err != nil || (p.Status != billing.PaymentPending && p.Status != billing.PaymentFailed) ||
		(p.PricedState != "" && !p.Open) {
		return 0, err
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = ?, awaiting = CASE WHEN open_for IS NULL
		THEN '' ELSE ? END, updated_at = ? WHERE id = ?`, billing.PaymentFailed, ev.FailureMessage,
		billing.AwaitPaymentMethod, x.t(now), p.ID); err != nil {
		return 0, err
	}
	if p.Kind == billing.KindRenewal {
		if _, err := x.exec(ctx, `UPDATE subscriptions SET status = ?, updated_at = ? WHERE user_id = ? AND status = ?`,
			billing.StatusPastDue, x.t(now), p.UserID, billing.StatusActive); err != nil {
			return 0, err
		}
		_, err = insertMail(ctx, x, notify.NewRenewalDeclined(p.UserID, notify.RenewalDeclined{PaymentID: p.ID,
			Plan: p.Plan, AmountCents: p.AmountCents, Credits: p.Credits, PeriodStart: p.Period.Start,
			PeriodEnd: p.Period.End, Reason: ev.FailureMessage, Provider: provider, At: now}))
	}
	return p.UserID, err
}

// renewalEvent applies a renewal the provider billed by itself (Stripe's subscription_cycle invoices). Stripe's
// period began when the subscription was created, ours when its first payment succeeded, seconds to minutes
// later; so an invoice for a period starting within the hour before our period ends belongs to our next period,
// which is closed here first.
func renewalEvent(ctx context.Context, x q, provider string, ev billing.Event, now time.Time) (int64, error) {
	var userID int64
	err := x.row(ctx, `SELECT user_id FROM subscriptions WHERE provider = ? AND subscription_ref = ?`, provider,
		ev.SubscriptionRef).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	st, anchor, err := billingState(ctx, x, userID, true)
	if errors.Is(err, billing.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	until := now
	if ev.PeriodStart.After(until) {
		until = ev.PeriodStart
	}
	if !st.Period.End.IsZero() && st.Period.End.Sub(until) < time.Hour {
		until = st.Period.End
	}
	var roll billing.Roll
	if err := rollDue(ctx, x, &st, anchor, until, &roll); err != nil {
		return 0, err
	}
	if !billing.Get(st.Plan).Paid() {
		return userID, nil
	}
	key := fmt.Sprintf("renewal:%d:%d", userID, st.Period.Start.Unix())
	p, err := scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE dedupe_key = ?`, key))
	if errors.Is(err, billing.ErrNotFound) {
		plan := billing.Get(st.Plan)
		p = billing.PaymentRecord{UserID: userID, Provider: provider, Kind: billing.KindRenewal, Plan: plan.ID,
			AmountCents: ev.AmountCents, Credits: plan.Credits, Status: billing.PaymentPending,
			Description: fmt.Sprintf("%s plan, %s", plan.Name, periodText(st.Period)), Period: st.Period,
			DedupeKey: key, CreatedAt: now}
		p.ID, err = insertPayment(ctx, x, p)
	}
	if err != nil {
		return 0, err
	}
	ref := fmt.Sprintf("renewal-%d", p.ID)
	if _, err := x.exec(ctx, `UPDATE payments SET ref = COALESCE(ref, ?), amount_cents = ?, updated_at = ? WHERE id = ?`,
		ref, ev.AmountCents, x.t(now), p.ID); err != nil {
		return 0, err
	}
	if p.Ref != "" {
		ref = p.Ref
	}
	if ev.Type == billing.EventRenewalFailed {
		_, err := paymentFailedEvent(ctx, x, provider, billing.Event{PaymentRef: ref, FailureMessage: ev.FailureMessage}, now)
		return userID, err
	}
	return userID, paymentSucceeded(ctx, x, provider, ref, now, now, &billing.EventResult{})
}

// paymentRefunded applies a refund of amountCents (the total refunded so far; 0 when unknown, taken as all of it)
// to a paid payment. A full refund marks it refunded and takes back the credits it bought, as far as the balance
// still holds them (credits already spent were delivered and are not clawed into overage), and, when the payment
// paid for the plan the account is on now (its subscription, renewal or upgrade for the current period), ends that
// plan at once: back to Free, nothing renews, and the provider is told to end the subscription (issue 36, L-4).
// A partial refund changes neither the credits nor the plan: it is mailed, and the payment stays paid. Either way
// the refund's email is queued in the same transaction.
func paymentRefunded(ctx context.Context, x q, provider, ref string, amountCents int64, now time.Time) (int64, error) {
	p, st, err := lockedPaymentByRef(ctx, x, provider, ref)
	if errors.Is(err, billing.ErrNotFound) {
		return 0, nil
	}
	if err != nil || p.Status != billing.PaymentSucceeded {
		return 0, err
	}
	full := amountCents <= 0 || amountCents >= p.AmountCents
	if full {
		amountCents = p.AmountCents
	}
	notice := notify.Refund{PaymentID: p.ID, Description: p.Description, RefundedCents: amountCents,
		PaidCents: p.AmountCents, Full: full, CreditsBought: p.Credits, Balance: st.Balance, Plan: st.Plan, At: now,
		Test: p.Provider == billing.ModeTest}
	if !full {
		_, err := insertMail(ctx, x, notify.NewRefund(p.UserID, notice))
		return p.UserID, err
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, updated_at = ? WHERE id = ?`, billing.PaymentRefunded,
		x.t(now), p.ID); err != nil {
		return 0, err
	}
	if back := min(p.Credits, max(st.Balance, 0)); back > 0 {
		e, err := postCredit(ctx, x, credit.Entry{UserID: p.UserID, Amount: -back, Kind: credit.KindRefund,
			Description: fmt.Sprintf("Refund of payment #%d (%s): %s credits taken back", p.ID, billing.Dollars(p.AmountCents),
				thousands(back)), Reference: fmt.Sprintf("refund:%d", p.ID), CreatedAt: now}, noFloor)
		if err != nil {
			return 0, err
		}
		notice.CreditsTaken, notice.Balance = back, e.BalanceAfter
	}
	if notice.PlanEnded, err = endRefundedPlan(ctx, x, p, st, now); err != nil {
		return 0, err
	}
	_, err = insertMail(ctx, x, notify.NewRefund(p.UserID, notice))
	return p.UserID, err
}

// endRefundedPlan ends the account's paid plan at once when p, refunded in full, is what paid for it now: the
// first payment, renewal or upgrade of the current period. The account goes back to Free for the rest of the
// period (the period job grants Free's credits at its end), the subscription ends with nothing scheduled, and the
// payment owes the provider the end of the subscription (ActionEndSubscription), so that it is not billed again.
// A refund of overage, or of an earlier period, leaves the plan alone: nothing of the plan the account is on now
// was paid by it.
func endRefundedPlan(ctx context.Context, x q, p billing.PaymentRecord, st billing.State, now time.Time) (bool, error) {
	switch {
	case p.Kind != billing.KindSubscription && p.Kind != billing.KindRenewal && p.Kind != billing.KindUpgrade,
		!st.Active(), p.Period.Start.IsZero(), p.Period.Start.Unix() != st.Period.Start.Unix():
		return false, nil
	}
	if _, err := x.exec(ctx, `UPDATE users SET plan = ?, updated_at = ? WHERE id = ?`, billing.Free, x.t(now),
		p.UserID); err != nil {
		return false, err
	}
	if _, err := x.exec(ctx, `UPDATE subscriptions SET status = ?, pending_plan = NULL, cancel_at_period_end = ?,
		updated_at = ? WHERE user_id = ?`, billing.StatusCanceled, false, x.t(now), p.UserID); err != nil {
		return false, err
	}
	if st.Sub.SubscriptionRef != "" {
		if _, err := x.exec(ctx, `UPDATE payments SET provider_action = ?, updated_at = ? WHERE id = ?`,
			billing.ActionEndSubscription, x.t(now), p.ID); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Alert is a queued low-balance or usage alert with what its email needs.
type Alert struct {
	ID                int64
	UserID            int64
	Kind              string
	Balance           int64
	Email             string
	FullName          string
	Plan              string
	OverageLimitCents *int64
	// Wanted is whether the user's settings ask for it: "Low balance alerts" (usage alerts) on, whatever "Email
	// notifications" says, which governs batch results only.
	Wanted bool
}

// PendingAlerts is up to limit alerts not yet sent, oldest first, of open accounts.
func (db *DB) PendingAlerts(ctx context.Context, limit int) ([]Alert, error) {
	rows, err := db.q().query(ctx, `SELECT a.id, a.user_id, a.kind, a.balance, u.email, u.full_name, u.plan,
		u.overage_limit_cents, u.notify_usage, u.closed_at
		FROM billing_alerts a JOIN users u ON u.id = a.user_id WHERE a.sent_at IS NULL ORDER BY a.id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Alert
	for rows.Next() {
		var a Alert
		var usage bool
		var closed dbTime
		if err := rows.Scan(&a.ID, &a.UserID, &a.Kind, &a.Balance, &a.Email, &a.FullName, &a.Plan, &a.OverageLimitCents,
			&usage, &closed); err != nil {
			return nil, err
		}
		a.Wanted = usage && !closed.Valid
		out = append(out, a)
	}
	return out, rows.Err()
}

// MarkAlert records that an alert was dealt with: "sent", or why not.
func (db *DB) MarkAlert(ctx context.Context, id int64, outcome string, at time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `UPDATE billing_alerts SET sent_at = ?, outcome = ? WHERE id = ? AND sent_at IS NULL`,
		x.t(at), outcome, id)
	return err
}
