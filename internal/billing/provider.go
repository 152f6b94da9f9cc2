package billing

import (
	"context"
	"errors"
	"time"
)

// Modes of payment.
const (
	// ModeTest is the local test mode: a built-in card form that accepts Stripe's documented test cards and
	// records payments in the database. It is the default when no Stripe key is set, so `make run` works offline,
	// and is never on in production unless explicitly enabled.
	ModeTest = "test"
	// ModeStripe takes real (or Stripe test-mode) payments through Stripe.
	ModeStripe = "stripe"
)

// Provider is a payments provider. It moves money; it never grants credits. Credits follow only from an Event
// (a verified webhook, or the local test mode's confirmation, which goes through the same Service.HandleEvent).
type Provider interface {
	// Mode is ModeTest or ModeStripe.
	Mode() string
	// PublishableKey is the key the browser's card form uses ("" in test mode).
	PublishableKey() string
	// Subscribe starts a subscription to a paid plan, paid with the payment method the browser made, and returns
	// its first payment for the browser to confirm with the client secret.
	Subscribe(ctx context.Context, r SubscribeRequest) (SubscribeResult, error)
	// Upgrade moves a subscription to a dearer plan at once and charges the prorated amount to the card on file,
	// off-session. The payment answers PaymentSucceeded when it was paid, or PaymentPending with Awaiting
	// AwaitAction (the bank asks the customer to authenticate) or AwaitPaymentMethod (the card was declined;
	// FailureMessage says why) and a ClientSecret for the browser.
	Upgrade(ctx context.Context, r ChangeRequest) (Payment, error)
	// Downgrade bills the subscription at the cheaper plan from its next period, with no proration.
	Downgrade(ctx context.Context, r ChangeRequest) error
	// Cancel ends the subscription at the end of its period.
	Cancel(ctx context.Context, customerID, subscriptionID string) error
	// Renew bills a new period of a subscription. Stripe bills renewals itself and answers a Payment without a
	// Ref (its invoice.paid event follows); the test mode charges the saved test card and answers the outcome.
	Renew(ctx context.Context, r RenewRequest) (Payment, error)
	// BillOverage bills overage credits of an ended period (an invoice item on Stripe); it returns the provider's
	// reference.
	BillOverage(ctx context.Context, r OverageRequest) (string, error)
	// ParseWebhook verifies a webhook's signature header and reads its event. A bad signature is ErrSignature.
	ParseWebhook(payload []byte, signature string, now time.Time) (Event, error)
	// SetPaymentMethod makes a card the subscription's card on file and answers what is kept of it. A card the
	// provider refuses is a *CardError.
	SetPaymentMethod(ctx context.Context, r CardRequest) (Card, error)
	// ClientSecret is an open payment's client secret, for a repeated request that answers the same payment.
	ClientSecret(ctx context.Context, p PaymentRecord) (string, error)
	// CancelPayment withdraws an unpaid payment (and what made it: Parent) so that it can no longer be paid.
	CancelPayment(ctx context.Context, p PaymentRecord) error
	// Refund gives back a paid payment that came too late (stale): the money in full, and a subscription it
	// started is cancelled, since the change it paid for did not happen.
	Refund(ctx context.Context, p PaymentRecord) error
	// RefundPayment is an operator's refund (the admin console): the money in full, the subscription left as it
	// is. When the refund rule then ends the plan (the payment of the current period), the subscription is ended
	// through EndSubscription, the provider outbox's end_subscription.
	RefundPayment(ctx context.Context, p PaymentRecord) error
	// EndSubscription ends a subscription at once, without a refund or a proration of its own: a full refund
	// ended the plan (issue 36, L-4). A subscription already ended is not an error.
	EndSubscription(ctx context.Context, subscriptionID string) error
}

// CardRequest replaces the card on file.
type CardRequest struct {
	UserID          int64
	CustomerID      string
	SubscriptionID  string
	PaymentMethodID string
}

// ErrUnknownPaymentMethod is a payment method that is not the customer's (the test mode's own check; Stripe
// answers a CardError or an API error).
var ErrUnknownPaymentMethod = errors.New("unknown payment method")

// SubscribeRequest starts a subscription.
type SubscribeRequest struct {
	UserID int64
	Email  string
	Name   string
	// CustomerID is the provider's customer from an earlier attempt ("" makes one).
	CustomerID      string
	Plan            Plan
	PaymentMethodID string
	// PaymentID is our payments row, carried in the provider's metadata so a webhook can be traced to it.
	PaymentID int64
}

// SubscribeResult is a started subscription awaiting its first payment.
type SubscribeResult struct {
	CustomerID     string
	SubscriptionID string
	Payment        Payment
	// Card is what is kept of the card that pays (empty when the provider did not say).
	Card Card
}

// ChangeRequest changes a subscription's plan.
type ChangeRequest struct {
	UserID         int64
	CustomerID     string
	SubscriptionID string
	From, To       Plan
	// Proration is our prorated charge for an upgrade (the test mode charges it; Stripe computes its own).
	Proration Proration
	// Resume also clears a cancellation at period end: choosing a plan means the customer stays.
	Resume    bool
	PaymentID int64
	// PaymentMethodID is the card on file, which pays an upgrade.
	PaymentMethodID string
}

// RenewRequest bills a subscription's new period.
type RenewRequest struct {
	UserID          int64
	CustomerID      string
	SubscriptionID  string
	PaymentMethodID string
	Plan            Plan
	Period          Period
	PaymentID       int64
}

// OverageRequest bills an ended period's overage.
type OverageRequest struct {
	UserID         int64
	CustomerID     string
	SubscriptionID string
	Credits        int64
	AmountCents    int64
	Period         Period
	PaymentID      int64
}

// Payment statuses, as our payments table records them.
const (
	PaymentPending   = "pending"
	PaymentSucceeded = "succeeded"
	PaymentFailed    = "failed"
	PaymentRefunded  = "refunded"
	// PaymentExpired was not paid within PaymentTTL.
	PaymentExpired = "expired"
	// PaymentCancelled was withdrawn before any money moved (the customer closed it, the account changed under
	// it, or the provider could not be reached).
	PaymentCancelled = "cancelled"
	// PaymentInvoiced is a charge handed to the provider's next invoice (Stripe overage).
	PaymentInvoiced = "invoiced"
)

// Payment is one charge at the provider.
type Payment struct {
	// Ref is the provider's ID of the payment (a PaymentIntent); "" when the provider bills it itself later.
	Ref string
	// ClientSecret lets the browser confirm the payment with the card it collects.
	ClientSecret string
	AmountCents  int64
	// Status is PaymentPending (awaiting the browser), PaymentSucceeded or PaymentFailed.
	Status string
	// Awaiting says what a pending payment waits for (AwaitConfirmation, AwaitAction, AwaitPaymentMethod).
	Awaiting string
	// FailureMessage is the provider's words for a failed payment, or for what the browser must do.
	FailureMessage string
	// Parent is what made the payment at the provider and is withdrawn with it (an invoice or a subscription).
	Parent string
}

// EventType is what happened, in the provider-neutral terms the Service acts on.
type EventType string

const (
	// EventPaymentSucceeded: a payment we created (Ref) was paid.
	EventPaymentSucceeded EventType = "payment.succeeded"
	// EventPaymentFailed: a payment we created was declined.
	EventPaymentFailed EventType = "payment.failed"
	// EventRenewalPaid: the provider billed and was paid for a subscription's new period by itself.
	EventRenewalPaid EventType = "renewal.paid"
	// EventRenewalFailed: the provider could not collect a renewal; the subscription is past due.
	EventRenewalFailed EventType = "renewal.failed"
	// EventSubscriptionEnded: the provider ended a subscription (cancelled at period end, or unpaid).
	EventSubscriptionEnded EventType = "subscription.ended"
	// EventPaymentRefunded: a paid payment was refunded; the credits it bought are taken back.
	EventPaymentRefunded EventType = "payment.refunded"
	// EventIgnored: a verified event of a type we do not act on.
	EventIgnored EventType = "ignored"
)

// Event is a verified provider event. ID is unique per provider; an event is applied once however often it is
// delivered.
type Event struct {
	ID              string
	Type            EventType
	PaymentRef      string
	SubscriptionRef string
	AmountCents     int64
	FailureMessage  string
	// PeriodStart is the start of the period a renewal paid for.
	PeriodStart time.Time
	Created     time.Time
}

// ErrSignature is a webhook whose signature does not verify.
var ErrSignature = errors.New("webhook signature does not verify")

// CardError is a card the provider refused, with the provider's own words, which the customer sees.
type CardError struct {
	Code    string // card_declined, expired_card, incorrect_cvc, ...
	Message string
	// Field names the card field at fault when the error is about the form ("number", "expMonth", "cvc").
	Field string
}

func (e *CardError) Error() string { return e.Message }
