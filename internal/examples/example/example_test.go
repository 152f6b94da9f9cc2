package example

import (
	"testing"

	"valuator/internal/valuation"
)

// TestTrimLeavesTheSharedComparablesWhole: the valuation cache hands out copies of a result that share its
// comparables, so cutting the example's copy must not change what the next lookup of the home returns.
func TestTrimLeavesTheSharedComparablesWhole(t *testing.T) {
	cached := &valuation.Result{}
	for _, a := range []string{"A", "B", "C", "D", "E"} {
		cached.MarketData.Comparables = append(cached.MarketData.Comparables, valuation.ComparableOut{Address: a})
	}
	cp := *cached
	got := Trim(&cp)
	if got != (Comparables{Returned: 5, Kept: MaxComparables}) {
		t.Errorf("Trim = %+v, want 5 returned, %d kept", got, MaxComparables)
	}
	if len(cp.MarketData.Comparables) != MaxComparables || cp.MarketData.Comparables[0].Address != "A" {
		t.Errorf("the copy keeps %v, want the first %d", cp.MarketData.Comparables, MaxComparables)
	}
	if len(cached.MarketData.Comparables) != 5 || cached.MarketData.Comparables[4].Address != "E" {
		t.Errorf("the cached result now holds %v, want all 5 comparables", cached.MarketData.Comparables)
	}

	few := &valuation.Result{}
	few.MarketData.Comparables = []valuation.ComparableOut{{Address: "A"}}
	if got := Trim(few); got != (Comparables{Returned: 1, Kept: 1}) {
		t.Errorf("Trim of one comparable = %+v, want 1 and 1", got)
	}
}

// TestLiveNamesTheDayOfTheLatestSale: a live example is dated by the latest sale the engine learned from (the day of
// valuation.lastUpdated), and values the example home by the public request.
func TestLiveNamesTheDayOfTheLatestSale(t *testing.T) {
	res := &valuation.Result{}
	res.Valuation.ValuationDate = "2027-07-14"
	res.Valuation.LastUpdated = "2027-07-13T00:00:00Z"
	f := Live(res)
	if f.Market.Day != "2027-07-13" || f.Market.Seed != 0 || f.Market.Homes != 0 {
		t.Errorf("market = %+v, want the day 2027-07-13 and nothing else", f.Market)
	}
	if f.Request != Home || f.Path != "/api/v1/property/valuation?address=5873+River+Dr+N&city=Seattle&state=WA&zip=98103" ||
		f.Response.Data != res || f.Comment != "" {
		t.Errorf("Live = %+v", f)
	}
}
