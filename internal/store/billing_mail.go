package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"valuator/internal/billing"
	"valuator/internal/notify"
)

// The emails about money (notify/money.go), queued in the billing transactions that decide them: a receipt when
// a payment is paid, a period's plan credits when they are granted. The outbox's unique key is the payment, or
// the account and period, so an event applied twice queues nothing twice.

// queueReceipt queues the receipt of p, paid at now for period. A change that cost nothing (an upgrade whose
// proration came to $0.00) moved no money and has no receipt.
func queueReceipt(ctx context.Context, x q, p billing.PaymentRecord, st billing.State, period billing.Period, now time.Time) error {
	if p.AmountCents <= 0 {
		return nil
	}
	card, err := paymentCard(ctx, x, p, st)
	if err != nil {
		return err
	}
	_, err = insertMail(ctx, x, notify.NewReceipt(p.UserID, notify.Receipt{PaymentID: p.ID, Kind: p.Kind, Plan: p.Plan,
		Description: p.Description, AmountCents: p.AmountCents, Credits: p.Credits, PeriodStart: period.Start,
		PeriodEnd: period.End, CardBrand: card.Brand, CardLast4: card.Last4, PaidAt: now,
		Test: p.Provider == billing.ModeTest}))
	return err
}

// paymentCard is the card p was charged to, where it is known: the subscription's card on file when p charged it
// (renewals, upgrades and overage charge it), or the test-mode card p names. Empty when unknown.
func paymentCard(ctx context.Context, x q, p billing.PaymentRecord, st billing.State) (billing.Card, error) {
	if st.Sub != nil && st.Sub.Card.Last4 != "" && (p.PaymentMethodRef == "" || p.PaymentMethodRef == st.Sub.PaymentMethodRef) {
		return st.Sub.Card, nil
	}
	var c billing.Card
	if p.PaymentMethodRef == "" || p.Provider != billing.ModeTest {
		return c, nil
	}
	err := x.row(ctx, `SELECT brand, last4 FROM test_cards WHERE id = ? AND user_id = ?`, p.PaymentMethodRef, p.UserID).
		Scan(&c.Brand, &c.Last4)
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Card{}, nil
	}
	return c, err
}

// queueCreditsGranted queues the notice of a period's plan credits.
func queueCreditsGranted(ctx context.Context, x q, userID int64, plan billing.Plan, credits, balance int64,
	period billing.Period, at time.Time) error {
	_, err := insertMail(ctx, x, notify.NewCreditsGranted(userID, notify.CreditsGranted{Plan: plan.ID, Credits: credits,
		Balance: balance, PeriodStart: period.Start, PeriodEnd: period.End, At: at}))
	return err
}
