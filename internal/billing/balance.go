package billing

// Balance states (api/openapi.yaml Balance.state).
const (
	BalanceOK           = "ok"
	BalanceLow          = "low"
	BalanceOverage      = "overage"
	BalanceLimitReached = "limit_reached"
	BalanceEmpty        = "empty"
)

// Balance is what an account has to spend, as every surface shows it: the header, the Billing cards, the
// low-balance banner, a 402 answer and the profile (api/openapi.yaml Balance). It exists because the raw ledger
// balance goes below zero in overage, and three surfaces once read that one number three ways ("-10 credits", "0",
// "choose a plan"); this is the one reading.
type Balance struct {
	PlanType string `json:"planType"`
	// Credits are the plan credits (and credits carried over) left: never below zero.
	Credits int64 `json:"credits"`
	// OverageCredits are the credits used beyond them this period, and OverageCents their cost so far.
	OverageCredits   int64 `json:"overageCredits"`
	OverageCents     int64 `json:"overageCents"`
	OverageRateCents int64 `json:"overageRateCents"`
	// OverageLimitCents is the user's limit (nil: none, or a plan without overage).
	OverageLimitCents *int64 `json:"overageLimitCents"`
	// OverageLeftCents is what is left of the limit (nil when there is no limit or no overage).
	OverageLeftCents *int64 `json:"overageLeftCents"`
	// SpendableCredits is what can still be spent this period, overage included (nil: no limit on a paid plan).
	SpendableCredits *int64 `json:"spendableCredits"`
	State            string `json:"state"`
}

// BalanceOf reads a ledger balance on a plan with an overage limit (cents; nil for none). It is the one place that
// decides what a customer has; credit.Floor and credit.Insufficient follow the same OverageFloor.
func BalanceOf(p Plan, balance int64, limitCents *int64) Balance {
	b := Balance{PlanType: p.ID, Credits: max(balance, 0), OverageCredits: OverageCredits(balance),
		OverageRateCents: p.OverageCents}
	b.OverageCents = OverageCharge(p, b.OverageCredits)
	floor, bounded := OverageFloor(p, limitCents)
	if p.OverageCents > 0 && limitCents != nil {
		limit := *limitCents
		left := max(limit-b.OverageCents, 0)
		b.OverageLimitCents, b.OverageLeftCents = &limit, &left
	}
	if bounded {
		spendable := max(balance-floor, 0)
		b.SpendableCredits = &spendable
	}
	switch {
	case bounded && balance-floor < 1 && p.OverageCents == 0:
		b.State = BalanceEmpty
	case bounded && balance-floor < 1:
		b.State = BalanceLimitReached
	case b.OverageCredits > 0:
		b.State = BalanceOverage
	case b.Credits < LowBalance:
		b.State = BalanceLow
	default:
		b.State = BalanceOK
	}
	return b
}
