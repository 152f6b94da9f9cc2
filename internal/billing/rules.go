package billing

import (
	"fmt"
	"time"
)

// Billing periods are calendar months from an anchor instant, as card networks and Stripe count them: a period
// that starts on the 31st ends on the last day of a shorter month, and the next one goes back to the 31st.

// AddMonths is anchor plus n months, clamped to the last day of the target month (Jan 31 + 1 = Feb 28 or 29).
func AddMonths(anchor time.Time, n int) time.Time {
	anchor = anchor.UTC()
	y, m, d := anchor.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	if d > last {
		d = last
	}
	hh, mm, ss := anchor.Clock()
	return time.Date(first.Year(), first.Month(), d, hh, mm, ss, anchor.Nanosecond(), time.UTC)
}

// Period is one billing period, [Start, End).
type Period struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// PeriodAt is the period of an account anchored at anchor that contains t (the first period if t is before the
// anchor).
func PeriodAt(anchor, t time.Time) Period {
	if t.Before(anchor) {
		return Period{Start: anchor.UTC(), End: AddMonths(anchor, 1)}
	}
	// Estimate the month count, then step to the exact period.
	ay, am, _ := anchor.UTC().Date()
	ty, tm, _ := t.UTC().Date()
	n := (ty-ay)*12 + int(tm-am)
	for n > 0 && AddMonths(anchor, n).After(t) {
		n--
	}
	for !AddMonths(anchor, n+1).After(t) {
		n++
	}
	return Period{Start: AddMonths(anchor, n), End: AddMonths(anchor, n+1)}
}

// Proration is what an upgrade in the middle of a period costs and grants: the difference of the two plans'
// prices and credits for the share of the period that is left.
type Proration struct {
	ChargeCents int64 `json:"chargeCents"`
	Credits     int64 `json:"credits"`
	// Remaining and Total are the seconds left in the period and its length: the share prorated.
	Remaining int64 `json:"remainingSeconds"`
	Total     int64 `json:"totalSeconds"`
}

// Prorate is the charge and the credits of moving from one plan to a dearer one at now within period p. The
// charge is rounded to the nearest cent and the credits down, so the customer is never charged for a share they
// do not get, nor granted a credit they did not pay for. At or past the end nothing is left to prorate.
func Prorate(from, to Plan, p Period, now time.Time) Proration {
	total := int64(p.End.Sub(p.Start) / time.Second)
	remaining := int64(p.End.Sub(now) / time.Second)
	remaining = min(max(remaining, 0), total)
	if total <= 0 || ChangeKind(from, to) != Upgrade {
		return Proration{Remaining: remaining, Total: total}
	}
	dp := to.PriceCents - from.PriceCents
	dc := max(to.Credits-from.Credits, 0)
	return Proration{
		ChargeCents: (dp*remaining*2 + total) / (2 * total), // round half up
		Credits:     dc * remaining / total,
		Remaining:   remaining,
		Total:       total,
	}
}

// PeriodClose is the state of an account when its billing period ends.
type PeriodClose struct {
	Plan Plan
	// Balance is the credit balance at the end; below zero on a paid plan it is overage.
	Balance int64
	// CarriedIn is what the period started with from the one before: unused credits that expire at this end.
	CarriedIn int64
	// Spent is the credits consumed during the period.
	Spent int64
}

// PeriodOutcome is what closing a period does to the balance, in ledger order: carried credits still unused
// expire, overage is billed and settled, and what is left of this period's credits carries into the next period.
type PeriodOutcome struct {
	// Expired credits came from the period before and were not used in this one (spending takes the oldest
	// credits first).
	Expired int64
	// OverageCredits are the credits used beyond the balance; they are billed at the plan's rate and the balance
	// is brought back to zero.
	OverageCredits int64
	OverageCents   int64
	// CarryOut is the unused credits of this period that roll over into the next one (and expire at its end).
	CarryOut int64
}

// ClosePeriod applies the rollover rule: unused plan credits roll over for one billing period, then expire.
// Spending consumes the oldest credits first, so the carried credits are used before this period's own.
func ClosePeriod(c PeriodClose) PeriodOutcome {
	var out PeriodOutcome
	unusedCarry := max(c.CarriedIn-max(c.Spent, 0), 0)
	out.Expired = min(unusedCarry, max(c.Balance, 0))
	left := c.Balance - out.Expired
	if left < 0 {
		out.OverageCredits = -left
		out.OverageCents = OverageCharge(c.Plan, out.OverageCredits)
		left = 0
	}
	out.CarryOut = left
	return out
}

// OverageCredits is how far a balance is below zero: the credits used beyond it, billed as overage.
func OverageCredits(balance int64) int64 { return max(-balance, 0) }

// OverageCharge is the price of n overage credits on plan.
func OverageCharge(p Plan, n int64) int64 { return max(n, 0) * p.OverageCents }

// UpcomingCharge is what the next invoice will be: the price of the plan the next period is on (none when the
// subscription ends) plus the overage used so far.
func UpcomingCharge(next Plan, overageCents int64) int64 { return next.PriceCents + overageCents }

// OverageFloor is the lowest balance a charge may leave: 0 on a plan without overage; on a paid plan, minus the
// credits the user's overage limit buys (nil: no limit, no floor; ok is false then).
func OverageFloor(p Plan, limitCents *int64) (floor int64, ok bool) {
	switch {
	case p.OverageCents == 0:
		return 0, true
	case limitCents == nil:
		return 0, false
	default:
		return -(*limitCents / p.OverageCents), true
	}
}

// MaxOverageLimitCents bounds the overage limit a user may set: ten million dollars, far above any real need
// and far below where cents stop fitting the arithmetic. The dialog's "ten times the plan price" is advice the
// spec says is not enforced.
const MaxOverageLimitCents = 1_000_000_000

// LowBalance is the balance under which the app warns and a low-balance email is sent (spec: 50 credits).
const LowBalance = 50

// Dollars writes cents as "$1,234.56".
func Dollars(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s$%s.%02d", sign, Thousands(cents/100), cents%100)
}

// Thousands writes n with comma separators: 12345 is "12,345".
func Thousands(n int64) string {
	s := fmt.Sprintf("%d", n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
