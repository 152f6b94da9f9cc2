package billing

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"
)

// Local is the test-mode payments provider: no money moves and nothing leaves the machine. Its payments are
// confirmed by the app's own test-mode confirmation call (Service.ConfirmTestPayment), which judges the test card
// the way Stripe's test mode would and then goes through Service.HandleEvent like a Stripe webhook, so the flow
// from card form to credits is the same in both modes.
type Local struct{}

// Mode is ModeTest.
func (Local) Mode() string { return ModeTest }

// PublishableKey is empty: the test-mode form posts to the app itself.
func (Local) PublishableKey() string { return "" }

// Subscribe starts a test subscription whose first payment awaits confirmation.
func (l Local) Subscribe(_ context.Context, r SubscribeRequest) (SubscribeResult, error) {
	customer := r.CustomerID
	if customer == "" {
		customer = fmt.Sprintf("cus_test_%d", r.UserID)
	}
	return SubscribeResult{CustomerID: customer, SubscriptionID: "sub_test_" + randomID(),
		Payment: l.pending(r.Plan.PriceCents)}, nil
}

// Upgrade answers the prorated payment we computed, awaiting confirmation.
func (l Local) Upgrade(_ context.Context, r ChangeRequest) (Payment, error) {
	return l.pending(r.Proration.ChargeCents), nil
}

// Downgrade has nothing to tell a provider that keeps no schedule of its own.
func (Local) Downgrade(context.Context, ChangeRequest) error { return nil }

// Cancel likewise: the period job ends the subscription at period end.
func (Local) Cancel(context.Context, string, string) error { return nil }

// Renew charges the saved test card: the Service confirms the payment with it at once.
func (l Local) Renew(_ context.Context, r RenewRequest) (Payment, error) {
	return l.pending(r.Plan.PriceCents), nil
}

// BillOverage charges the saved test card for the overage, which in test mode always succeeds.
func (Local) BillOverage(context.Context, OverageRequest) (string, error) {
	return "pi_test_" + randomID(), nil
}

// ParseWebhook: the test mode has no webhooks (its events are made by the confirmation call).
func (Local) ParseWebhook([]byte, string, time.Time) (Event, error) {
	return Event{}, errors.New("webhooks are not used in test mode")
}

func (Local) pending(amount int64) Payment {
	id := "pi_test_" + randomID()
	return Payment{Ref: id, ClientSecret: id + "_secret_" + randomID(), AmountCents: amount, Status: PaymentPending}
}

// randomID is 24 random base-62 characters (about 143 bits): test-mode IDs and client secrets.
func randomID() string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
