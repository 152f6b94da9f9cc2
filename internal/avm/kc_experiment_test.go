package avm

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

// loadKCMarket reads the King County file into a market of the sales before cut and the test sales after it.
func loadKCMarket(t testing.TB, cut time.Time) (*Market, []TestSale) {
	f, err := os.Open("../../../shared/data/kc_house_sales.csv")
	if err != nil {
		t.Skip("no King County data")
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := &Market{}
	byParcel := map[string]int32{}
	var tests []TestSale
	for _, r := range recs[1:] {
		p := func(i int) float64 { v, _ := strconv.ParseFloat(r[i], 64); return v }
		d, _ := time.Parse("20060102", r[1][:8])
		h := Unknown()
		h.Beds, h.Baths, h.Sqft, h.LotSqft, h.Floors = p(3), p(4), p(5), p(6), p(7)
		h.Waterfront, h.View, h.Condition, h.Grade = p(8), p(9), p(10), p(11)
		h.SqftAbove, h.SqftBasement, h.YearBuilt, h.YearRenovated = p(12), p(13), p(14), p(15)
		h.ZIP, h.Lat, h.Lon, h.NbrSqft, h.NbrLot = r[16], p(17), p(18), p(19), p(20)
		h.Type = SingleFamily
		if d.Before(cut) {
			pi, ok := byParcel[r[0]]
			if !ok {
				id, _ := strconv.ParseInt(r[0], 10, 64)
				m.Properties = append(m.Properties, Property{ID: id, Home: h})
				pi = int32(len(m.Properties) - 1)
				byParcel[r[0]] = pi
			}
			m.Sales = append(m.Sales, Sale{ID: int64(len(m.Sales) + 1), Property: pi, Date: d, Price: p(2)})
		} else {
			tests = append(tests, TestSale{Home: h, Property: -1, Date: d, Price: p(2), parcel: r[0]})
		}
	}
	for i := range tests {
		if pi, ok := byParcel[tests[i].parcel]; ok {
			tests[i].Property = pi
		}
	}
	return m, tests
}

func TestKCExperiment(t *testing.T) {
	if os.Getenv("VALUATOR_KC") == "" {
		t.Skip("set VALUATOR_KC=1")
	}
	cut := time.Date(2015, 2, 1, 0, 0, 0, 0, time.UTC)
	m, tests := loadKCMarket(t, cut)
	start := time.Now()
	e, err := Train(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trained in %v; alpha %.2f k0 %.2f; slope %.4f; holdout n=%d hits %.3f", time.Since(start), e.alpha, e.k0,
		e.index.Slope, e.calib.holdoutN, e.calib.holdoutHits)
	for i, l := range e.index.Levels {
		t.Logf("index %s %+.4f", e.index.Start.AddDate(0, i, 0).Format("2006-01"), l)
	}
	e.Evaluate(tests).Print(os.Stdout)
	// Would blending the comparables' residuals help on the held-out valuations?
	for _, a := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
		for _, k0 := range []float64{0.5, 2, 8} {
			var errs []float64
			for _, h := range e.calib.held {
				errs = append(errs, math.Abs(h.modelErr-a*h.neff/(h.neff+k0)*h.compMean))
			}
			fmt.Printf("blend a=%.1f k0=%.1f holdout median abs err %.4f\n", a, k0, median(errs))
		}
	}
	// (holdout fit below)
	type cr struct {
		conf float64
		hit  bool
	}
	var rs []cr
	for _, h := range e.calib.held {
		rs = append(rs, cr{e.calib.confidence(h.sig), math.Abs(math.Exp(h.logErr)-1) <= 0.1})
	}
	sort.Slice(rs, func(a, b int) bool { return rs[a].conf < rs[b].conf })
	for d := 0; d < 10; d++ {
		lo, hi := d*len(rs)/10, (d+1)*len(rs)/10
		var c, h float64
		for _, x := range rs[lo:hi] {
			c += x.conf
			if x.hit {
				h++
			}
		}
		fmt.Printf("holdout decile %d: stated %.1f observed %.1f\n", d+1, 100*c/float64(hi-lo), 100*h/float64(hi-lo))
	}
}
