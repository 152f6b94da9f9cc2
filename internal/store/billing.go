package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"valuator/internal/billing"
	"valuator/internal/credit"
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
	failure_message, period_start, period_end, dedupe_key, created_at`

func scanPayment(sc interface{ Scan(...any) error }) (billing.PaymentRecord, error) {
	var p billing.PaymentRecord
	var ref, dedupe sql.NullString
	var start, end, created dbTime
	err := sc.Scan(&p.ID, &p.UserID, &p.Provider, &ref, &p.Kind, &p.Plan, &p.FromPlan, &p.AmountCents, &p.Credits,
		&p.Status, &p.Description, &p.FailureMessage, &start, &end, &dedupe, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return p, billing.ErrNotFound
	}
	p.Ref, p.DedupeKey = ref.String, dedupe.String
	p.Period = billing.Period{Start: start.Time, End: end.Time}
	p.CreatedAt = created.Time
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
	err := x.row(ctx, `INSERT INTO payments (user_id, provider, ref, kind, plan, from_plan, amount_cents, credits, status,
		description, failure_message, period_start, period_end, dedupe_key, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		p.UserID, p.Provider, nullable(p.Ref), p.Kind, p.Plan, p.FromPlan, p.AmountCents, p.Credits, p.Status,
		p.Description, p.FailureMessage, nullTime(x, p.Period.Start), nullTime(x, p.Period.End), nullable(p.DedupeKey),
		x.t(p.CreatedAt), x.t(p.CreatedAt)).Scan(&id)
	return id, err
}

// CreatePayment records a payment about to be asked of the provider.
func (db *DB) CreatePayment(ctx context.Context, p billing.PaymentRecord) (int64, error) {
	return insertPayment(ctx, db.w(), p)
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

// ScheduleChange sets (or clears, with "") a downgrade at period end and the cancellation flag.
func (db *DB) ScheduleChange(ctx context.Context, userID int64, pendingPlan string, cancel bool, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE subscriptions SET pending_plan = ?, cancel_at_period_end = ?, updated_at = ?
		WHERE user_id = ? AND status IN (?, ?)`, nullable(pendingPlan), cancel, x.t(at), userID,
		billing.StatusActive, billing.StatusPastDue)
	return expectOne(res, err)
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
	rows, err := x.query(ctx, `SELECT id FROM users WHERE closed_at IS NULL AND (period_end IS NULL OR period_end <= ?)
		ORDER BY id LIMIT ?`, x.t(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
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
		return rollDue(ctx, x, &st, anchor, now, &roll)
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
		if err := closePeriod(ctx, x, st, anchor, roll); err != nil {
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
func closePeriod(ctx context.Context, x q, st *billing.State, anchor time.Time, roll *billing.Roll) error {
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
		return post(next.Credits, credit.KindPlanCredits, fmt.Sprintf("%s plan: %s credits for %s", next.Name,
			thousands(next.Credits), periodText(period)), "grant:"+nextKey)
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
func (db *DB) ApplyEvent(ctx context.Context, provider string, ev billing.Event, now time.Time) (bool, error) {
	applied := false
	err := db.tx(ctx, func(x q) error {
		applied = false
		res, err := x.exec(ctx, `INSERT INTO billing_events (provider, event_id, type, received_at) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, provider, ev.ID, string(ev.Type), x.t(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		applied = true
		switch ev.Type {
		case billing.EventPaymentSucceeded:
			return paymentSucceeded(ctx, x, provider, ev.PaymentRef, now)
		case billing.EventPaymentFailed:
			return paymentFailedEvent(ctx, x, provider, ev, now)
		case billing.EventRenewalPaid, billing.EventRenewalFailed:
			return renewalEvent(ctx, x, provider, ev, now)
		case billing.EventSubscriptionEnded:
			// The period job ends it at the period's end (overage settled, credits forfeited, back to Free).
			_, err := x.exec(ctx, `UPDATE subscriptions SET status = ?, updated_at = ? WHERE provider = ? AND subscription_ref = ?`,
				billing.StatusCanceled, x.t(now), provider, ev.SubscriptionRef)
			return err
		case billing.EventPaymentRefunded:
			return paymentRefunded(ctx, x, provider, ev.PaymentRef, now)
		}
		return nil
	})
	return applied, err
}

func paymentByRef(ctx context.Context, x q, provider, ref string) (billing.PaymentRecord, error) {
	return scanPayment(x.row(ctx, `SELECT `+paymentColumns+` FROM payments WHERE provider = ? AND ref = ?`+forUpdate(x),
		provider, ref))
}

// paymentSucceeded marks a payment paid and grants what it bought: a new subscription's plan and first period, an
// upgrade's plan and prorated credits, a renewal's plan credits.
func paymentSucceeded(ctx context.Context, x q, provider, ref string, now time.Time) error {
	p, err := paymentByRef(ctx, x, provider, ref)
	if errors.Is(err, billing.ErrNotFound) {
		return nil // not one of ours (another integration on the same Stripe account)
	}
	if err != nil {
		return err
	}
	// A payment declined once may succeed when the customer retries it with another card.
	if p.Status != billing.PaymentPending && p.Status != billing.PaymentFailed {
		return nil
	}
	st, _, err := billingState(ctx, x, p.UserID, true)
	if errors.Is(err, billing.ErrNotFound) {
		return nil // the account was closed meanwhile
	}
	if err != nil {
		return err
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = '', updated_at = ? WHERE id = ?`,
		billing.PaymentSucceeded, x.t(now), p.ID); err != nil {
		return err
	}
	plan := billing.Get(p.Plan)
	grant := func(amount int64, kind, description string) error {
		if amount <= 0 {
			return nil
		}
		_, err := postCredit(ctx, x, credit.Entry{UserID: p.UserID, Amount: amount, Kind: kind, Description: description,
			Reference: fmt.Sprintf("payment:%d", p.ID), CreatedAt: now}, noFloor)
		return err
	}
	switch p.Kind {
	case billing.KindSubscription:
		if st.Active() && provider == billing.ModeTest {
			// Two sign-ups confirmed at once (two tabs): the first one applied wins; in test mode the other is
			// simply not charged. (Service.ConfirmTestPayment checks this first; this is the check under the lock.)
			_, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = ?, updated_at = ? WHERE id = ?`,
				billing.PaymentFailed, "Already subscribed: this second subscription was not charged.", x.t(now), p.ID)
			return err
		}
		// The paid period starts now; what the account held before carries into it for one period.
		period := billing.PeriodAt(now, now)
		if _, err := x.exec(ctx, `UPDATE users SET plan = ?, period_anchor = ?, period_start = ?, period_end = ?,
			carried_credits = ?, updated_at = ? WHERE id = ?`, plan.ID, x.t(now), x.t(period.Start), x.t(period.End),
			max(st.Balance, 0), x.t(now), p.UserID); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE payments SET period_start = ?, period_end = ? WHERE id = ?`,
			x.t(period.Start), x.t(period.End), p.ID); err != nil {
			return err
		}
		if err := activate(ctx, x, p.UserID, plan.ID, now); err != nil {
			return err
		}
		return grant(p.Credits, credit.KindPlanCredits, fmt.Sprintf("%s plan: %s credits for %s", plan.Name,
			thousands(p.Credits), periodText(period)))
	case billing.KindUpgrade:
		if billing.ChangeKind(billing.Get(st.Plan), plan) != billing.Upgrade {
			// Already on this plan or a dearer one (two upgrades paid at once): the payment stands, the plan stays.
			return grant(p.Credits, credit.KindProration, fmt.Sprintf("Upgrade to %s: %s prorated credits", plan.Name,
				thousands(p.Credits)))
		}
		if _, err := x.exec(ctx, `UPDATE users SET plan = ?, updated_at = ? WHERE id = ?`, plan.ID, x.t(now), p.UserID); err != nil {
			return err
		}
		if err := activate(ctx, x, p.UserID, plan.ID, now); err != nil {
			return err
		}
		return grant(p.Credits, credit.KindProration, fmt.Sprintf("Upgrade from %s to %s: %s prorated credits for the rest of the period",
			billing.Get(p.FromPlan).Name, plan.Name, thousands(p.Credits)))
	case billing.KindRenewal:
		if _, err := x.exec(ctx, `UPDATE subscriptions SET status = ?, updated_at = ? WHERE user_id = ? AND status = ?`,
			billing.StatusActive, x.t(now), p.UserID, billing.StatusPastDue); err != nil {
			return err
		}
		return grant(p.Credits, credit.KindPlanCredits, fmt.Sprintf("%s plan: %s credits for %s", plan.Name,
			thousands(p.Credits), periodText(p.Period)))
	}
	return nil // overage: its credits were settled when the period closed
}

// activate makes the subscription active on plan, clearing a scheduled change.
func activate(ctx context.Context, x q, userID int64, plan string, now time.Time) error {
	_, err := x.exec(ctx, `UPDATE subscriptions SET plan = ?, status = ?, pending_plan = NULL, cancel_at_period_end = ?,
		updated_at = ? WHERE user_id = ?`, plan, billing.StatusActive, false, x.t(now), userID)
	return err
}

func paymentFailedEvent(ctx context.Context, x q, provider string, ev billing.Event, now time.Time) error {
	p, err := paymentByRef(ctx, x, provider, ev.PaymentRef)
	if errors.Is(err, billing.ErrNotFound) {
		return nil
	}
	if err != nil || (p.Status != billing.PaymentPending && p.Status != billing.PaymentFailed) {
		return err
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, failure_message = ?, updated_at = ? WHERE id = ?`,
		billing.PaymentFailed, ev.FailureMessage, x.t(now), p.ID); err != nil {
		return err
	}
	if p.Kind == billing.KindRenewal {
		_, err = x.exec(ctx, `UPDATE subscriptions SET status = ?, updated_at = ? WHERE user_id = ? AND status = ?`,
			billing.StatusPastDue, x.t(now), p.UserID, billing.StatusActive)
	}
	return err
}

// renewalEvent applies a renewal the provider billed by itself (Stripe's subscription_cycle invoices). Stripe's
// period began when the subscription was created, ours when its first payment succeeded, seconds to minutes
// later; so an invoice for a period starting within the hour before our period ends belongs to our next period,
// which is closed here first.
func renewalEvent(ctx context.Context, x q, provider string, ev billing.Event, now time.Time) error {
	var userID int64
	err := x.row(ctx, `SELECT user_id FROM subscriptions WHERE provider = ? AND subscription_ref = ?`, provider,
		ev.SubscriptionRef).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	st, anchor, err := billingState(ctx, x, userID, true)
	if errors.Is(err, billing.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
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
		return err
	}
	if !billing.Get(st.Plan).Paid() {
		return nil
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
		return err
	}
	ref := fmt.Sprintf("renewal-%d", p.ID)
	if _, err := x.exec(ctx, `UPDATE payments SET ref = COALESCE(ref, ?), amount_cents = ?, updated_at = ? WHERE id = ?`,
		ref, ev.AmountCents, x.t(now), p.ID); err != nil {
		return err
	}
	if p.Ref != "" {
		ref = p.Ref
	}
	if ev.Type == billing.EventRenewalFailed {
		return paymentFailedEvent(ctx, x, provider, billing.Event{PaymentRef: ref, FailureMessage: ev.FailureMessage}, now)
	}
	return paymentSucceeded(ctx, x, provider, ref, now)
}

// paymentRefunded marks a paid payment refunded and takes back the credits it bought, as far as the balance still
// holds them (credits already spent were delivered and are not clawed into overage).
func paymentRefunded(ctx context.Context, x q, provider, ref string, now time.Time) error {
	p, err := paymentByRef(ctx, x, provider, ref)
	if errors.Is(err, billing.ErrNotFound) {
		return nil
	}
	if err != nil || p.Status != billing.PaymentSucceeded {
		return err
	}
	if _, err := x.exec(ctx, `UPDATE payments SET status = ?, updated_at = ? WHERE id = ?`, billing.PaymentRefunded,
		x.t(now), p.ID); err != nil {
		return err
	}
	st, _, err := billingState(ctx, x, p.UserID, true)
	if errors.Is(err, billing.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	back := min(p.Credits, max(st.Balance, 0))
	if back <= 0 {
		return nil
	}
	_, err = postCredit(ctx, x, credit.Entry{UserID: p.UserID, Amount: -back, Kind: credit.KindRefund,
		Description: fmt.Sprintf("Refund of payment #%d (%s): %s credits taken back", p.ID, billing.Dollars(p.AmountCents),
			thousands(back)), Reference: fmt.Sprintf("refund:%d", p.ID), CreatedAt: now}, noFloor)
	return err
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
	// Wanted is whether the user's settings ask for it (email notifications and usage alerts both on).
	Wanted bool
}

// PendingAlerts is up to limit alerts not yet sent, oldest first, of open accounts.
func (db *DB) PendingAlerts(ctx context.Context, limit int) ([]Alert, error) {
	rows, err := db.q().query(ctx, `SELECT a.id, a.user_id, a.kind, a.balance, u.email, u.full_name, u.plan,
		u.overage_limit_cents, u.notify_email, u.notify_usage, u.closed_at
		FROM billing_alerts a JOIN users u ON u.id = a.user_id WHERE a.sent_at IS NULL ORDER BY a.id LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Alert
	for rows.Next() {
		var a Alert
		var mail, usage bool
		var closed dbTime
		if err := rows.Scan(&a.ID, &a.UserID, &a.Kind, &a.Balance, &a.Email, &a.FullName, &a.Plan, &a.OverageLimitCents,
			&mail, &usage, &closed); err != nil {
			return nil, err
		}
		a.Wanted = mail && usage && !closed.Valid
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
