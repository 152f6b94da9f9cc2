package billing

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"
)

// TestCards finds a customer's test-mode card (the store's test_cards).
type TestCards interface {
	TestCard(ctx context.Context, userID int64, id string) (CheckedCard, error)
}

// Local is the test-mode payments provider: no money moves and nothing leaves the machine. It answers the way
// Stripe's test mode does for Stripe's documented test cards: declining cards cannot be attached, the card on file
// pays upgrades off-session (or asks for authentication, or declines), and a payment the browser must confirm is
// confirmed by the app's own test-mode call (Service.ConfirmTestPayment), which goes through Service.HandleEvent
// like a Stripe webhook, so the flow from card form to credits is the same in both modes.
type Local struct {
	// Cards finds the customer's test cards.
	Cards TestCards
	// Key derives client secrets from payment references, so that a repeated request can answer an open
	// payment's secret again while the database keeps only its hash. The server secret in production; empty in
	// tests.
	Key []byte
}

// Mode is ModeTest.
func (Local) Mode() string { return ModeTest }

// PublishableKey is empty: the test-mode form posts to the app itself.
func (Local) PublishableKey() string { return "" }

// card is the customer's test card, attached as Stripe attaches a payment method: a declining card is refused.
func (l Local) card(ctx context.Context, userID int64, id string) (CheckedCard, error) {
	if l.Cards == nil {
		return CheckedCard{}, errors.New("test mode: no test card store")
	}
	c, err := l.Cards.TestCard(ctx, userID, id)
	if errors.Is(err, ErrNotFound) {
		return c, ErrUnknownPaymentMethod
	}
	return c, err
}

// Subscribe starts a test subscription whose first payment awaits confirmation in the browser.
func (l Local) Subscribe(ctx context.Context, r SubscribeRequest) (SubscribeResult, error) {
	c, err := l.card(ctx, r.UserID, r.PaymentMethodID)
	if err != nil {
		return SubscribeResult{}, err
	}
	customer := r.CustomerID
	if customer == "" {
		customer = fmt.Sprintf("cus_test_%d", r.UserID)
	}
	res := SubscribeResult{CustomerID: customer, Card: c.Card}
	if err := c.Attach(); err != nil {
		return res, err
	}
	res.SubscriptionID = "sub_test_" + randomID()
	res.Payment = l.pending(r.Plan.PriceCents, AwaitConfirmation)
	res.Payment.Parent = res.SubscriptionID
	return res, nil
}

// Upgrade charges the prorated amount we computed to the card on file, off-session, as Stripe charges an upgrade's
// invoice.
func (l Local) Upgrade(ctx context.Context, r ChangeRequest) (Payment, error) {
	c, err := l.card(ctx, r.UserID, r.PaymentMethodID)
	if errors.Is(err, ErrUnknownPaymentMethod) {
		// No usable card on file: the browser collects one.
		p := l.pending(r.Proration.ChargeCents, AwaitPaymentMethod)
		p.FailureMessage = "There is no card on file. Enter a card to pay."
		return p, nil
	}
	if err != nil {
		return Payment{}, err
	}
	if r.Proration.ChargeCents == 0 {
		return Payment{Status: PaymentSucceeded}, nil
	}
	switch ch := c.Charge(false); {
	case ch.Paid:
		p := l.pending(r.Proration.ChargeCents, "")
		p.Status, p.ClientSecret = PaymentSucceeded, ""
		return p, nil
	case ch.NeedsAuth:
		p := l.pending(r.Proration.ChargeCents, AwaitAction)
		p.FailureMessage = MsgAuthRequired
		return p, nil
	default:
		p := l.pending(r.Proration.ChargeCents, AwaitPaymentMethod)
		p.Status, p.FailureMessage = PaymentFailed, ch.Decline.Message
		return p, nil
	}
}

// Downgrade has nothing to tell a provider that keeps no schedule of its own.
func (Local) Downgrade(context.Context, ChangeRequest) error { return nil }

// Cancel likewise: the period job ends the subscription at period end.
func (Local) Cancel(context.Context, string, string) error { return nil }

// Renew charges the saved test card: the Service confirms the payment with it at once.
func (l Local) Renew(_ context.Context, r RenewRequest) (Payment, error) {
	return l.pending(r.Plan.PriceCents, AwaitConfirmation), nil
}

// BillOverage charges the saved test card for the overage, which in test mode always succeeds.
func (Local) BillOverage(context.Context, OverageRequest) (string, error) {
	return "pi_test_" + randomID(), nil
}

// ParseWebhook: the test mode has no webhooks (its events are made by the confirmation call).
func (Local) ParseWebhook([]byte, string, time.Time) (Event, error) {
	return Event{}, errors.New("webhooks are not used in test mode")
}

// SetPaymentMethod attaches the customer's test card, refusing the declining ones as Stripe does.
func (l Local) SetPaymentMethod(ctx context.Context, r CardRequest) (Card, error) {
	c, err := l.card(ctx, r.UserID, r.PaymentMethodID)
	if err != nil {
		return Card{}, err
	}
	return c.Card, c.Attach()
}

// ClientSecret derives the payment's client secret again.
func (l Local) ClientSecret(_ context.Context, p PaymentRecord) (string, error) {
	if p.Ref == "" {
		return "", errors.New("test mode: the payment has no reference yet")
	}
	return l.secret(p.Ref), nil
}

// CancelPayment and Refund have nothing to tell a provider that moves no money: the store's record is all there is.
func (Local) CancelPayment(context.Context, PaymentRecord) error { return nil }

// Refund: see CancelPayment.
func (Local) Refund(context.Context, PaymentRecord) error { return nil }

// RefundPayment has no money to move either.
func (Local) RefundPayment(context.Context, PaymentRecord) error { return nil }

// EndSubscription has nothing to end: the store's subscription row is all there is.
func (Local) EndSubscription(context.Context, string) error { return nil }

func (l Local) pending(amount int64, awaiting string) Payment {
	id := "pi_test_" + randomID()
	return Payment{Ref: id, ClientSecret: l.secret(id), AmountCents: amount, Status: PaymentPending, Awaiting: awaiting}
}

// secret is a payment's client secret: its reference and an HMAC of it, in Stripe's "pi_X_secret_Y" form.
func (l Local) secret(ref string) string {
	m := hmac.New(sha256.New, l.Key)
	m.Write([]byte(ref))
	return ref + "_secret_" + base62(m.Sum(nil)[:18])
}

// randomID is 24 random base-62 characters (about 143 bits): test-mode IDs.
func randomID() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base62(b)
}

// base62 maps each byte to a base-62 character (not an exact base conversion; enough for opaque IDs).
func base62(b []byte) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(out)
}
