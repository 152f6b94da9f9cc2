package credit

import (
	"math"
	"testing"

	"valuator/internal/billing"
)

func TestFloor(t *testing.T) {
	limit := int64(300) // $3.00 buys 100 credits of overage at 3 cents
	zero := int64(0)
	for _, tt := range []struct {
		plan  string
		limit *int64
		want  int64
	}{
		{"free", nil, 0},
		{"free", &limit, 0},
		{"basic", nil, math.MinInt64},
		{"professional", &limit, -100},
		{"enterprise", &zero, 0},
	} {
		if got := Floor(tt.plan, tt.limit); got != tt.want {
			t.Errorf("Floor(%s, %v) = %d, want %d", tt.plan, tt.limit, got, tt.want)
		}
	}
}

func TestInsufficientCarriesTheTerms(t *testing.T) {
	limit := int64(500)
	e := Insufficient(0, 1, "basic", &limit)
	if e.Extra["overageRateCents"] != int64(3) || e.Extra["overageLimitCents"] != &limit || e.Extra["balance"] != int64(0) {
		t.Errorf("extra = %v", e.Extra)
	}
	if free := Insufficient(2, 5, "free", nil); free.Extra["overageRateCents"] != int64(0) {
		t.Errorf("free plan overage rate = %v", free.Extra["overageRateCents"])
	}
}

// The sign-up grant is the Free plan's credits for the first period (the period job grants the next ones).
func TestSignupBonusIsTheFreePlansCredits(t *testing.T) {
	if got, want := int64(SignupBonus), billing.Get(billing.Free).Credits; got != want {
		t.Errorf("SignupBonus = %d, the Free plan grants %d a period", got, want)
	}
}
