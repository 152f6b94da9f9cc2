package billing

import (
	"strings"
	"time"
)

// The local test mode answers cards the way Stripe's test mode does (https://docs.stripe.com/testing): the
// documented test numbers succeed or fail with Stripe's own codes and messages, a number that fails the Luhn check
// is "incorrect", and any other number is refused as a real card used in test mode.

// Outcomes of a test card when a payment is confirmed with it (test_cards.outcome); any other outcome is a decline
// code, whose card Stripe refuses to attach to a customer.
const (
	OutcomeSucceed = "succeed"
	// OutcomeAuthFirst (4000 0025 0000 3155) asks for authentication when it pays in the browser, and not when
	// it is charged later as the card on file: Stripe's "authenticate unless set up" card.
	OutcomeAuthFirst = "authenticate_first"
	// OutcomeAuthAlways (4000 0027 6000 3184) asks for authentication on every payment, off-session ones too.
	OutcomeAuthAlways = "authenticate_always"
	// OutcomeChargeDeclined (4000 0000 0000 0341) attaches to a customer, but every charge is declined.
	OutcomeChargeDeclined = "charge_declined"
)

type testCard struct {
	brand string
	// outcome is OutcomeSucceed, an authentication outcome, or a decline code; message is Stripe's words for a
	// decline.
	outcome, message string
}

const msgDeclined = "Your card was declined."

var testCards = map[string]testCard{
	"4242424242424242": {brand: "visa", outcome: OutcomeSucceed},
	"4000056655665556": {brand: "visa", outcome: OutcomeSucceed},
	"5555555555554444": {brand: "mastercard", outcome: OutcomeSucceed},
	"2223003122003222": {brand: "mastercard", outcome: OutcomeSucceed},
	"5200828282828210": {brand: "mastercard", outcome: OutcomeSucceed},
	"378282246310005":  {brand: "amex", outcome: OutcomeSucceed},
	"371449635398431":  {brand: "amex", outcome: OutcomeSucceed},
	"6011111111111117": {brand: "discover", outcome: OutcomeSucceed},
	"4000002500003155": {brand: "visa", outcome: OutcomeAuthFirst},
	"4000002760003184": {brand: "visa", outcome: OutcomeAuthAlways},
	"4000000000000341": {brand: "visa", outcome: OutcomeChargeDeclined, message: msgDeclined},
	"4000000000000002": {brand: "visa", outcome: "card_declined", message: msgDeclined},
	"4000000000009995": {brand: "visa", outcome: "insufficient_funds", message: "Your card has insufficient funds."},
	"4000000000009987": {brand: "visa", outcome: "lost_card", message: msgDeclined},
	"4000000000009979": {brand: "visa", outcome: "stolen_card", message: msgDeclined},
	"4000000000000069": {brand: "visa", outcome: "expired_card", message: "Your card has expired."},
	"4000000000000127": {brand: "visa", outcome: "incorrect_cvc", message: "Your card's security code is incorrect."},
	"4000000000000119": {brand: "visa", outcome: "processing_error",
		message: "An error occurred while processing your card. Try again in a little bit."},
}

// TestCardInput is what the test-mode card form sends.
type TestCardInput struct {
	Number   string
	ExpMonth int
	ExpYear  int
	CVC      string
}

// CheckedCard is a test card that passed the form's checks: what is kept of it and how it will answer.
type CheckedCard struct {
	Card Card
	// Outcome is OutcomeSucceed, or the decline code it answers when a payment is confirmed.
	Outcome string
	// Message is the decline's message ("" for a card that pays).
	Message string
}

// CheckTestCard checks a card as Stripe's card form and test mode would, with Stripe's messages. A form error
// names the field; a documented declining card passes (it is declined when the payment is confirmed, as on
// Stripe).
func CheckTestCard(in TestCardInput, now time.Time) (CheckedCard, error) {
	number := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, in.Number)
	if number == "" {
		return CheckedCard{}, &CardError{Code: "incomplete_number", Field: "number", Message: "Your card number is incomplete."}
	}
	for _, r := range number {
		if r < '0' || r > '9' {
			return CheckedCard{}, &CardError{Code: "invalid_number", Field: "number", Message: "Your card number is invalid."}
		}
	}
	if len(number) < 13 {
		return CheckedCard{}, &CardError{Code: "incomplete_number", Field: "number", Message: "Your card number is incomplete."}
	}
	if len(number) > 19 || !luhn(number) {
		return CheckedCard{}, &CardError{Code: "incorrect_number", Field: "number", Message: "Your card number is incorrect."}
	}
	if in.ExpMonth < 1 || in.ExpMonth > 12 {
		return CheckedCard{}, &CardError{Code: "invalid_expiry_month", Field: "expMonth", Message: "Your card's expiration month is invalid."}
	}
	year := in.ExpYear
	if year >= 0 && year < 100 {
		year += 2000
	}
	ny, nm, _ := now.UTC().Date()
	if year < ny || year > ny+50 {
		msg := "Your card's expiration year is in the past."
		if year > ny {
			msg = "Your card's expiration year is invalid."
		}
		return CheckedCard{}, &CardError{Code: "invalid_expiry_year", Field: "expYear", Message: msg}
	}
	if year == ny && in.ExpMonth < int(nm) {
		return CheckedCard{}, &CardError{Code: "invalid_expiry_month", Field: "expMonth", Message: "Your card's expiration date is in the past."}
	}
	tc, known := testCards[number]
	cvcLen := 3
	if tc.brand == "amex" {
		cvcLen = 4
	}
	if len(in.CVC) != cvcLen || strings.Trim(in.CVC, "0123456789") != "" {
		return CheckedCard{}, &CardError{Code: "incomplete_cvc", Field: "cvc", Message: "Your card's security code is incomplete."}
	}
	if !known {
		return CheckedCard{}, &CardError{Code: "card_declined", Field: "number",
			Message: "Your card was declined. Your request was in test mode, but used a non test card. For a list of valid test cards, visit: https://stripe.com/docs/testing."}
	}
	return CheckedCard{Card: Card{Brand: tc.brand, Last4: number[len(number)-4:], ExpMonth: in.ExpMonth, ExpYear: year},
		Outcome: tc.outcome, Message: tc.message}, nil
}

// DeclineMessage is the message of a test card's decline outcome (Stripe's generic decline for an unknown one).
func DeclineMessage(outcome string) string {
	for _, c := range testCards {
		if c.outcome == outcome && c.message != "" {
			return c.message
		}
	}
	return msgDeclined
}

// Attach is what attaching the card to a customer answers, as Stripe's test mode does: the declining test cards
// are refused there ("can't be attached to a Customer object"), all others attach, 4000 0000 0000 0341 included.
func (c CheckedCard) Attach() error {
	if c.declines() && c.Outcome != OutcomeChargeDeclined {
		return &CardError{Code: c.Outcome, Message: c.Message}
	}
	return nil
}

// Charge is how a payment with the card ends, as Stripe's test mode answers it. onSession is a payment the
// customer confirms in the browser; off-session is the card on file charged by the server.
type Charge struct {
	Paid bool
	// NeedsAuth: the bank asks the customer to authenticate first.
	NeedsAuth bool
	// Decline is the decline code and its message when the card was declined.
	Decline *CardError
}

// Charge answers a payment with the card.
func (c CheckedCard) Charge(onSession bool) Charge {
	switch {
	case c.Outcome == OutcomeSucceed:
		return Charge{Paid: true}
	case c.Outcome == OutcomeAuthAlways, c.Outcome == OutcomeAuthFirst && onSession:
		return Charge{NeedsAuth: true}
	case c.Outcome == OutcomeAuthFirst:
		// Saved by its first (authenticated) payment, the card pays later charges without asking again.
		return Charge{Paid: true}
	case c.Outcome == OutcomeChargeDeclined:
		return Charge{Decline: &CardError{Code: "card_declined", Message: c.Message}}
	default:
		return Charge{Decline: &CardError{Code: c.Outcome, Message: c.Message}}
	}
}

func (c CheckedCard) declines() bool {
	return c.Outcome != OutcomeSucceed && c.Outcome != OutcomeAuthFirst && c.Outcome != OutcomeAuthAlways
}

// luhn reports whether a digit string passes the Luhn check every card number carries.
func luhn(number string) bool {
	sum, double := 0, false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}
