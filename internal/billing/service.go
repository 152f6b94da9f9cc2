package billing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"valuator/internal/apperr"
)

// Payment kinds.
const (
	KindSubscription = "subscription"
	KindUpgrade      = "upgrade"
	KindRenewal      = "renewal"
	KindOverage      = "overage"
)

// PaymentRecord is one row of the payments table: a charge, what it was for and how it ended.
type PaymentRecord struct {
	ID             int64
	UserID         int64
	Provider       string
	Ref            string
	Kind           string
	Plan           string
	FromPlan       string
	AmountCents    int64
	Credits        int64
	Status         string
	Description    string
	FailureMessage string
	Period         Period
	DedupeKey      string
	CreatedAt      time.Time

	// PaymentMethodRef is the card the payment charges (the card on file, or the card the customer gave).
	PaymentMethodRef string
	// Parent is what made the payment at the provider, withdrawn with it: an incomplete subscription or an
	// invoice ("" when the payment stands alone or the provider has none).
	Parent string
	// Open reports whether the payment can still be paid (see payment.go); only a customer's payments open.
	Open bool
	// ExpiresAt is when an open payment expires.
	ExpiresAt time.Time
	// PricedState is State.PricedState when the payment was priced ("" for the period job's payments).
	PricedState string
	// Awaiting is what an open payment waits for (AwaitProcessing, AwaitConfirmation, AwaitAction,
	// AwaitPaymentMethod).
	Awaiting string
}

// Roll is what closing an account's due periods did: the payments it made that the provider must now bill
// (renewals and overage), which happens after the closing transaction commits.
type Roll struct {
	Rolled   bool
	Payments []PaymentRecord
	Sub      *Sub
}

// Store is what billing needs from the database. Every method that changes credits does so through the ledger in
// its own transaction, and every transaction that changes what a payment is priced against closes the account's
// open payment when it no longer matches (PaymentRecord.Due).
type Store interface {
	BillingState(ctx context.Context, userID int64, now time.Time) (State, error)
	// OpenPayment starts a customer's payment under the account's lock: decide sees the locked state and the
	// account's open payment, and answers the payment to open (closing the open one) or nil to answer the open
	// one again.
	OpenPayment(ctx context.Context, userID int64, now time.Time,
		decide func(st State, open *PaymentRecord) (*PaymentRecord, error)) (Opening, error)
	// RecordAttempt records what the provider answered for an open payment.
	RecordAttempt(ctx context.Context, paymentID int64, a Attempt, now time.Time) (PaymentRecord, error)
	// ClosePayment closes one of the user's payments if it is open (ok false when it was not; ErrNotFound when it
	// is not theirs).
	ClosePayment(ctx context.Context, userID, paymentID int64, how func(PaymentRecord) Closing, now time.Time) (
		PaymentRecord, bool, error)
	// SweepOpenPayments closes the open payments that are due (expired, abandoned, stale); CloseDuePayment the
	// user's.
	SweepOpenPayments(ctx context.Context, now time.Time) (int, error)
	CloseDuePayment(ctx context.Context, userID int64, now time.Time) error
	// ProviderActions is up to limit provider calls closed payments still owe (of one user, or all for 0).
	ProviderActions(ctx context.Context, userID int64, limit int) ([]PendingAction, error)
	ProviderActionDone(ctx context.Context, paymentID int64, action string, at time.Time) error
	// AttachPayment records the provider's reference (and a test-mode secret's hash) and amount of a payment the
	// period job made.
	AttachPayment(ctx context.Context, paymentID int64, ref, secretHash string, amountCents int64, at time.Time) error
	// FailPayment marks a pending payment of the period job failed with the provider's message.
	FailPayment(ctx context.Context, paymentID int64, message string, at time.Time) error
	SaveSubscription(ctx context.Context, userID int64, sub Sub, at time.Time) error
	// SaveCard makes a card the subscription's card on file.
	SaveCard(ctx context.Context, userID int64, paymentMethodRef string, c Card, at time.Time) error
	// ScheduleChange sets or clears a downgrade and the cancellation at period end of an active subscription.
	ScheduleChange(ctx context.Context, userID int64, pendingPlan string, cancel bool, at time.Time) error
	// ApplyEvent applies a provider event once (Applied false for a repeated delivery), with its credits, in one
	// transaction.
	ApplyEvent(ctx context.Context, provider string, ev Event, now time.Time) (EventResult, error)
	// RollPeriod closes the account's periods that ended by now, in one transaction; a second run finds nothing due.
	RollPeriod(ctx context.Context, userID int64, now time.Time) (Roll, error)
	DuePeriods(ctx context.Context, now time.Time, limit int) ([]int64, error)
	SaveTestCard(ctx context.Context, userID int64, id string, c CheckedCard, at time.Time) error
	TestCard(ctx context.Context, userID int64, id string) (CheckedCard, error)
	PaymentBySecret(ctx context.Context, userID int64, secretHash string) (PaymentRecord, error)
	// Payment is one of the user's payments (ErrNotFound for another user's); Payments a page of them.
	Payment(ctx context.Context, userID, id int64) (PaymentRecord, error)
	Payments(ctx context.Context, userID, before int64, limit int) ([]PaymentRecord, bool, error)
	// SetOverageLimit saves the user's overage limit in cents (nil: no limit).
	SetOverageLimit(ctx context.Context, userID int64, cents *int64, at time.Time) error
}

// ErrNotFound is a row that does not exist or is not the user's.
var ErrNotFound = errors.New("not found")

// Service joins the billing rules, the store and the payments provider.
type Service struct {
	Store    Store
	Provider Provider // nil: payments are not configured (billing config says "disabled")
	Log      *slog.Logger
	Now      func() time.Time
	// PaymentTTL is how long a payment the customer starts can be paid (0: billing.PaymentTTL, 24 hours).
	PaymentTTL time.Duration
}

// expiry is when a payment opened now expires.
func (s *Service) expiry(now time.Time) time.Time {
	if s.PaymentTTL > 0 {
		return now.Add(s.PaymentTTL)
	}
	return now.Add(PaymentTTL)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Mode is the payment mode the app shows: ModeTest, ModeStripe or "disabled".
func (s *Service) Mode() string {
	if s.Provider == nil {
		return "disabled"
	}
	return s.Provider.Mode()
}

// errNotConfigured is why a server without a payments provider takes no payment: the customer reads the same words
// as for a provider outage, the operator the cause (logged as a warning: it is configuration, not a fault).
var errNotConfigured = errors.New("payments are not configured on this server: set VALUATOR_STRIPE_SECRET_KEY, " +
	"VALUATOR_STRIPE_PUBLISHABLE_KEY and VALUATOR_STRIPE_WEBHOOK_SECRET, or VALUATOR_BILLING_TEST_MODE=true")

func (s *Service) provider() (Provider, error) {
	if s.Provider == nil {
		return nil, &apperr.Error{Kind: apperr.KindUnavailable, Code: "payments_not_configured",
			Message: MsgPaymentsUnavailable, Err: errNotConfigured}
	}
	return s.Provider, nil
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Subscription is the account's subscription as the API shows it.
func (s *Service) Subscription(ctx context.Context, userID int64) (SubscriptionView, error) {
	st, err := s.Store.BillingState(ctx, userID, s.now())
	return ViewSubscription(st), err
}

// Usage is the account's metered usage of the current period.
func (s *Service) Usage(ctx context.Context, userID int64) (MeteredUsage, error) {
	st, err := s.Store.BillingState(ctx, userID, s.now())
	return ViewMeteredUsage(st), err
}

// OverageLimit is the user's overage limit in cents (nil: no limit).
func (s *Service) OverageLimit(ctx context.Context, userID int64) (*int64, error) {
	st, err := s.Store.BillingState(ctx, userID, s.now())
	return st.OverageLimitCents, err
}

// SetOverageLimit sets the user's overage limit from the `limit` of PUT /api/user/overage-limit (ParseOverageLimit)
// and returns it in cents (nil: no limit).
func (s *Service) SetOverageLimit(ctx context.Context, userID int64, limit json.RawMessage) (*int64, error) {
	cents, err := ParseOverageLimit(limit)
	if err != nil {
		return nil, err
	}
	return cents, s.Store.SetOverageLimit(ctx, userID, cents, s.now())
}

// Payments is a page of the user's payments, newest first, older than before (0: from the newest). An open payment
// that is due (expired, or its account changed) is closed first, so the history never shows it as pending.
func (s *Service) Payments(ctx context.Context, userID, before int64, limit int) ([]PaymentRecord, bool, error) {
	if err := s.Store.CloseDuePayment(ctx, userID, s.now()); err != nil {
		return nil, false, err
	}
	s.flushProviderActions(ctx, userID)
	return s.Store.Payments(ctx, userID, before, limit)
}

// Payment is one of the user's payments as the API shows it.
func (s *Service) Payment(ctx context.Context, userID, id int64) (PaymentRecord, error) {
	p, err := s.Store.Payment(ctx, userID, id)
	if errors.Is(err, ErrNotFound) {
		return p, apperr.NotFound("payment_not_found", "Payment not found")
	}
	return p, err
}

// secretHash is what the store keeps of a client secret: its hash in test mode (the app itself checks it when the
// payment is confirmed), nothing for Stripe (which checks its own).
func secretHash(p Provider, secret string) string {
	if p.Mode() != ModeTest || secret == "" {
		return ""
	}
	return hashSecret(secret)
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
