package billing

import (
	"fmt"
	"math"
)

// Alerts are emails about the balance, sent once per kind and billing period when a charge crosses a threshold,
// and only to users whose notification settings ask for usage alerts.
const (
	// AlertLowBalance: the balance fell under LowBalance credits.
	AlertLowBalance = "low_balance"
	// AlertOverageStarted: a paid plan's balance went below zero; further use is billed as overage.
	AlertOverageStarted = "overage_started"
	// AlertOverageLimit80: 80% of the user's overage limit is used.
	AlertOverageLimit80 = "overage_limit_80"
)

// CrossedAlerts is the alerts a charge taking the balance from before to after crosses. floor is the lowest
// balance allowed (math.MinInt64 when there is none).
func CrossedAlerts(before, after, floor int64) []string {
	if after >= before {
		return nil
	}
	var out []string
	if before >= LowBalance && after < LowBalance {
		out = append(out, AlertLowBalance)
	}
	if before >= 0 && after < 0 {
		out = append(out, AlertOverageStarted)
	}
	if floor != math.MinInt64 && floor < 0 {
		threshold := floor * 8 / 10 // negative: 80% of the overage the limit buys
		if before > threshold && after <= threshold {
			out = append(out, AlertOverageLimit80)
		}
	}
	return out
}

// AlertMail is an alert's subject and text.
func AlertMail(kind, name string, balance int64, plan Plan, limitCents *int64, baseURL string) (subject, text string) {
	link := baseURL + "/billing"
	switch kind {
	case AlertLowBalance:
		subject = fmt.Sprintf("Valuator: %d credits left", max(balance, 0))
		text = fmt.Sprintf("Hello %s,\n\nYour Valuator balance is down to %d credits. ", name, max(balance, 0))
		if plan.OverageCents > 0 {
			text += fmt.Sprintf("Past zero, your %s plan keeps answering and bills overage at %s a credit", plan.Name,
				Dollars(plan.OverageCents))
			if limitCents != nil {
				text += fmt.Sprintf(" up to your %s limit", Dollars(*limitCents))
			}
			text += ".\n"
		} else {
			text += "At zero, valuations stop until your credits renew or you choose a paid plan.\n"
		}
	case AlertOverageStarted:
		subject = "Valuator: you are now using overage credits"
		text = fmt.Sprintf("Hello %s,\n\nYour %s plan's credits for this period are used up. Further calls are billed as overage at %s a credit on your next invoice",
			name, plan.Name, Dollars(plan.OverageCents))
		if limitCents != nil {
			text += fmt.Sprintf(", up to your %s limit", Dollars(*limitCents))
		}
		text += ".\n"
	case AlertOverageLimit80:
		used := OverageCharge(plan, OverageCredits(balance))
		subject = "Valuator: 80% of your overage limit is used"
		limit := "your limit"
		if limitCents != nil {
			limit = Dollars(*limitCents)
		}
		text = fmt.Sprintf("Hello %s,\n\nYou have used %s of overage this period, 80%% of %s. When the limit is reached, calls are refused with 402 until the next period or until you raise the limit.\n",
			name, Dollars(used), limit)
	default:
		subject, text = "Valuator: billing notice", fmt.Sprintf("Hello %s,\n\nThere is news about your balance.\n", name)
	}
	text += fmt.Sprintf("\nSee your balance and plan: %s\nYou get these emails because usage alerts are on in your settings (%s/settings).\n",
		link, baseURL)
	return subject, text
}
