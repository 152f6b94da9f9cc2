package valuation

import (
	"math"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/demo"
)

// TestDemoMetroIndexes: on the demo market (3,000 homes, ten years, seven metros each rising at its own rate), every
// metro's ZIP codes follow their metro's own index, whose change over five years is the generator's growth within 1
// point a year (the bound) and over the last twelve months within 2.5, and Phoenix (+7% a year) rises faster
// than Seattle (+4.5%) over both. Before the area indexes every ZIP of every metro showed one +2.4% a year. The bounds
// hold on every day measured (docs/accuracy.md, "Price index": the largest misses over eight days are 0.79 and 1.71
// points), not the 1 point for the twelve months, which at 3,000 homes even an estimator that knows every
// home's true value misses by up to 2.8 points (the sales' own luck).
func TestDemoMetroIndexes(t *testing.T) {
	s, now := demoService(t)
	e := s.set.Load().whole().engine
	change := func(ix *avm.Index, years int) float64 {
		// From the month's first day: a year before February 29 is not March 1.
		month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		a, _ := ix.Month(month)
		b, _ := ix.Month(month.AddDate(-years, 0, 0))
		return math.Exp((a-b)/float64(years)) - 1
	}
	trends := map[string][2]float64{}
	for _, m := range demo.Metros() {
		for _, z := range m.ZIPs {
			h := avm.Unknown()
			h.ZIP = z
			ix, level, _ := e.AreaIndex(h)
			if level == avm.LevelMarket {
				t.Errorf("%s %s: valued with the whole market's index", m.Name, z)
				continue
			}
			five, twelve := change(ix, 5), change(ix, 1)
			t.Logf("%-9s %s %-5s 12 months %+.2f%%, 5 years %+.2f%% a year, generator %+.2f%%", m.Name, z, level,
				100*twelve, 100*five, 100*m.Growth)
			if math.Abs(five-m.Growth) > 0.01 {
				t.Errorf("%s %s: %+.2f%% a year over five years, the generator's growth is %+.2f%%", m.Name, z,
					100*five, 100*m.Growth)
			}
			if math.Abs(twelve-m.Growth) > 0.025 {
				t.Errorf("%s %s: %+.2f%% over twelve months, the generator's growth is %+.2f%%", m.Name, z,
					100*twelve, 100*m.Growth)
			}
			trends[m.Name] = [2]float64{twelve, five}
		}
	}
	if p, s := trends["Phoenix"], trends["Seattle"]; p[0]-s[0] < 0.005 || p[1]-s[1] < 0.01 {
		t.Errorf("Phoenix (+7%% a year) shows %+.2f%% over 12 months and %+.2f%% a year over 5, Seattle (+4.5%%) %+.2f%% and %+.2f%%",
			100*p[0], 100*p[1], 100*s[0], 100*s[1])
	}
}

// TestValuationUsesItsAreasIndex: a lookup's market trend, value history and priceIndex are those of the home's own
// area, so two metros' homes answer different trends.
func TestValuationUsesItsAreasIndex(t *testing.T) {
	s, now := demoService(t)
	e := s.set.Load().whole().engine
	typ, sqft := "Single Family", 1800.0
	for _, c := range []struct{ street, city, state, zip string }{
		{"1 Nowhere Ln", "Seattle", "WA", "98103"}, {"1 Nowhere Ln", "Phoenix", "AZ", "85006"},
	} {
		res, err := s.Lookup(t.Context(), Input{Address: c.street, City: c.city, State: c.state, ZIP: c.zip,
			PropertyType: &typ, SquareFeet: &sqft})
		if err != nil {
			t.Fatal(err)
		}
		h := avm.Unknown()
		h.ZIP = c.zip
		ix, level, key := e.AreaIndex(h)
		pi := res.MarketData.PriceIndex
		if pi == nil || pi.Level != level || pi.Area == nil || *pi.Area != key || level == avm.LevelMarket {
			t.Fatalf("%s: priceIndex %+v, want level %q area %q (not the whole market)", c.zip, pi, level, key)
		}
		month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		a, _ := ix.Month(month)
		b, _ := ix.Month(month.AddDate(-1, 0, 0))
		if want := math.Round((math.Exp(a-b)-1)*1000) / 1000; deref(res.MarketData.MarketTrend) != want {
			t.Errorf("%s: marketTrend %v, want its area's %v", c.zip, deref(res.MarketData.MarketTrend), want)
		}
		// The value a year ago is today's carried back by the area's index.
		hist := res.ValueHistory
		ago := float64(hist[len(hist)-13].Value) / float64(hist[len(hist)-1].Value)
		month = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(-1, 0, 0)
		end := month.AddDate(0, 1, 0).Add(-time.Second)
		if want := math.Exp(ix.At(end) - ix.At(now)); math.Abs(ago-want) > 0.002 {
			t.Errorf("%s: value history a year ago at %.4f of today, its area's index says %.4f", c.zip, ago, want)
		}
	}
}
