// Package credit holds the rules of the credit balance. Every change of a balance is a row of the append-only
// credit ledger, written in the same transaction as the change (store.postCredit is the only writer).
package credit

import (
	"fmt"
	"math"
	"time"

	"valuator/internal/apperr"
)

// SignupBonus is what every new account receives as its first ledger row (DESIGN.md section 5).
const SignupBonus = 100

// Prices of the services, in credits (DESIGN.md section 5). Only results are charged: a not-found, a validation
// error or our own failure costs nothing.
const (
	ValuationCost    = 1
	PersonLookupCost = 5
	BatchCostPerRow  = 1
)

// Kinds of ledger rows.
const (
	KindSignupBonus = "signup_bonus"
	KindForfeit     = "forfeit"
	KindValuation   = "property_valuation"
)

// Entry is one ledger row: a signed amount and the balance after it.
type Entry struct {
	ID           int64  `json:"id"`
	UserID       int64  `json:"-"`
	Amount       int64  `json:"amount"`
	BalanceAfter int64  `json:"balance"`
	Kind         string `json:"kind"`
	Description  string `json:"description"`
	// Reference names what caused the row ("usage:41", "batch:7:row:2000", "signup:3"). It is made by the server
	// and unique among the ledger's rows, so that a row can be traced to its cause and a caller can neither
	// choose it nor make two rows share it.
	Reference string    `json:"reference,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// OverageRateCents is the price of a credit beyond a paid plan's credits: $0.03 (DESIGN.md section 5). The Free
// plan has no overage.
func OverageRateCents(plan string) int64 {
	if plan == "" || plan == "free" {
		return 0
	}
	return 3
}

// NoFloor is the floor of a paid plan without an overage limit: the balance may fall without bound (the
// overage is billed).
const NoFloor = math.MinInt64

// Floor is the lowest balance a charge may leave: 0 on the Free plan; on a paid plan, minus the credits the user's
// overage limit buys (overage accrues at the plan's rate up to that limit), or no floor without a limit.
func Floor(plan string, overageLimitCents *int64) int64 {
	rate := OverageRateCents(plan)
	switch {
	case rate == 0:
		return 0
	case overageLimitCents == nil:
		return NoFloor
	default:
		return -(*overageLimitCents / rate)
	}
}

// Insufficient is the 402 answer when a balance cannot pay for a service: it says the balance, the price and the
// plan's overage terms (the Free plan has none; paid plans bill overage per credit up to the user's limit).
func Insufficient(balance, cost int64, plan string, overageLimitCents *int64) *apperr.Error {
	unit := "credits"
	if cost == 1 {
		unit = "credit"
	}
	return &apperr.Error{Kind: apperr.KindPaymentRequired, Code: "insufficient_credits",
		Message: fmt.Sprintf("Insufficient credits: this costs %d %s and your balance is %d. Upgrade your plan or buy credits on the Billing page.", cost, unit, balance),
		Extra: map[string]any{"balance": balance, "creditsRequired": cost, "plan": plan,
			"overageRateCents": OverageRateCents(plan), "overageLimitCents": overageLimitCents}}
}
