// Package credit holds the rules of the credit balance. Every change of a balance is a row of the append-only
// credit ledger, written in the same transaction as the change (store.postCredit is the only writer).
package credit

import (
	"fmt"
	"math"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/billing"
)

// SignupBonus is what every new account receives as its first ledger row (DESIGN.md section 5).
const SignupBonus = 100

// Prices of the services, in credits (DESIGN.md section 5). Only results are charged: a not-found, a validation
// error or our own failure costs nothing.
const (
	ValuationCost    = 1
	PersonLookupCost = 5
	BatchCostPerRow  = 1
	MarketCost       = 1 // per ZIP code answered
)

// Kinds of ledger rows.
const (
	KindSignupBonus = "signup_bonus"
	KindForfeit     = "forfeit"
	KindValuation   = "property_valuation"
	// Billing (internal/billing): a period's plan credits, the prorated credits of an upgrade, unused carried
	// credits expiring, overage billed (which brings a negative balance back to zero) and a refund taking back
	// what a refunded payment bought.
	KindPlanCredits   = "plan_credits"
	KindProration     = "proration_credits"
	KindExpiry        = "credit_expiry"
	KindOverageBilled = "overage_billed"
	KindRefund        = "refund"
	// KindAdminAdjustment is an operator's grant or deduction (internal/admin); its description names the operator
	// and the reason.
	KindAdminAdjustment = "admin_adjustment"
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

// OverageRateCents is the price of a credit beyond a paid plan's credits (billing.Plan.OverageCents: $0.03); the
// Free plan has none.
func OverageRateCents(plan string) int64 { return billing.Get(plan).OverageCents }

// NoFloor is the floor of a paid plan without an overage limit: the balance may fall without bound (the
// overage is billed).
const NoFloor = math.MinInt64

// Floor is the lowest balance a charge may leave: 0 on the Free plan; on a paid plan, minus the credits the user's
// overage limit buys (overage accrues at the plan's rate up to that limit), or no floor without a limit.
func Floor(plan string, overageLimitCents *int64) int64 {
	if f, ok := billing.OverageFloor(billing.Get(plan), overageLimitCents); ok {
		return f
	}
	return NoFloor
}

// Pays reports whether a balance pays for cost without falling below floor (Floor).
func Pays(balance, cost, floor int64) bool { return balance-cost >= floor }

// Insufficient is the 402 answer when a balance cannot pay for a service: it says the balance, the price and the
// plan's overage terms. The Free plan has none; on a paid plan the balance is already below zero by the overage
// used, and the 402 says how much of the overage limit that is and how to raise it.
func Insufficient(balance, cost int64, plan string, overageLimitCents *int64) *apperr.Error {
	p := billing.Get(plan)
	unit := "credits"
	if cost == 1 {
		unit = "credit"
	}
	overage := billing.OverageCredits(balance)
	msg := fmt.Sprintf("Insufficient credits: this costs %d %s and you have %d left. Upgrade your plan on the Billing page to keep looking up.", cost, unit, max(balance, 0))
	if p.OverageCents > 0 && overageLimitCents != nil {
		msg = fmt.Sprintf("Overage limit reached: this costs %d %s, and %d overage credits (%s) of your %s limit are used this period. Raise or remove the limit on the Billing page.",
			cost, unit, overage, billing.Dollars(billing.OverageCharge(p, overage)), billing.Dollars(*overageLimitCents))
	}
	return &apperr.Error{Kind: apperr.KindPaymentRequired, Code: "insufficient_credits", Message: msg,
		Extra: map[string]any{"balance": balance, "creditsRequired": cost, "plan": p.ID,
			"overageRateCents": p.OverageCents, "overageLimitCents": overageLimitCents,
			"overageCredits": overage, "overageChargeCents": billing.OverageCharge(p, overage),
			"creditBalance": billing.BalanceOf(p, balance, overageLimitCents)}}
}

// CanPay is nil when a balance on plan pays for cost without falling below its floor, and otherwise the 402 that
// says why not. Services ask it before work whose answer must not depend on whether it could be paid (a person
// lookup, a batch job).
func CanPay(balance, cost int64, plan string, overageLimitCents *int64) error {
	if Pays(balance, cost, Floor(plan, overageLimitCents)) {
		return nil
	}
	return Insufficient(balance, cost, plan, overageLimitCents)
}

// ErrInsufficient is returned by the store when a charge would take the balance below its floor; nothing was
// written. Answer makes it the 402 of the refused charge.
type ErrInsufficient struct {
	Balance           int64
	Plan              string
	OverageLimitCents *int64
}

func (e *ErrInsufficient) Error() string {
	return fmt.Sprintf("insufficient credits: balance %d on plan %s", e.Balance, e.Plan)
}

// Answer is the 402 of a refused charge of cost credits.
func (e *ErrInsufficient) Answer(cost int64) *apperr.Error {
	return Insufficient(e.Balance, cost, e.Plan, e.OverageLimitCents)
}
