package billing

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestAddMonthsClampsToMonthEnd(t *testing.T) {
	for _, tt := range []struct {
		anchor string
		n      int
		want   string
	}{
		{"2026-01-31T10:00:00Z", 1, "2026-02-28T10:00:00Z"},
		{"2026-01-31T10:00:00Z", 2, "2026-03-31T10:00:00Z"},
		{"2028-01-31T10:00:00Z", 1, "2028-02-29T10:00:00Z"},
		{"2026-11-24T23:00:00Z", 1, "2026-12-24T23:00:00Z"},
		{"2026-11-24T23:00:00Z", 2, "2027-01-24T23:00:00Z"},
		{"2026-05-15T00:00:00Z", 12, "2027-05-15T00:00:00Z"},
	} {
		if got := AddMonths(day(tt.anchor), tt.n); !got.Equal(day(tt.want)) {
			t.Errorf("AddMonths(%s, %d) = %s, want %s", tt.anchor, tt.n, got, tt.want)
		}
	}
}

func TestPeriodAt(t *testing.T) {
	anchor := day("2026-01-31T12:00:00Z")
	for _, tt := range []struct{ at, start, end string }{
		{"2026-01-31T12:00:00Z", "2026-01-31T12:00:00Z", "2026-02-28T12:00:00Z"},
		{"2026-02-28T11:59:59Z", "2026-01-31T12:00:00Z", "2026-02-28T12:00:00Z"},
		{"2026-02-28T12:00:00Z", "2026-02-28T12:00:00Z", "2026-03-31T12:00:00Z"},
		{"2026-04-15T00:00:00Z", "2026-03-31T12:00:00Z", "2026-04-30T12:00:00Z"},
		{"2025-12-01T00:00:00Z", "2026-01-31T12:00:00Z", "2026-02-28T12:00:00Z"},
	} {
		p := PeriodAt(anchor, day(tt.at))
		if !p.Start.Equal(day(tt.start)) || !p.End.Equal(day(tt.end)) {
			t.Errorf("PeriodAt(%s) = %s – %s, want %s – %s", tt.at, p.Start, p.End, tt.start, tt.end)
		}
	}
}

func TestProrate(t *testing.T) {
	p := Period{Start: day("2026-11-01T00:00:00Z"), End: day("2026-12-01T00:00:00Z")} // 30 days
	basic, pro, ent, free := Get(Basic), Get(Professional), Get(Enterprise), Get(Free)
	for _, tt := range []struct {
		name         string
		from, to     Plan
		at           string
		charge, cred int64
	}{
		{"basic to pro at the start", basic, pro, "2026-11-01T00:00:00Z", 9500, 4000},
		{"basic to pro half way", basic, pro, "2026-11-16T00:00:00Z", 4750, 2000},
		{"basic to pro with 10 days left", basic, pro, "2026-11-21T00:00:00Z", 3167, 1333},
		{"pro to enterprise with one day left", pro, ent, "2026-11-30T00:00:00Z", 250, 166},
		{"basic to enterprise, one second left", basic, ent, "2026-11-30T23:59:59Z", 0, 0},
		{"at the end nothing is left", basic, pro, "2026-12-01T00:00:00Z", 0, 0},
		{"past the end nothing is left", basic, pro, "2026-12-05T00:00:00Z", 0, 0},
		{"a downgrade is not prorated", pro, basic, "2026-11-16T00:00:00Z", 0, 0},
		{"free to basic half way", free, basic, "2026-11-16T00:00:00Z", 1500, 450},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Prorate(tt.from, tt.to, p, day(tt.at))
			if got.ChargeCents != tt.charge || got.Credits != tt.cred {
				t.Errorf("Prorate = %d cents, %d credits; want %d cents, %d credits", got.ChargeCents, got.Credits, tt.charge, tt.cred)
			}
		})
	}
}

func TestClosePeriodRollsOverOnceThenExpires(t *testing.T) {
	basic := Get(Basic)
	for _, tt := range []struct {
		name string
		in   PeriodClose
		want PeriodOutcome
	}{
		{"nothing used: all of it carries", PeriodClose{Plan: basic, Balance: 1000, CarriedIn: 0, Spent: 0},
			PeriodOutcome{CarryOut: 1000}},
		{"carried credits unused expire, this period's carry", PeriodClose{Plan: basic, Balance: 1700, CarriedIn: 700, Spent: 0},
			PeriodOutcome{Expired: 700, CarryOut: 1000}},
		{"spending takes carried credits first", PeriodClose{Plan: basic, Balance: 1400, CarriedIn: 700, Spent: 300},
			PeriodOutcome{Expired: 400, CarryOut: 1000}},
		{"carried all used, part of the grant", PeriodClose{Plan: basic, Balance: 500, CarriedIn: 700, Spent: 1200},
			PeriodOutcome{CarryOut: 500}},
		{"overage is billed and settled", PeriodClose{Plan: basic, Balance: -250, CarriedIn: 100, Spent: 1350},
			PeriodOutcome{OverageCredits: 250, OverageCents: 750, CarryOut: 0}},
		{"free plan never has overage", PeriodClose{Plan: Get(Free), Balance: 40, CarriedIn: 30, Spent: 90},
			PeriodOutcome{CarryOut: 40}},
		{"a zero balance", PeriodClose{Plan: basic, Balance: 0, CarriedIn: 0, Spent: 1000}, PeriodOutcome{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClosePeriod(tt.in); got != tt.want {
				t.Errorf("ClosePeriod(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestUpcomingChargeAndNextPlan(t *testing.T) {
	sub := &Sub{Status: StatusActive}
	st := State{Plan: Professional, Balance: -100, Sub: sub}
	if got := ViewMeteredUsage(st); got.UpcomingChargeCents != 12500+300 || got.OverageCredits != 100 ||
		got.EstimatedOverageChargeCents != 300 || got.CostPerCredit != 0.03 || !got.HasSubscription {
		t.Errorf("active professional with 100 overage credits: %+v", got)
	}
	sub.PendingPlan = Basic
	if got := ViewMeteredUsage(st); got.UpcomingChargeCents != 3000+300 {
		t.Errorf("a scheduled downgrade to Basic: upcoming %d, want 3300", got.UpcomingChargeCents)
	}
	sub.CancelAtPeriodEnd = true
	if got := ViewMeteredUsage(st); got.UpcomingChargeCents != 300 {
		t.Errorf("cancelling at period end: upcoming %d, want only the overage, 300", got.UpcomingChargeCents)
	}
	if got := ViewMeteredUsage(State{Plan: Free, Balance: 40}); got.HasSubscription || got.UpcomingChargeCents != 0 || got.CreditsIncluded != 100 {
		t.Errorf("free: %+v", got)
	}
}

func TestOverageFloorAndAlerts(t *testing.T) {
	limit := int64(300)
	if f, ok := OverageFloor(Get(Basic), &limit); !ok || f != -100 {
		t.Errorf("basic with a $3 limit: floor %d %v, want -100", f, ok)
	}
	if _, ok := OverageFloor(Get(Basic), nil); ok {
		t.Error("basic without a limit has a floor")
	}
	if f, ok := OverageFloor(Get(Free), nil); !ok || f != 0 {
		t.Errorf("free: floor %d %v, want 0", f, ok)
	}
	for _, tt := range []struct {
		before, after, floor int64
		want                 []string
	}{
		{60, 49, 0, []string{AlertLowBalance}},
		{50, 49, 0, []string{AlertLowBalance}},
		{49, 48, 0, nil},
		{51, 50, 0, nil},
		{10, -1, math.MinInt64, []string{AlertOverageStarted}},
		{60, -5, math.MinInt64, []string{AlertLowBalance, AlertOverageStarted}},
		{-79, -80, -100, []string{AlertOverageLimit80}},
		{-80, -81, -100, nil},
		{40, 50, 0, nil},
	} {
		if got := CrossedAlerts(tt.before, tt.after, tt.floor); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CrossedAlerts(%d, %d, %d) = %v, want %v", tt.before, tt.after, tt.floor, got, tt.want)
		}
	}
}

func TestParseOverageLimit(t *testing.T) {
	cents := func(n int64) *int64 { return &n }
	for _, tt := range []struct {
		raw  string
		want *int64
		ok   bool
	}{
		{"null", nil, true},
		{"0", cents(0), true},
		{"12.5", cents(1250), true},
		{"0.1", cents(10), true},
		{"300", cents(30000), true},
		{"1e2", cents(10000), true},
		{"10000000", cents(MaxOverageLimitCents), true},
		{"10000000.01", nil, false},
		{"-1", nil, false},
		{"1.234", nil, false},
		{`"12"`, nil, false},
		{"true", nil, false},
		{"", nil, false},
		{"1e400", nil, false},
	} {
		got, err := ParseOverageLimit(json.RawMessage(tt.raw))
		if (err == nil) != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseOverageLimit(%s) = %v, %v; want %v, ok %v", tt.raw, got, err, tt.want, tt.ok)
		}
	}
}

func TestCheckTestCard(t *testing.T) {
	now := day("2026-11-24T00:00:00Z")
	for _, tt := range []struct {
		in      TestCardInput
		field   string
		outcome string
	}{
		{TestCardInput{"4242 4242 4242 4242", 12, 2030, "123"}, "", OutcomeSucceed},
		{TestCardInput{"4000 0000 0000 0002", 12, 30, "123"}, "", "card_declined"},
		{TestCardInput{"3782 822463 10005", 1, 2031, "1234"}, "", OutcomeSucceed},
		{TestCardInput{"4242 4242 4242 4241", 12, 2030, "123"}, "number", ""},
		{TestCardInput{"4111 1111 1111 1111", 12, 2030, "123"}, "number", ""}, // a real-card number in test mode
		{TestCardInput{"", 12, 2030, "123"}, "number", ""},
		{TestCardInput{"4242abc", 12, 2030, "123"}, "number", ""},
		{TestCardInput{"4242424242424242", 13, 2030, "123"}, "expMonth", ""},
		{TestCardInput{"4242424242424242", 10, 2026, "123"}, "expMonth", ""},
		{TestCardInput{"4242424242424242", 12, 2020, "123"}, "expYear", ""},
		{TestCardInput{"4242424242424242", 12, 2030, "12"}, "cvc", ""},
	} {
		got, err := CheckTestCard(tt.in, now)
		if tt.field != "" {
			ce, ok := err.(*CardError)
			if !ok || ce.Field != tt.field || ce.Message == "" {
				t.Errorf("CheckTestCard(%+v) = %v, want an error on %s", tt.in, err, tt.field)
			}
			continue
		}
		if err != nil || got.Outcome != tt.outcome {
			t.Errorf("CheckTestCard(%+v) = %+v, %v; want outcome %s", tt.in, got, err, tt.outcome)
		}
	}
	c, _ := CheckTestCard(TestCardInput{"4000000000000002", 12, 2030, "123"}, now)
	if c.Message != "Your card was declined." || c.Card.Last4 != "0002" || c.Card.Brand != "visa" {
		t.Errorf("declining card: %+v", c)
	}
}

func TestDollars(t *testing.T) {
	for cents, want := range map[int64]string{0: "$0.00", 3: "$0.03", 3000: "$30.00", 123456789: "$1,234,567.89", -750: "-$7.50"} {
		if got := Dollars(cents); got != want {
			t.Errorf("Dollars(%d) = %q, want %q", cents, got, want)
		}
	}
}
