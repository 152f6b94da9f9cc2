package billing

import "time"

// Subscription statuses.
const (
	StatusNone       = "none" // the Free plan: no subscription
	StatusIncomplete = "incomplete"
	StatusActive     = "active"
	StatusPastDue    = "past_due"
	StatusCanceled   = "canceled"
)

// Card is what is kept of a payment card: never its number.
type Card struct {
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth int    `json:"expMonth"`
	ExpYear  int    `json:"expYear"`
}

// Sub is an account's paid subscription as stored.
type Sub struct {
	Plan              string
	Status            string
	PendingPlan       string // "" when no downgrade is scheduled
	CancelAtPeriodEnd bool
	Provider          string
	CustomerRef       string
	SubscriptionRef   string
	PaymentMethodRef  string
	Card              Card
}

// State is everything the billing rules need to know of one account.
type State struct {
	UserID            int64
	Email             string
	FullName          string
	Plan              string
	Balance           int64
	OverageLimitCents *int64
	Period            Period
	CarriedCredits    int64
	// SpentThisPeriod is the credits consumed by services since the period started.
	SpentThisPeriod int64
	// Sub is nil for an account that never started a paid subscription.
	Sub *Sub
	// LastSettledPayment is the id of the account's latest paid (or refunded) payment; 0 for none.
	LastSettledPayment int64
}

// Active reports whether the account pays for its plan now (an active or past-due subscription).
func (s State) Active() bool {
	return s.Sub != nil && (s.Sub.Status == StatusActive || s.Sub.Status == StatusPastDue) && Get(s.Plan).Paid()
}

// UnusedCarried is what is left of the credits carried from the last period: spending takes them first, so they
// are what expires at this period's end if nothing more is spent (ClosePeriod's Expired, computed now).
func (s State) UnusedCarried() int64 {
	return ClosePeriod(PeriodClose{Plan: Get(s.Plan), Balance: s.Balance, CarriedIn: s.CarriedCredits,
		Spent: s.SpentThisPeriod}).Expired
}

// NextPlan is the plan the next period will be on: Free when the subscription ends, the scheduled downgrade, or
// the current plan.
func (s State) NextPlan() Plan {
	switch {
	case !s.Active():
		return Get(Free)
	case s.Sub.CancelAtPeriodEnd:
		return Get(Free)
	case s.Sub.PendingPlan != "":
		return Get(s.Sub.PendingPlan)
	default:
		return Get(s.Plan)
	}
}

// SubscriptionView is the Subscription of api/openapi.yaml.
type SubscriptionView struct {
	PlanType           string    `json:"planType"`
	Status             string    `json:"status"`
	CurrentPeriodStart time.Time `json:"currentPeriodStart"`
	CurrentPeriodEnd   time.Time `json:"currentPeriodEnd"`
	CancelAtPeriodEnd  bool      `json:"cancelAtPeriodEnd"`
	PendingPlanType    *string   `json:"pendingPlanType"`
	PaymentMethod      *Card     `json:"paymentMethod"`
	Provider           string    `json:"provider"`
}

// ViewSubscription is the account's subscription as the API shows it. A Free account, or one whose subscription
// never started or has ended, has status "none" on the Free plan.
func ViewSubscription(s State) SubscriptionView {
	v := SubscriptionView{PlanType: Get(s.Plan).ID, Status: StatusNone, CurrentPeriodStart: s.Period.Start,
		CurrentPeriodEnd: s.Period.End}
	if s.Sub == nil || !Get(s.Plan).Paid() {
		return v
	}
	v.Status = s.Sub.Status
	v.CancelAtPeriodEnd = s.Sub.CancelAtPeriodEnd
	if s.Sub.PendingPlan != "" {
		p := s.Sub.PendingPlan
		v.PendingPlanType = &p
	}
	if s.Sub.Card.Last4 != "" {
		c := s.Sub.Card
		v.PaymentMethod = &c
	}
	v.Provider = s.Sub.Provider
	return v
}

// MeteredUsage is the MeteredUsage of api/openapi.yaml: money as exact cents and, for display, as dollars.
type MeteredUsage struct {
	HasSubscription             bool       `json:"hasSubscription"`
	PlanType                    string     `json:"planType"`
	CreditsIncluded             int64      `json:"creditsIncluded"`
	OverageCredits              int64      `json:"overageCredits"`
	CostPerCredit               float64    `json:"costPerCredit"`
	CostPerCreditCents          int64      `json:"costPerCreditCents"`
	EstimatedOverageCharge      float64    `json:"estimatedOverageCharge"`
	EstimatedOverageChargeCents int64      `json:"estimatedOverageChargeCents"`
	PlanPrice                   float64    `json:"planPrice"`
	PlanPriceCents              int64      `json:"planPriceCents"`
	UpcomingCharge              float64    `json:"upcomingCharge"`
	UpcomingChargeCents         int64      `json:"upcomingChargeCents"`
	NextPlanType                string     `json:"nextPlanType"`
	NextPlanPriceCents          int64      `json:"nextPlanPriceCents"`
	EndsAt                      *time.Time `json:"endsAt"`
	CreditsUsedThisPeriod       int64      `json:"creditsUsedThisPeriod"`
	CarriedCredits              int64      `json:"carriedCredits"`
	Balance                     int64      `json:"balance"`
	CreditBalance               Balance    `json:"creditBalance"`
	OverageLimit                *float64   `json:"overageLimit"`
	PeriodStart                 time.Time  `json:"periodStart"`
	PeriodEnd                   time.Time  `json:"periodEnd"`
}

// ViewMeteredUsage is the period's usage, overage and the upcoming charge (the next period's plan price plus
// the overage so far), with the next plan it is priced on, so that a cancelled plan's price is never shown beside a
// charge that leaves it out.
func ViewMeteredUsage(s State) MeteredUsage {
	p := Get(s.Plan)
	overage := OverageCredits(s.Balance)
	overageCents := OverageCharge(p, overage)
	next := s.NextPlan()
	upcoming := UpcomingCharge(next, overageCents)
	var ends *time.Time
	if s.Active() && s.Sub.CancelAtPeriodEnd {
		end := s.Period.End
		ends = &end
	}
	return MeteredUsage{
		NextPlanType: next.ID, NextPlanPriceCents: next.PriceCents, EndsAt: ends,
		CreditBalance:   BalanceOf(p, s.Balance, s.OverageLimitCents),
		HasSubscription: s.Active(), PlanType: p.ID, CreditsIncluded: p.Credits,
		OverageCredits: overage, CostPerCredit: ToDollars(p.OverageCents), CostPerCreditCents: p.OverageCents,
		EstimatedOverageCharge: ToDollars(overageCents), EstimatedOverageChargeCents: overageCents,
		PlanPrice: ToDollars(p.PriceCents), PlanPriceCents: p.PriceCents,
		UpcomingCharge: ToDollars(upcoming), UpcomingChargeCents: upcoming,
		CreditsUsedThisPeriod: s.SpentThisPeriod, CarriedCredits: s.UnusedCarried(), Balance: s.Balance,
		OverageLimit: DollarsPtr(s.OverageLimitCents), PeriodStart: s.Period.Start, PeriodEnd: s.Period.End,
	}
}

// ToDollars is cents as a dollar number for display (exact for any amount below 2^53 cents).
func ToDollars(cents int64) float64 { return float64(cents) / 100 }

// DollarsPtr is ToDollars of an optional amount.
func DollarsPtr(cents *int64) *float64 {
	if cents == nil {
		return nil
	}
	d := ToDollars(*cents)
	return &d
}
