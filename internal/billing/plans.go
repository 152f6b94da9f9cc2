// Package billing holds the rules of money: the plan table, billing periods, proration, overage, rollover and the
// upcoming charge, as pure functions; the payments provider interface with its two adapters (the local test mode
// here, Stripe in stripepay); and the Service that joins them to the store.
//
// Every figure a plan implies (price, credits, rate cap, batch size, storage quota, overage rate) lives in the one
// table below; the packages that enforce them (apikey, batch, credit) read it from here.
package billing

import "strings"

// Plan is one row of the plan table.
type Plan struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// PriceCents is the monthly price; 0 for Free.
	PriceCents int64 `json:"priceCents"`
	// Credits are granted at the start of every billing period (Free too).
	Credits int64 `json:"credits"`
	// RateCap is the most requests a minute any one key (and the whole account) may make; 0 means uncapped.
	RateCap int `json:"rateCap"`
	// BatchRows is the most properties one upload may hold.
	BatchRows int `json:"batchRows"`
	// StorageBytes is how many bytes of batch data the account may keep on the server at once.
	StorageBytes int64 `json:"storageBytes"`
	// OverageCents is the price of a credit beyond the balance; 0 means the plan has no overage.
	OverageCents int64 `json:"overageCents"`
	// PrioritySupport: the plan's messages to support are marked "Priority" (the pricing page's "Priority email
	// support"), so that they are answered first.
	PrioritySupport bool `json:"-"`
}

// Plan IDs.
const (
	Free         = "free"
	Basic        = "basic"
	Professional = "professional"
	Enterprise   = "enterprise"
)

const mb = 1 << 20

// plans is the plan table (DESIGN.md section 5; spec working-screens section 9), cheapest first.
var plans = []Plan{
	{ID: Free, Name: "Free", PriceCents: 0, Credits: 100, RateCap: 60, BatchRows: 100, StorageBytes: 10 * mb},
	{ID: Basic, Name: "Basic", PriceCents: 3000, Credits: 1000, RateCap: 60, BatchRows: 1000, StorageBytes: 50 * mb,
		OverageCents: 3},
	{ID: Professional, Name: "Professional", PriceCents: 12500, Credits: 5000, RateCap: 120, BatchRows: 10000,
		StorageBytes: 250 * mb, OverageCents: 3, PrioritySupport: true},
	{ID: Enterprise, Name: "Enterprise", PriceCents: 20000, Credits: 10000, RateCap: 0, BatchRows: 50000,
		StorageBytes: 1024 * mb, OverageCents: 3, PrioritySupport: true},
}

// Lookup finds a plan by its ID (case and surrounding space ignored).
func Lookup(id string) (Plan, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, p := range plans {
		if p.ID == id {
			return p, true
		}
	}
	return Plan{}, false
}

// Get is the plan with that ID; an unknown or empty ID is the Free plan, so that a rule never loosens on bad data.
func Get(id string) Plan {
	if p, ok := Lookup(id); ok {
		return p
	}
	return plans[0]
}

// Plans is the whole table, cheapest first.
func Plans() []Plan { return append([]Plan(nil), plans...) }

// Paid reports whether a plan is bought (has a price).
func (p Plan) Paid() bool { return p.PriceCents > 0 }

// Largest reports whether no plan allows bigger batches (no upgrade to offer).
func (p Plan) Largest() bool { return p.BatchRows >= plans[len(plans)-1].BatchRows }

// Change is how moving from one plan to another takes effect.
type Change int

const (
	// SamePlan is no change.
	SamePlan Change = iota
	// Upgrade to a dearer plan: at once, with a prorated charge.
	Upgrade
	// Downgrade to a cheaper plan: at the end of the period.
	Downgrade
)

// ChangeKind classifies moving from one plan to another by price.
func ChangeKind(from, to Plan) Change {
	switch {
	case to.PriceCents > from.PriceCents:
		return Upgrade
	case to.PriceCents < from.PriceCents:
		return Downgrade
	default:
		return SamePlan
	}
}
