package billing

import (
	"fmt"
	"time"
)

// A payment the customer starts (a subscription's first payment or an upgrade) is for one change of one
// subscription at one price (DESIGN.md section 5, Payments). It records the state of the account it was priced
// against (State.PricedState) and is open, meaning it can still be paid, until it is paid, declined for good,
// expires, is withdrawn, or the account changes under it. An account has at most one open payment (the store
// keeps that with a unique column), so repeated or parallel clicks answer the same payment instead of charging
// again. Payments the period job makes (renewals, overage) are not opened this way: they are priced by the period
// they close.

// PaymentTTL is how long an open payment can be paid. An unpaid one then expires: its price was computed for a
// moment that has passed (an upgrade's proration shrinks by the hour).
const PaymentTTL = 24 * time.Hour

// ProcessingTimeout is how long a payment may stay "processing" (our call to the provider in flight) before the
// next attempt treats it as abandoned, so that a server that died mid-call does not lock the account out of
// paying for a day. The provider's idempotency keys are per payment, so an abandoned call never completes twice.
const ProcessingTimeout = 5 * time.Minute

// What an open payment waits for (payments.awaiting).
const (
	// AwaitProcessing: our call to the provider is in flight.
	AwaitProcessing = "processing"
	// AwaitConfirmation: the browser confirms it with the card it collected (a new subscription).
	AwaitConfirmation = "requires_confirmation"
	// AwaitAction: the customer's bank asks them to authenticate (3-D Secure).
	AwaitAction = "requires_action"
	// AwaitPaymentMethod: the card was declined; another card is needed.
	AwaitPaymentMethod = "requires_payment_method"
)

// Provider actions a closed payment still owes the provider (payments.provider_action): an outbox that the
// billing job works through, so that a provider outage delays them but never loses them.
const (
	// ActionCancel withdraws the payment at the provider (a Stripe PaymentIntent, or the invoice or incomplete
	// subscription that made it), so that the browser can no longer pay it.
	ActionCancel = "cancel"
	// ActionRefund gives back money that moved for a payment that was no longer open when it was paid.
	ActionRefund = "refund"
	// ActionEndSubscription ends the account's subscription at the provider at once: a full refund of the payment
	// for the current period ended the plan here (issue 36, L-4), so the provider must not bill it again.
	ActionEndSubscription = "end_subscription"
)

// Customer-facing words about payments. The customer never sees a provider's internal error (which names
// internal URLs and request ids); the server log does.
const (
	MsgPaymentsUnavailable = "Payments are unavailable right now; you were not charged. Try again in a few minutes."
	msgWithdrawn           = "Closed before it was paid; nothing was charged."
	msgStale               = "Your subscription changed before this payment was made, so it no longer matches your plan; nothing was charged. Start the change again to see its current price."
	msgStaleRefunded       = "Your subscription changed before this payment went through, so it was refunded in full."
	msgSuperseded          = "Replaced by a newer payment; nothing was charged."
	msgAuthFailed          = "We are unable to authenticate your payment method. Please choose a different payment method and try again."
	MsgAuthRequired        = "Your bank asks you to confirm this payment."
)

// PricedState is the state of the account a customer's payment is priced against: its plan and period, whether it
// pays for a subscription and what is scheduled for the period end, and the last payment that settled. If any of
// these changes before the payment is paid, the payment no longer describes the change it was for (a downgrade took
// effect, a period closed, a cancellation ended, another payment settled) and is refused. The balance is left
// out: spending credits changes no price.
func (s State) PricedState() string {
	sub := "none"
	if s.Active() {
		sub = fmt.Sprintf("%s:%t:%s", s.Sub.Plan, s.Sub.CancelAtPeriodEnd, s.Sub.PendingPlan)
	}
	return fmt.Sprintf("%s|%d|%s|%d", Get(s.Plan).ID, s.Period.Start.Unix(), sub, s.LastSettledPayment)
}

// HasReceipt reports whether a payment has a receipt: only money that moved (paid, or paid and refunded).
func HasReceipt(status string) bool {
	return status == PaymentSucceeded || status == PaymentRefunded
}

// Plan change payment statuses (api/openapi.yaml PlanChange.paymentStatus).
const (
	ChangePaymentNone        = "none"
	ChangePaymentSucceeded   = "succeeded"
	ChangePaymentProcessing  = "processing"
	ChangePaymentAction      = AwaitAction
	ChangePaymentNeedsMethod = AwaitPaymentMethod
)

// ChangeStatus is what a plan change's payment asks of the customer now.
func (p PaymentRecord) ChangeStatus() string {
	switch {
	case p.Status == PaymentSucceeded:
		return ChangePaymentSucceeded
	case p.Status == PaymentFailed:
		return ChangePaymentNeedsMethod
	case p.Awaiting == AwaitAction || p.Awaiting == AwaitPaymentMethod:
		return p.Awaiting
	default:
		return ChangePaymentProcessing
	}
}

// NeedsBrowser reports whether the customer must act on an open payment in the browser (authenticate, or give
// another card), which is when its client secret is handed out.
func (p PaymentRecord) NeedsBrowser() bool {
	s := p.ChangeStatus()
	return p.Open && (s == ChangePaymentAction || s == ChangePaymentNeedsMethod)
}

// Closing is how an open payment closes: its status, the message the customer reads (empty: keep the one it has,
// such as a decline's), and what it still owes the provider.
type Closing struct {
	Status, Message, Action string
}

// closing keeps a declined payment's status and words (it is still "Declined" in the history) and otherwise takes
// status and message; a payment the provider knows of must be withdrawn there.
func closing(p PaymentRecord, status, message string) Closing {
	c := Closing{Status: status, Message: message}
	if p.Status == PaymentFailed {
		c.Status, c.Message = PaymentFailed, ""
	}
	if p.Ref != "" || p.Parent != "" {
		c.Action = ActionCancel
	}
	return c
}

// CloseExpired closes a payment not paid in time (PaymentTTL, or the server's VALUATOR_PAYMENT_TTL).
func CloseExpired(p PaymentRecord) Closing {
	return closing(p, PaymentExpired, fmt.Sprintf("Not paid within %s; nothing was charged.", spoken(p.ExpiresAt.Sub(p.CreatedAt))))
}

// spoken is a payment's time to live as a person says it: "24 hours", "30 minutes", "20 seconds".
func spoken(d time.Duration) string {
	unit, n := "second", int64(d/time.Second)
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		unit, n = "hour", int64(d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		unit, n = "minute", int64(d/time.Minute)
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// CloseWithdrawn closes a payment the customer walked away from (closed the card form).
func CloseWithdrawn(p PaymentRecord) Closing { return closing(p, PaymentCancelled, msgWithdrawn) }

// CloseSuperseded closes a payment for another change when the customer starts a new one.
func CloseSuperseded(p PaymentRecord) Closing { return closing(p, PaymentCancelled, msgSuperseded) }

// CloseDeclined closes a payment the provider refused outright (a card it would not even attach): it stays in the
// history as declined, with the provider's words.
func CloseDeclined(p PaymentRecord, message string) Closing {
	return closing(p, PaymentFailed, message)
}

// CloseStale closes a payment whose account changed under it (PricedState differs).
func CloseStale(p PaymentRecord) Closing { return closing(p, PaymentCancelled, msgStale) }

// CloseUnavailable closes a payment the provider could not be asked for.
func CloseUnavailable(p PaymentRecord) Closing {
	return closing(PaymentRecord{Ref: p.Ref, Parent: p.Parent}, PaymentCancelled, MsgPaymentsUnavailable)
}

// RefundStale is a stale payment that was paid all the same (the customer's browser paid it at the provider before
// it could be withdrawn there): the money goes back.
func RefundStale() Closing {
	return Closing{Status: PaymentRefunded, Message: msgStaleRefunded, Action: ActionRefund}
}

// AuthFailed is the decline of a payment whose authentication the customer failed (Stripe's message).
func AuthFailed() *CardError {
	return &CardError{Code: "payment_intent_authentication_failure", Message: msgAuthFailed}
}

// Due reports whether an open payment should be closed now, and how: it expired, or our call to the provider was
// abandoned mid-way, or the account changed under it (current is the account's PricedState now).
func (p PaymentRecord) Due(current string, now time.Time) (Closing, bool) {
	switch {
	case !p.Open:
		return Closing{}, false
	case !now.Before(p.ExpiresAt):
		return CloseExpired(p), true
	case p.Awaiting == AwaitProcessing && now.Sub(p.CreatedAt) >= ProcessingTimeout:
		return CloseUnavailable(p), true
	case p.PricedState != "" && p.PricedState != current:
		return CloseStale(p), true
	}
	return Closing{}, false
}

// Opening is what starting a customer's payment did: the locked state it was priced against, and the payment,
// new (Created) or the account's open one answered again.
type Opening struct {
	State   State
	Payment PaymentRecord
	Created bool
}

// Attempt is what the provider answered for an open payment.
type Attempt struct {
	Ref, SecretHash, Parent string
	// PaymentMethodRef is the card the attempt charged ("" keeps the payment's).
	PaymentMethodRef string
	AmountCents      int64
	// Status is PaymentPending or PaymentFailed (a decline, still open for another card); success is applied as
	// an event instead.
	Status, Awaiting, Message string
}

// PendingAction is a provider call a closed payment still owes (ActionCancel, ActionRefund or
// ActionEndSubscription).
type PendingAction struct {
	Action  string
	Payment PaymentRecord
	// SubscriptionRef is the provider's subscription of the payment's account (ActionEndSubscription).
	SubscriptionRef string
}

// EventResult is what applying a provider event did.
type EventResult struct {
	// Applied is false for a repeated delivery.
	Applied bool
	// Stale is a payment that was paid when it was no longer open (the account had changed under it): nothing
	// was granted, and it was refused (test mode) or is refunded (Stripe).
	Stale   bool
	Payment PaymentRecord
	// UserID is the account the event changed (0 for none).
	UserID int64
}

// PaymentView is a payment as the API shows it (api/openapi.yaml PaymentRecord).
type PaymentView struct {
	ID             int64      `json:"id"`
	CreatedAt      string     `json:"createdAt"`
	Kind           string     `json:"kind"`
	PlanType       string     `json:"planType"`
	Description    string     `json:"description"`
	AmountCents    int64      `json:"amountCents"`
	Amount         float64    `json:"amount"`
	Status         string     `json:"status"`
	Open           bool       `json:"open"`
	ExpiresAt      *time.Time `json:"expiresAt"`
	FailureMessage string     `json:"failureMessage"`
	ReceiptURL     *string    `json:"receiptUrl"`
}

// ViewPayment is a payment as the API shows it: a receipt only for money that moved.
func ViewPayment(p PaymentRecord) PaymentView {
	v := PaymentView{ID: p.ID, CreatedAt: p.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), Kind: p.Kind,
		PlanType: p.Plan, Description: p.Description, AmountCents: p.AmountCents, Amount: ToDollars(p.AmountCents),
		Status: p.Status, Open: p.Open, FailureMessage: p.FailureMessage}
	if p.Open && !p.ExpiresAt.IsZero() {
		at := p.ExpiresAt.UTC()
		v.ExpiresAt = &at
	}
	if HasReceipt(p.Status) {
		u := fmt.Sprintf("/api/billing/payments/%d/receipt", p.ID)
		v.ReceiptURL = &u
	}
	return v
}
