package demo

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"valuator/internal/property"
)

// testNow is the end of the history in the tests.
var testNow = time.Date(2026, 3, 15, 17, 30, 0, 0, time.UTC)

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// marketSummary describes a market the way a person would check it: prices by metro, price per square foot,
// sales per year, rents and yields.
func marketSummary(mk Market, now time.Time) string {
	var b strings.Builder
	metroOf := map[string]string{}
	for _, m := range metros {
		for _, z := range m.zips {
			metroOf[z.code] = m.name
		}
	}
	recent := now.AddDate(-2, 0, 0)
	type agg struct{ price, ppsf, rent, yield []float64 }
	by := map[string]*agg{}
	for _, m := range metros {
		by[m.name] = &agg{}
	}
	byYear := map[int]int{}
	last24 := 0
	for _, s := range mk.Sales {
		byYear[s.Date.Year()]++
		if s.Date.After(recent) {
			last24++
			h := mk.Homes[s.Home]
			a := by[metroOf[h.ZIP]]
			a.price = append(a.price, float64(s.Price))
			a.ppsf = append(a.ppsf, float64(s.Price)/h.Sqft)
		}
	}
	for _, r := range mk.Rentals {
		a := by[metroOf[mk.Homes[r.Home].ZIP]]
		a.rent = append(a.rent, float64(r.Rent))
	}
	types := map[string]int{}
	for _, h := range mk.Homes {
		types[h.Type]++
	}
	fmt.Fprintf(&b, "%d homes %v, %d sales (%.2f a home, %d in the last 24 months), %d rentals\n",
		len(mk.Homes), types, len(mk.Sales), float64(len(mk.Sales))/float64(len(mk.Homes)), last24, len(mk.Rentals))
	fmt.Fprintf(&b, "%-9s %6s %10s %10s %10s %16s %8s\n",
		"metro", "sales", "median", "p10", "p90", "$/sqft p10-p50-p90", "rent")
	for _, m := range metros {
		a := by[m.name]
		fmt.Fprintf(&b, "%-9s %6d %10.0f %10.0f %10.0f %5.0f-%4.0f-%4.0f %8.0f\n", m.name, len(a.price),
			median(a.price), quantile(a.price, 0.1), quantile(a.price, 0.9),
			quantile(a.ppsf, 0.1), median(a.ppsf), quantile(a.ppsf, 0.9), median(a.rent))
	}
	hist := func(name string, f func(h int) float64) {
		c := map[float64]int{}
		for i := range mk.Homes {
			c[f(i)]++
		}
		keys := make([]float64, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprintf(&b, "%s:", name)
		for _, k := range keys {
			fmt.Fprintf(&b, " %g:%.1f%%", k, 100*float64(c[k])/float64(len(mk.Homes)))
		}
		b.WriteString("\n")
	}
	hist("grade", func(i int) float64 { return mk.Homes[i].Grade })
	hist("condition", func(i int) float64 { return mk.Homes[i].Condition })
	hist("beds", func(i int) float64 { return mk.Homes[i].Beds })
	hist("baths", func(i int) float64 { return mk.Homes[i].Baths })
	hist("floors", func(i int) float64 { return mk.Homes[i].Floors })
	hist("decade built", func(i int) float64 { return math.Floor(mk.Homes[i].YearBuilt/10) * 10 })
	for _, typ := range []string{singleFamily, townhouse, condo, multiFamily} {
		var sq, lot []float64
		for _, h := range mk.Homes {
			if h.Type == typ {
				sq = append(sq, h.Sqft)
				if h.LotSqft > 0 {
					lot = append(lot, h.LotSqft)
				}
			}
		}
		fmt.Fprintf(&b, "%-13s sqft p10-p50-p90 %4.0f-%4.0f-%4.0f", typ, quantile(sq, 0.1), median(sq), quantile(sq, 0.9))
		if len(lot) > 0 {
			fmt.Fprintf(&b, ", lot %5.0f-%5.0f-%5.0f", quantile(lot, 0.1), median(lot), quantile(lot, 0.9))
		}
		b.WriteString("\n")
	}
	years := make([]int, 0, len(byYear))
	for y := range byYear {
		years = append(years, y)
	}
	slices.Sort(years)
	b.WriteString("sales per year:")
	for _, y := range years {
		fmt.Fprintf(&b, " %d:%d", y, byYear[y])
	}
	b.WriteString("\n")
	return b.String()
}

func TestSummary(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		mk := Generate(seed, testNow)
		t.Log("\n" + marketSummary(mk, testNow))
	}
}

func newTestHome(sqft, beds, baths, lot, grade, cond, floors float64) property.Home {
	h := property.NewHome()
	h.Sqft, h.Beds, h.Baths, h.LotSqft, h.Grade, h.Condition, h.Floors = sqft, beds, baths, lot, grade, cond, floors
	return h
}
