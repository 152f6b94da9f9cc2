package valuation

import (
	"fmt"
	"time"

	"valuator/internal/avm"
	"valuator/internal/property"
	"valuator/internal/store"
)

// Split builds the accuracy protocol of ../shared/data/README.md from imported records: the market is every sale
// dated before cut; the test set is every sale on or after it. A test home that also sold before the cut is
// linked to its market record (its earlier sale is market data the engine may use).
func Split(recs []property.Record, cut time.Time) (*avm.Market, []avm.TestSale) {
	var md store.MarketData
	ids := map[string]int64{}
	key := func(h *property.Home) string {
		if h.ExternalID != "" {
			return "id:" + h.ExternalID
		}
		return "addr:" + h.ZIP + "|" + h.StreetKey + "|" + h.UnitKey
	}
	var tests []avm.TestSale
	var testKeys []string
	for i := range recs {
		r := &recs[i]
		if r.Price <= 0 {
			continue
		}
		k := key(&r.Home)
		if !r.SaleDate.Before(cut) {
			tests = append(tests, avm.TestSale{Home: engineHome(&r.Home), Property: -1, Date: r.SaleDate,
				Price: float64(r.Price)})
			testKeys = append(testKeys, k)
			continue
		}
		id, ok := ids[k]
		if !ok {
			id = int64(len(md.Homes) + 1)
			ids[k] = id
			h := r.Home
			h.ID = id
			md.Homes = append(md.Homes, h)
		}
		md.Sales = append(md.Sales, property.Sale{ID: int64(len(md.Sales) + 1), PropertyID: id, Date: r.SaleDate,
			Price: r.Price})
	}
	m := toMarket(md)
	for i, k := range testKeys {
		if id, ok := ids[k]; ok {
			tests[i].Property = int32(id - 1)
		}
	}
	return m, tests
}

// ApproxTests turns test sales into lookups of addresses not on record: each home placed at its ZIP code's
// centre with its type and living area (the least such a lookup needs), two in three also with beds, baths and year
// built.
func ApproxTests(tests []avm.TestSale) []avm.TestSale {
	out := make([]avm.TestSale, 0, len(tests))
	for i, t := range tests {
		h, ok := avm.ApproxHome(t.Home, i%3 != 0)
		if !ok {
			continue
		}
		t.Home, t.Property, t.Approx = h, -1, true
		out = append(out, t)
	}
	return out
}

// PathTests are the test sales valued on every path a lookup can take: as recorded (own sale or record), and again
// as addresses not on record from their type and living area alone, from those and their beds, baths and year built,
// and as units of their buildings (their own place, type, living area, beds and baths).
func PathTests(tests []avm.TestSale) []avm.TestSale {
	out := append([]avm.TestSale(nil), tests...)
	for _, t := range tests {
		for _, keep := range []bool{false, true} {
			if h, ok := avm.ApproxHome(t.Home, keep); ok {
				v := t
				v.Home, v.Property, v.Approx = h, -1, true
				out = append(out, v)
			}
		}
		if h, ok := avm.UnitHome(t.Home); ok {
			v := t
			v.Home, v.Property, v.Approx, v.Unit = h, -1, true, true
			out = append(out, v)
		}
	}
	return out
}

// Describe summarises a split for the report.
func Describe(m *avm.Market, tests []avm.TestSale) string {
	repeat := 0
	for _, t := range tests {
		if t.Property >= 0 {
			repeat++
		}
	}
	return fmt.Sprintf("market: %d sales of %d homes; test: %d sales (%d of homes that also sold before the cut)",
		len(m.Sales), m.NumProperties(), len(tests), repeat)
}
