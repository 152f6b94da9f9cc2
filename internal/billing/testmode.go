package billing

import (
	"context"
	"errors"

	"valuator/internal/apperr"
)

// The test mode's own calls: the card form's payment methods and the confirmation Stripe.js would make in the
// browser, answering Stripe's documented test cards as Stripe's test mode does.

// TestPaymentMethod is what the test-mode card form gets back (api/openapi.yaml PaymentMethod).
type TestPaymentMethod struct {
	ID string `json:"id"`
	Card
}

// CreateTestCard checks a test card and keeps its brand, last four digits and outcome.
func (s *Service) CreateTestCard(ctx context.Context, userID int64, in TestCardInput) (TestPaymentMethod, error) {
	if s.Mode() != ModeTest {
		return TestPaymentMethod{}, apperr.NotFound("not_found", "Test mode is not enabled on this server.")
	}
	now := s.now()
	c, err := CheckTestCard(in, now)
	if err != nil {
		var ce *CardError
		if errors.As(err, &ce) {
			return TestPaymentMethod{}, &apperr.Error{Kind: apperr.KindInvalid, Code: ce.Code, Field: ce.Field,
				Message: ce.Message, Fields: map[string]string{ce.Field: ce.Message}}
		}
		return TestPaymentMethod{}, err
	}
	id := "pm_test_" + randomID()
	if err := s.Store.SaveTestCard(ctx, userID, id, c, now); err != nil {
		return TestPaymentMethod{}, err
	}
	return TestPaymentMethod{ID: id, Card: c.Card}, nil
}

// Test-mode authentication answers (api/openapi.yaml TestConfirmRequest.authentication).
const (
	AuthComplete = "complete"
	AuthFail     = "fail"
)

// TestConfirmation is what confirming a test payment asks (api/openapi.yaml TestConfirmRequest).
type TestConfirmation struct {
	ClientSecret string
	// PaymentMethodID is the card to pay with; "" pays with the payment's own card (the card on file).
	PaymentMethodID string
	// Authentication answers the test bank's authentication of a payment that requires action.
	Authentication string
}

// TestConfirmResult is its answer (api/openapi.yaml TestConfirmResult).
type TestConfirmResult struct {
	Status  string  `json:"status"`
	Message *string `json:"message"`
}

// ConfirmTestPayment confirms a test-mode payment by its client secret, as Stripe's confirmCardPayment does in the
// browser: the card's outcome becomes the provider event, applied through HandleEvent like a webhook. A declined
// card answers 402 with Stripe's message and leaves the payment open for another card; a card that needs
// authentication answers requires_action until the test bank's authentication is answered; a payment that is no
// longer open, or whose account changed since it was priced, answers 409 and charges nothing. Confirming a paid
// payment again answers paid, however many confirmations run at once.
func (s *Service) ConfirmTestPayment(ctx context.Context, userID int64, in TestConfirmation) (TestConfirmResult, error) {
	paid := TestConfirmResult{Status: PaymentSucceeded}
	if s.Mode() != ModeTest {
		return paid, apperr.NotFound("not_found", "Test mode is not enabled on this server.")
	}
	pay, err := s.Store.PaymentBySecret(ctx, userID, hashSecret(in.ClientSecret))
	if errors.Is(err, ErrNotFound) {
		return paid, apperr.Invalid("clientSecret", "No payment of yours awaits confirmation with this client secret.")
	}
	if err != nil {
		return paid, err
	}
	switch {
	case pay.Status == PaymentSucceeded:
		return paid, nil // confirming twice is harmless, as on Stripe
	case !pay.Open:
		return paid, closedPayment(pay)
	case pay.Awaiting == AwaitProcessing:
		return paid, apperr.Conflict("payment_processing", "clientSecret",
			"This payment is being processed. Look at your payment history in a moment.")
	}
	ev := Event{ID: "evt_test_" + randomID(), Type: EventPaymentSucceeded, PaymentRef: pay.Ref,
		AmountCents: pay.AmountCents, Created: s.now()}
	switch {
	case in.Authentication != "":
		if pay.Awaiting != AwaitAction {
			return paid, apperr.Invalid("authentication", "This payment is not waiting for authentication.")
		}
		if in.Authentication != AuthComplete {
			ev.Type, ev.FailureMessage = EventPaymentFailed, AuthFailed().Message
		}
	default:
		pm := in.PaymentMethodID
		if pm == "" {
			pm = pay.PaymentMethodRef
		}
		card, err := s.Store.TestCard(ctx, userID, pm)
		if errors.Is(err, ErrNotFound) {
			return paid, apperr.Invalid("paymentMethodId", "This payment method does not exist. Enter your card details again.")
		}
		if err != nil {
			return paid, err
		}
		switch ch := card.Charge(true); {
		case ch.NeedsAuth:
			msg := MsgAuthRequired
			if _, err := s.Store.RecordAttempt(ctx, pay.ID, Attempt{AmountCents: pay.AmountCents, Status: PaymentPending,
				Awaiting: AwaitAction, Message: msg, PaymentMethodRef: pm}, s.now()); err != nil {
				return paid, err
			}
			return TestConfirmResult{Status: AwaitAction, Message: &msg}, nil
		case ch.Decline != nil:
			ev.Type, ev.FailureMessage = EventPaymentFailed, ch.Decline.Message
		}
	}
	res, err := s.HandleEvent(ctx, ev)
	if err != nil {
		return paid, err
	}
	if res.Stale {
		return paid, closedPayment(res.Payment)
	}
	if ev.Type == EventPaymentFailed {
		code := "card_declined"
		if in.Authentication != "" {
			code = AuthFailed().Code
		}
		return paid, &apperr.Error{Kind: apperr.KindPaymentRequired, Code: code, Message: ev.FailureMessage}
	}
	if res.Payment.ID != 0 && res.Payment.Status != PaymentSucceeded {
		return paid, closedPayment(res.Payment)
	}
	return paid, nil
}
