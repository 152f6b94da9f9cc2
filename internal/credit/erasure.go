package credit

import "valuator/internal/usage"

// erasedDescriptions are the descriptions an erased account's ledger rows keep, by kind. A row's own description
// can hold personal data ("Property valuation: 1 Main St, Seattle", "Person lookup: Jane Doe"), so erasure
// replaces every one with its kind's plain name rather than trying to cut the personal part out: the amount, kind,
// date and reference (what tax and accounting need) stay as they were.
var erasedDescriptions = map[string]string{
	KindSignupBonus:           "Welcome credits",
	KindForfeit:               "Account closed: remaining credits forfeited",
	KindValuation:             "Property valuation",
	usage.ServicePersonLookup: "Person lookup",
	usage.ServiceBatch:        "Batch valuation",
	usage.ServiceMarket:       "Market statistics",
	KindPlanCredits:           "Plan credits",
	KindProration:             "Prorated plan credits",
	KindExpiry:                "Carried credits expired",
	KindOverageBilled:         "Overage billed",
	KindRefund:                "Refund",
}

// ErasedDescription is the description a ledger row of kind keeps once its account is erased. A kind not named
// here (one added later) gets a neutral text, never its original description.
func ErasedDescription(kind string) string {
	if d, ok := erasedDescriptions[kind]; ok {
		return d
	}
	return "Ledger entry"
}
