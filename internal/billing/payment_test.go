package billing

import (
	"fmt"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestBalanceOf(t *testing.T) {
	basic, free := Get(Basic), Get(Free)
	for _, tt := range []struct {
		name    string
		plan    Plan
		balance int64
		limit   *int64
		want    Balance
	}{
		{"plenty", basic, 900, nil, Balance{PlanType: Basic, Credits: 900, OverageRateCents: 3, State: BalanceOK}},
		{"low on a paid plan", basic, 49, nil, Balance{PlanType: Basic, Credits: 49, OverageRateCents: 3, State: BalanceLow}},
		{"zero on a paid plan keeps working", basic, 0, nil, Balance{PlanType: Basic, OverageRateCents: 3, State: BalanceLow}},
		{"overage without a limit", basic, -10, nil, Balance{PlanType: Basic, OverageCredits: 10, OverageCents: 30,
			OverageRateCents: 3, State: BalanceOverage}},
		{"overage under a limit", basic, -10, ptr(int64(500)), Balance{PlanType: Basic, OverageCredits: 10, OverageCents: 30,
			OverageRateCents: 3, OverageLimitCents: ptr(int64(500)), OverageLeftCents: ptr(int64(470)),
			SpendableCredits: ptr(int64(156)), State: BalanceOverage}},
		{"limit reached", basic, -10, ptr(int64(30)), Balance{PlanType: Basic, OverageCredits: 10, OverageCents: 30,
			OverageRateCents: 3, OverageLimitCents: ptr(int64(30)), OverageLeftCents: ptr(int64(0)),
			SpendableCredits: ptr(int64(0)), State: BalanceLimitReached}},
		{"a zero limit at zero credits", basic, 0, ptr(int64(0)), Balance{PlanType: Basic, OverageRateCents: 3,
			OverageLimitCents: ptr(int64(0)), OverageLeftCents: ptr(int64(0)), SpendableCredits: ptr(int64(0)),
			State: BalanceLimitReached}},
		{"free with credits", free, 100, nil, Balance{PlanType: Free, Credits: 100, SpendableCredits: ptr(int64(100)),
			State: BalanceOK}},
		{"free and low", free, 3, nil, Balance{PlanType: Free, Credits: 3, SpendableCredits: ptr(int64(3)), State: BalanceLow}},
		{"free and empty", free, 0, ptr(int64(500)), Balance{PlanType: Free, SpendableCredits: ptr(int64(0)), State: BalanceEmpty}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := BalanceOf(tt.plan, tt.balance, tt.limit)
			if !equalBalance(got, tt.want) {
				t.Errorf("BalanceOf(%s, %d, %v) = %s, want %s", tt.plan.ID, tt.balance, tt.limit, show(got), show(tt.want))
			}
		})
	}
}

func equalBalance(a, b Balance) bool {
	eq := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.PlanType == b.PlanType && a.Credits == b.Credits && a.OverageCredits == b.OverageCredits &&
		a.OverageCents == b.OverageCents && a.OverageRateCents == b.OverageRateCents && a.State == b.State &&
		eq(a.OverageLimitCents, b.OverageLimitCents) && eq(a.OverageLeftCents, b.OverageLeftCents) &&
		eq(a.SpendableCredits, b.SpendableCredits)
}

func show(b Balance) string {
	v := func(p *int64) any {
		if p == nil {
			return "nil"
		}
		return *p
	}
	return fmt.Sprintf("{%s credits=%d overage=%d/%d¢ rate=%d limit=%v left=%v spendable=%v %s}", b.PlanType, b.Credits,
		b.OverageCredits, b.OverageCents, b.OverageRateCents, v(b.OverageLimitCents), v(b.OverageLeftCents),
		v(b.SpendableCredits), b.State)
}

// A payment's priced state changes with everything a price depends on, and with nothing else.
func TestPricedState(t *testing.T) {
	start := day("2026-11-01T00:00:00Z")
	base := State{Plan: Professional, Balance: 500, Period: Period{Start: start, End: AddMonths(start, 1)},
		Sub: &Sub{Plan: Professional, Status: StatusActive}, LastSettledPayment: 7}
	same := []func(*State){
		func(s *State) { s.Balance = -40 },
		func(s *State) { s.SpentThisPeriod = 99 },
		func(s *State) { s.Sub.Card = Card{Last4: "0341"} },
		func(s *State) { s.Sub.Status = StatusPastDue },
	}
	changed := map[string]func(*State){
		"plan":                func(s *State) { s.Plan, s.Sub.Plan = Basic, Basic },
		"period":              func(s *State) { s.Period.Start = s.Period.End },
		"cancellation":        func(s *State) { s.Sub.CancelAtPeriodEnd = true },
		"scheduled downgrade": func(s *State) { s.Sub.PendingPlan = Basic },
		"subscription ended":  func(s *State) { s.Sub.Status = StatusCanceled },
		"a payment settled":   func(s *State) { s.LastSettledPayment = 8 },
	}
	clone := func() State {
		s := base
		sub := *base.Sub
		s.Sub = &sub
		return s
	}
	for i, f := range same {
		s := clone()
		f(&s)
		if s.PricedState() != base.PricedState() {
			t.Errorf("change %d altered the priced state: %s → %s", i, base.PricedState(), s.PricedState())
		}
	}
	for name, f := range changed {
		s := clone()
		f(&s)
		if s.PricedState() == base.PricedState() {
			t.Errorf("%s left the priced state at %s", name, s.PricedState())
		}
	}
}

func TestPaymentDue(t *testing.T) {
	now := day("2026-11-10T12:00:00Z")
	open := PaymentRecord{Open: true, Status: PaymentPending, Awaiting: AwaitAction, Ref: "pi_1", PricedState: "s1",
		CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(23 * time.Hour)}
	for _, tt := range []struct {
		name    string
		p       PaymentRecord
		current string
		at      time.Time
		due     bool
		want    Closing
	}{
		{"open and current", open, "s1", now, false, Closing{}},
		{"stale", open, "s2", now, true, Closing{Status: PaymentCancelled, Message: msgStale, Action: ActionCancel}},
		{"expired", open, "s1", now.Add(23 * time.Hour), true, Closing{Status: PaymentExpired,
			Message: "Not paid within 24 hours; nothing was charged.", Action: ActionCancel}},
		{"declined and expired keeps its words", func() PaymentRecord { p := open; p.Status = PaymentFailed; return p }(),
			"s1", now.Add(24 * time.Hour), true, Closing{Status: PaymentFailed, Action: ActionCancel}},
		{"abandoned mid-call", func() PaymentRecord { p := open; p.Awaiting, p.Ref = AwaitProcessing, ""; return p }(),
			"s1", now.Add(4 * time.Minute), true, Closing{Status: PaymentCancelled, Message: MsgPaymentsUnavailable}},
		{"processing a moment", func() PaymentRecord {
			p := open
			p.Awaiting, p.CreatedAt = AwaitProcessing, now
			return p
		}(), "s1", now.Add(time.Minute), false, Closing{}},
		{"closed", func() PaymentRecord { p := open; p.Open = false; return p }(), "s2", now, false, Closing{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, due := tt.p.Due(tt.current, tt.at)
			if due != tt.due || got != tt.want {
				t.Errorf("Due = %+v, %v; want %+v, %v", got, due, tt.want, tt.due)
			}
		})
	}
}

func TestChangeStatus(t *testing.T) {
	for _, tt := range []struct {
		p            PaymentRecord
		want         string
		needsBrowser bool
	}{
		{PaymentRecord{Status: PaymentSucceeded}, ChangePaymentSucceeded, false},
		{PaymentRecord{Status: PaymentPending, Awaiting: AwaitProcessing, Open: true}, ChangePaymentProcessing, false},
		{PaymentRecord{Status: PaymentPending, Awaiting: AwaitAction, Open: true}, ChangePaymentAction, true},
		{PaymentRecord{Status: PaymentFailed, Awaiting: AwaitPaymentMethod, Open: true}, ChangePaymentNeedsMethod, true},
		{PaymentRecord{Status: PaymentFailed}, ChangePaymentNeedsMethod, false},
	} {
		if got := tt.p.ChangeStatus(); got != tt.want || tt.p.NeedsBrowser() != tt.needsBrowser {
			t.Errorf("%+v: ChangeStatus %s, NeedsBrowser %v; want %s, %v", tt.p, got, tt.p.NeedsBrowser(), tt.want, tt.needsBrowser)
		}
	}
}

// Stripe's documented test cards: declining cards cannot be attached, 0341 attaches and declines every charge,
// 3155 asks for authentication on its first (on-session) payment only, 3184 on every payment.
func TestTestCardsBehaveAsDocumented(t *testing.T) {
	now := day("2026-11-10T12:00:00Z")
	for _, tt := range []struct {
		number                string
		attaches              bool
		onSession, offSession string // paid, auth or a decline code
	}{
		{"4242424242424242", true, "paid", "paid"},
		{"4000002500003155", true, "auth", "paid"},
		{"4000002760003184", true, "auth", "auth"},
		{"4000000000000341", true, "card_declined", "card_declined"},
		{"4000000000000002", false, "card_declined", "card_declined"},
		{"4000000000009995", false, "insufficient_funds", "insufficient_funds"},
	} {
		c, err := CheckTestCard(TestCardInput{Number: tt.number, ExpMonth: 12, ExpYear: 2034, CVC: "123"}, now)
		if err != nil {
			t.Fatalf("%s: %v", tt.number, err)
		}
		if got := c.Attach() == nil; got != tt.attaches {
			t.Errorf("%s attaches: %v, want %v", tt.number, got, tt.attaches)
		}
		outcome := func(ch Charge) string {
			switch {
			case ch.Paid:
				return "paid"
			case ch.NeedsAuth:
				return "auth"
			default:
				return ch.Decline.Code
			}
		}
		if got := outcome(c.Charge(true)); got != tt.onSession {
			t.Errorf("%s on-session: %s, want %s", tt.number, got, tt.onSession)
		}
		if got := outcome(c.Charge(false)); got != tt.offSession {
			t.Errorf("%s off-session: %s, want %s", tt.number, got, tt.offSession)
		}
	}
}

func TestSpoken(t *testing.T) {
	for d, want := range map[time.Duration]string{24 * time.Hour: "24 hours", time.Hour: "1 hour", 30 * time.Minute: "30 minutes",
		20 * time.Second: "20 seconds", 90 * time.Minute: "90 minutes", 61 * time.Second: "61 seconds"} {
		if got := spoken(d); got != want {
			t.Errorf("spoken(%s) = %q, want %q", d, got, want)
		}
	}
}

// The carried credits the usage card warns about are only the ones still unspent: spending takes them first.
func TestUnusedCarried(t *testing.T) {
	for _, tt := range []struct{ carried, spent, balance, want int64 }{
		{100, 0, 1100, 100},
		{100, 40, 1060, 60},
		{100, 1110, -10, 0},
		{100, 0, 30, 30}, // a refund took some back
	} {
		s := State{Plan: Basic, CarriedCredits: tt.carried, SpentThisPeriod: tt.spent, Balance: tt.balance}
		if got := s.UnusedCarried(); got != tt.want {
			t.Errorf("carried %d, spent %d, balance %d: unused %d, want %d", tt.carried, tt.spent, tt.balance, got, tt.want)
		}
	}
}
