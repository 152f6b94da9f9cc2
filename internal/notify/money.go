package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"valuator/internal/billing"
	"valuator/internal/mail"
)

// The emails about money (issue 36): a receipt for every paid payment, and notices of a refund, a declined renewal,
// a scheduled downgrade, a cancellation and each period's plan credits. Each is queued by the store in the
// transaction that moves the money or changes the plan, keyed by what it is about (the payment, or the account and
// its period), so a provider event delivered twice, or applied by two instances, queues it once.
//
// A receipt goes whatever the switches say (it is the record of a charge, as every shop sends one); the notices
// are governed by "Email notifications" (TopicAccount), like sign-in alerts and batch results.

// Receipt is a payment that was paid.
type Receipt struct {
	PaymentID   int64     `json:"paymentId"`
	Kind        string    `json:"kind"` // billing.KindSubscription, KindUpgrade, KindRenewal, KindOverage
	Plan        string    `json:"plan"`
	Description string    `json:"description"`
	AmountCents int64     `json:"amountCents"`
	Credits     int64     `json:"credits"`
	PeriodStart time.Time `json:"periodStart"`
	PeriodEnd   time.Time `json:"periodEnd"`
	CardBrand   string    `json:"cardBrand,omitempty"`
	CardLast4   string    `json:"cardLast4,omitempty"`
	PaidAt      time.Time `json:"paidAt"`
	// Test: paid in the local test mode, where no money moves.
	Test bool `json:"test,omitempty"`
}

// NewReceipt is the receipt of a paid payment: one per payment, sent whatever the switches say.
func NewReceipt(userID int64, r Receipt) Mail {
	return newMail(KindReceipt, fmt.Sprintf("receipt:%d", r.PaymentID), userID, "", r.PaidAt, r)
}

// Refund is a refund of a paid payment: in full or in part, what it took back and whether it ended the plan.
type Refund struct {
	PaymentID   int64  `json:"paymentId"`
	Description string `json:"description"`
	// RefundedCents is how much of the payment has been refunded so far; PaidCents what was paid.
	RefundedCents int64 `json:"refundedCents"`
	PaidCents     int64 `json:"paidCents"`
	Full          bool  `json:"full"`
	// CreditsBought are the credits the payment bought; CreditsTaken those taken back (no more than the balance
	// held); Balance the balance after.
	CreditsBought int64 `json:"creditsBought"`
	CreditsTaken  int64 `json:"creditsTaken"`
	Balance       int64 `json:"balance"`
	// Plan is the account's plan before the refund; PlanEnded whether the refund ended it (back to Free).
	Plan      string    `json:"plan"`
	PlanEnded bool      `json:"planEnded"`
	At        time.Time `json:"at"`
	// Test: a payment of the local test mode, where no money moves.
	Test bool `json:"test,omitempty"`
}

// NewRefund is the notice of a refund: one per payment and amount refunded (a second partial refund, which raises
// the amount, is a second notice; the same refund applied twice is one).
func NewRefund(userID int64, r Refund) Mail {
	return newMail(KindRefund, fmt.Sprintf("refund:%d:%d", r.PaymentID, r.RefundedCents), userID, TopicAccount, r.At, r)
}

// RenewalDeclined is a renewal the card on file did not pay.
type RenewalDeclined struct {
	PaymentID   int64     `json:"paymentId"`
	Plan        string    `json:"plan"`
	AmountCents int64     `json:"amountCents"`
	Credits     int64     `json:"credits"`
	PeriodStart time.Time `json:"periodStart"`
	PeriodEnd   time.Time `json:"periodEnd"`
	Reason      string    `json:"reason"`
	// Provider is billing.ModeStripe (which tries the card again by itself) or billing.ModeTest.
	Provider string    `json:"provider"`
	At       time.Time `json:"at"`
}

// NewRenewalDeclined is the notice of a declined renewal: one per renewal payment, however often it is declined.
func NewRenewalDeclined(userID int64, r RenewalDeclined) Mail {
	return newMail(KindRenewalDeclined, fmt.Sprintf("renewal_declined:%d", r.PaymentID), userID, TopicAccount, r.At, r)
}

// PlanChange is a downgrade scheduled for the period's end, or a cancellation (To is billing.Free).
type PlanChange struct {
	From string `json:"from"`
	To   string `json:"to"`
	// EffectiveAt is the end of the current period, when the change takes effect.
	EffectiveAt time.Time `json:"effectiveAt"`
	At          time.Time `json:"at"`
}

// NewDowngrade is the notice of a downgrade scheduled in the period that starts at periodStart: one per account,
// period and plan.
func NewDowngrade(userID int64, periodStart time.Time, c PlanChange) Mail {
	return newMail(KindDowngrade, fmt.Sprintf("downgrade:%d:%d:%s", userID, periodStart.Unix(), c.To), userID,
		TopicAccount, c.At, c)
}

// NewCancellation is the notice of a cancellation at the end of the period that starts at periodStart: one per
// account and period.
func NewCancellation(userID int64, periodStart time.Time, c PlanChange) Mail {
	return newMail(KindCancellation, fmt.Sprintf("cancel:%d:%d", userID, periodStart.Unix()), userID, TopicAccount, c.At, c)
}

// CreditsGranted is a period's plan credits.
type CreditsGranted struct {
	Plan        string    `json:"plan"`
	Credits     int64     `json:"credits"`
	Balance     int64     `json:"balance"`
	PeriodStart time.Time `json:"periodStart"`
	PeriodEnd   time.Time `json:"periodEnd"`
	At          time.Time `json:"at"`
}

// NewCreditsGranted is the notice of a period's plan credits: one per account and period.
func NewCreditsGranted(userID int64, g CreditsGranted) Mail {
	return newMail(KindCreditsGranted, fmt.Sprintf("credits:%d:%d", userID, g.PeriodStart.Unix()), userID, TopicAccount,
		g.At, g)
}

// moneyKinds are the kinds above: they never go stale (a week-old notice of a refund is still true).
var moneyKinds = map[string]bool{KindReceipt: true, KindRefund: true, KindRenewalDeclined: true, KindDowngrade: true,
	KindCancellation: true, KindCreditsGranted: true}

// periodText is a period as the emails give it: "Mar 1 – Apr 1, 2026".
func periodText(start, end time.Time) string {
	return start.UTC().Format("Jan 2") + " – " + end.UTC().Format("Jan 2, 2006")
}

// day is a date as the emails give it: "April 1, 2026".
func day(t time.Time) string { return t.UTC().Format("January 2, 2006") }

func planName(id string) string { return billing.Get(id).Name }

// renderMoney writes the subject and text of a money email; ok false for another kind.
func renderMoney(q Queued, name string, l Links, msg *mail.Message, b *strings.Builder) (bool, error) {
	decode := func(v any) error { return json.Unmarshal(q.Payload, v) }
	switch q.Kind {
	case KindReceipt:
		var p Receipt
		if err := decode(&p); err != nil {
			return true, err
		}
		msg.Subject = fmt.Sprintf("Your Valuator receipt #%d: %s paid", p.PaymentID, billing.Dollars(p.AmountCents))
		fmt.Fprintf(b, "Hello %s,\n\nThank you for your payment. This is your receipt.\n\n", name)
		rows := [][2]string{{"Receipt", fmt.Sprintf("#%d", p.PaymentID)}, {"Paid", dateTime(p.PaidAt)},
			{"For", p.Description}, {"Plan", planName(p.Plan)}}
		if !p.PeriodStart.IsZero() {
			rows = append(rows, [2]string{"Period", periodText(p.PeriodStart, p.PeriodEnd)})
		}
		if p.Credits > 0 && p.Kind != billing.KindOverage {
			rows = append(rows, [2]string{"Credits", billing.Thousands(p.Credits)})
		}
		if p.CardLast4 != "" {
			rows = append(rows, [2]string{"Card", strings.TrimSpace(cardBrand(p.CardBrand) + " ending in " + p.CardLast4)})
		}
		rows = append(rows, [2]string{"Amount", billing.Dollars(p.AmountCents) + " (USD)"})
		for _, r := range rows {
			fmt.Fprintf(b, "  %-9s %s\n", r[0]+":", r[1])
		}
		if p.Test {
			b.WriteString("\nTest mode: no money moved.\n")
		}
		fmt.Fprintf(b, "\nYour receipts, to print or save (Payment History, \"Receipt\" beside payment #%d): %s\n",
			p.PaymentID, l.URL("/billing"))
		b.WriteString("Receipts are sent for every payment, whatever your email settings.\n")
	case KindRefund:
		var p Refund
		if err := decode(&p); err != nil {
			return true, err
		}
		how := "in full"
		if !p.Full {
			how = "in part"
		}
		msg.Subject = fmt.Sprintf("Refund of %s for payment #%d", billing.Dollars(p.RefundedCents), p.PaymentID)
		fmt.Fprintf(b, "Hello %s,\n\nPayment #%d (%s) was refunded %s: %s of the %s you paid goes back to your card. ",
			name, p.PaymentID, p.Description, how, billing.Dollars(p.RefundedCents), billing.Dollars(p.PaidCents))
		if p.Test {
			b.WriteString("Test mode: no money moved.\n\n")
		} else {
			b.WriteString("Your bank shows it within 5 to 10 business days.\n\n")
		}
		switch {
		case !p.Full:
			b.WriteString("  Credits: unchanged (a partial refund takes none back)\n")
		case p.CreditsTaken == 0 && p.CreditsBought > 0:
			fmt.Fprintf(b, "  Credits: none taken back (the %s it bought were already used)\n", billing.Thousands(p.CreditsBought))
		case p.CreditsTaken == 0:
			b.WriteString("  Credits: unchanged\n")
		case p.CreditsTaken < p.CreditsBought:
			fmt.Fprintf(b, "  Credits: %s taken back (of the %s it bought; the rest were already used)\n",
				billing.Thousands(p.CreditsTaken), billing.Thousands(p.CreditsBought))
		default:
			fmt.Fprintf(b, "  Credits: %s taken back\n", billing.Thousands(p.CreditsTaken))
		}
		fmt.Fprintf(b, "  Balance: %s credits\n", billing.Thousands(p.Balance))
		switch {
		case p.PlanEnded:
			fmt.Fprintf(b, "  Plan:    your %s plan ended at once; your account is on the Free plan and nothing renews\n",
				planName(p.Plan))
		case !p.Full:
			fmt.Fprintf(b, "  Plan:    unchanged (%s; a partial refund keeps the plan)\n", planName(p.Plan))
		default:
			fmt.Fprintf(b, "  Plan:    unchanged (%s; this payment did not pay for your current plan)\n", planName(p.Plan))
		}
		fmt.Fprintf(b, "\nYour payments and credits: %s\n", l.URL("/billing"))
	case KindRenewalDeclined:
		var p RenewalDeclined
		if err := decode(&p); err != nil {
			return true, err
		}
		plan := planName(p.Plan)
		msg.Subject = fmt.Sprintf("Your %s plan renewal of %s was declined", plan, billing.Dollars(p.AmountCents))
		fmt.Fprintf(b, "Hello %s,\n\nWe could not collect %s for your %s plan for %s.\n", name,
			billing.Dollars(p.AmountCents), plan, periodText(p.PeriodStart, p.PeriodEnd))
		if p.Reason != "" {
			fmt.Fprintf(b, "The card's answer: %s\n", p.Reason)
		}
		fmt.Fprintf(b, "\nWhat happens next: your subscription is past due. It stays on the %s plan, but this period's %s credits are added only once a payment goes through; until then your calls use the credits you still have.\n",
			plan, billing.Thousands(p.Credits))
		if p.Provider == billing.ModeStripe {
			b.WriteString("Stripe tries the card on file again over the coming days.\n")
		} else {
			fmt.Fprintf(b, "The card on file is charged again at the next renewal, on %s.\n", day(p.PeriodEnd))
		}
		fmt.Fprintf(b, "\nUpdate your card on the Billing page so that the next attempt is paid: %s\n", l.URL("/billing"))
	case KindDowngrade:
		var p PlanChange
		if err := decode(&p); err != nil {
			return true, err
		}
		from, to := billing.Get(p.From), billing.Get(p.To)
		msg.Subject = fmt.Sprintf("Your plan changes to %s on %s", to.Name, day(p.EffectiveAt))
		fmt.Fprintf(b, "Hello %s,\n\nYour plan changes from %s to %s on %s, at the end of the current period. ",
			name, from.Name, to.Name, dateTime(p.EffectiveAt))
		fmt.Fprintf(b, "Until then you keep the %s plan and its credits.\n\n", from.Name)
		fmt.Fprintf(b, "From %s: %s a month for %s credits a month.\n", day(p.EffectiveAt), billing.Dollars(to.PriceCents),
			billing.Thousands(to.Credits))
		fmt.Fprintf(b, "\nChanged your mind? Choose the %s plan again on the Billing page before then: %s\n", from.Name, l.URL("/billing"))
	case KindCancellation:
		var p PlanChange
		if err := decode(&p); err != nil {
			return true, err
		}
		from := planName(p.From)
		msg.Subject = fmt.Sprintf("Your %s plan is cancelled: it runs until %s", from, day(p.EffectiveAt))
		fmt.Fprintf(b, "Hello %s,\n\nYour subscription is cancelled. Your %s plan runs until %s and is not renewed; overage used until then is still billed.\n\n",
			name, from, dateTime(p.EffectiveAt))
		b.WriteString("After that your account moves to the Free plan (100 credits a month) and any credits left are forfeited.\n")
		fmt.Fprintf(b, "\nChanged your mind? Choose a plan again on the Billing page before then: %s\n", l.URL("/billing"))
	case KindCreditsGranted:
		var p CreditsGranted
		if err := decode(&p); err != nil {
			return true, err
		}
		// The subject stays ASCII ("to", not the en dash), as the weekly report's does.
		msg.Subject = fmt.Sprintf("%s credits added for %s to %s", billing.Thousands(p.Credits),
			p.PeriodStart.UTC().Format("Jan 2"), p.PeriodEnd.UTC().Format("Jan 2, 2006"))
		fmt.Fprintf(b, "Hello %s,\n\nYour %s plan's %s credits for %s were added to your balance.\n\n", name,
			planName(p.Plan), billing.Thousands(p.Credits), periodText(p.PeriodStart, p.PeriodEnd))
		fmt.Fprintf(b, "  Balance: %s credits\n  Next credits: %s\n", billing.Thousands(p.Balance), day(p.PeriodEnd))
		fmt.Fprintf(b, "\nYour balance and plan: %s\n", l.URL("/billing"))
	default:
		return false, nil
	}
	return true, nil
}

// cardBrand is a card brand as a person writes it ("visa" is "Visa").
func cardBrand(brand string) string {
	switch strings.ToLower(brand) {
	case "":
		return "Card"
	case "amex":
		return "American Express"
	case "mastercard":
		return "Mastercard"
	case "visa":
		return "Visa"
	case "discover":
		return "Discover"
	default:
		return strings.ToUpper(brand[:1]) + brand[1:]
	}
}
