package billing

import (
	"strings"
	"time"
)

// The local test mode answers cards the way Stripe's test mode does (https://docs.stripe.com/testing): the
// documented test numbers succeed or fail with Stripe's own codes and messages, a number that fails the Luhn check
// is "incorrect", and any other number is refused as a real card used in test mode.

// Outcomes of a test card when a payment is confirmed with it.
const (
	OutcomeSucceed = "succeed"
)

type testCard struct {
	brand string
	// code and message are Stripe's decline; empty for a card that pays.
	code, message string
}

const msgDeclined = "Your card was declined."

var testCards = map[string]testCard{
	"4242424242424242": {brand: "visa"},
	"4000056655665556": {brand: "visa"},
	"5555555555554444": {brand: "mastercard"},
	"2223003122003222": {brand: "mastercard"},
	"5200828282828210": {brand: "mastercard"},
	"378282246310005":  {brand: "amex"},
	"371449635398431":  {brand: "amex"},
	"6011111111111117": {brand: "discover"},
	"4000000000000002": {brand: "visa", code: "card_declined", message: msgDeclined},
	"4000000000009995": {brand: "visa", code: "insufficient_funds", message: "Your card has insufficient funds."},
	"4000000000009987": {brand: "visa", code: "lost_card", message: msgDeclined},
	"4000000000009979": {brand: "visa", code: "stolen_card", message: msgDeclined},
	"4000000000000069": {brand: "visa", code: "expired_card", message: "Your card has expired."},
	"4000000000000127": {brand: "visa", code: "incorrect_cvc", message: "Your card's security code is incorrect."},
	"4000000000000119": {brand: "visa", code: "processing_error",
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
	out := CheckedCard{Card: Card{Brand: tc.brand, Last4: number[len(number)-4:], ExpMonth: in.ExpMonth, ExpYear: year},
		Outcome: OutcomeSucceed}
	if tc.code != "" {
		out.Outcome, out.Message = tc.code, tc.message
	}
	return out, nil
}

// DeclineMessage is the message of a test card's decline code (Stripe's generic decline for an unknown one).
func DeclineMessage(code string) string {
	for _, c := range testCards {
		if c.code == code {
			return c.message
		}
	}
	return msgDeclined
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
