package avm

import (
	"math"
	"testing"
	"time"
)

// TestDriversAddUpToTheModelValue: the typical home's value plus the drivers is the model's value to the cent, for
// homes on record and homes valued from facts, and a home twice the typical size owes its lead to living area.
func TestDriversAddUpToTheModelValue(t *testing.T) {
	m, _ := synthMarket(800, 11)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	check := func(name string, h Home, property int32, model float64) Drivers {
		d := e.Drivers(h, property, at)
		sum := d.Typical
		for _, it := range d.Items {
			sum += it.Amount
		}
		if math.Abs(sum-model) > 0.01 {
			t.Errorf("%s: typical %.2f + drivers = %.2f, model value %.2f", name, d.Typical, sum, model)
		}
		return d
	}
	for p := int32(0); p < 40; p++ {
		h := m.Home(p)
		v := e.Value(h, p, at)
		check("record", h, p, v.ModelValue)
	}
	typ := e.typicalHome(47.66, -122.35)
	big := Unknown()
	big.Lat, big.Lon, big.Sqft, big.Type = 47.66, -122.35, 2*typ.Sqft, SingleFamily
	v, valued := e.ValueApprox(big, at)
	d := check("approx", valued, -1, v.ModelValue)
	// Its size is one of its drivers, up and all of it the size's (its place, north Seattle, is another about as
	// large: which comes first is a coin's toss of the model).
	var size *Driver
	for i := range d.Items {
		if d.Items[i].Factor == AdjLivingArea {
			size = &d.Items[i]
		}
	}
	if size == nil || size.Amount <= 0 || !(size.Share > 0.9) {
		t.Errorf("a home twice the typical size: drivers %+v", d.Items)
	}
}

// TestComparablesAreAdjustedLineByLine: each comparable is a different home, its adjustments add up to its adjusted
// price, the net and gross adjustments are those lines' shares of its price, and the reconciled value lies among the
// adjusted prices it reconciles.
func TestComparablesAreAdjustedLineByLine(t *testing.T) {
	m, truth := synthMarket(1500, 12)
	// A third of the homes sold again later: a comparable is the home by its latest sale, once.
	latest := map[int32]time.Time{}
	for _, s := range m.Sales {
		latest[s.Property] = s.Date()
	}
	n := len(m.Sales)
	for i := 0; i < n; i += 3 {
		s := m.Sales[i]
		d := s.Date().AddDate(0, 5, 0)
		m.Sales = append(m.Sales, Sale{ID: int64(len(m.Sales) + 1), Property: s.Property, Day: DayOf(d),
			Price: math.Round(truth(m.Home(s.Property), d))})
		latest[s.Property] = d
	}
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	for p := int32(0); p < 60; p++ {
		v := e.Value(m.Home(p), p, at)
		if len(v.Comparables) == 0 || len(v.Comparables) > gridComps {
			t.Fatalf("home %d: %d comparables", p, len(v.Comparables))
		}
		seen := map[int32]bool{}
		lo, hi, used := math.Inf(1), math.Inf(-1), 0
		for _, c := range v.Comparables {
			if seen[c.Property] {
				t.Errorf("home %d: home %d is a comparable twice", p, c.Property)
			}
			seen[c.Property] = true
			if want := latest[c.Property]; want.Before(at) && !c.Date.Equal(want) {
				t.Errorf("home %d: comparable %d by its sale of %s, not its latest of %s", p, c.Property,
					c.Date.Format(time.DateOnly), want.Format(time.DateOnly))
			}
			if c.Property == p {
				t.Errorf("home %d is its own comparable", p)
			}
			sum, gross := c.Price, 0.0
			for i, a := range c.Adjustments {
				if a.Line != AdjustmentLines[i] {
					t.Fatalf("line %d is %s, want %s", i, a.Line, AdjustmentLines[i])
				}
				sum += a.Amount
				gross += math.Abs(a.Amount)
			}
			if math.Abs(sum-c.AdjustedPrice) > 0.01 || math.Abs(c.NetAdjustment-(c.AdjustedPrice-c.Price)/c.Price) > 1e-9 ||
				math.Abs(c.GrossAdjustment-gross/c.Price) > 1e-9 {
				t.Errorf("home %d comparable %d: price %.0f + lines = %.0f, adjusted %.0f, net %.3f gross %.3f",
					p, c.Property, c.Price, sum, c.AdjustedPrice, c.NetAdjustment, c.GrossAdjustment)
			}
			if c.Reconciled {
				used++
				lo, hi = math.Min(lo, c.AdjustedPrice), math.Max(hi, c.AdjustedPrice)
			}
		}
		if used >= reconcileMin {
			if v.ComparablesValue < lo-0.01 || v.ComparablesValue > hi+0.01 || used > reconcileMax {
				t.Errorf("home %d: reconciled %.0f from %d adjusted prices %.0f-%.0f", p, v.ComparablesValue, used, lo, hi)
			}
		} else if v.ComparablesValue != 0 {
			t.Errorf("home %d: a comparables value from %d comparables", p, used)
		}
	}
}

// TestRatioStudy: figures worked by hand. Ratios 0.9, 1.0, 1.1, 1.2 on prices 100, 200, 300, 400: median 1.05, mean
// absolute deviation 0.1 (COD 9.52), mean ratio 1.05 over 1.1 (PRD 0.955), and ratios that rise with price: a
// positive PRB. Values in proportion to prices have COD 0, PRD 1 and PRB 0.
func TestRatioStudy(t *testing.T) {
	med, cod, prd, prb := RatioStudy([]float64{90, 200, 330, 480}, []float64{100, 200, 300, 400})
	if math.Abs(med-1.05) > 1e-9 || math.Abs(cod-100*0.1/1.05) > 1e-9 || math.Abs(prd-1.05/1.1) > 1e-9 || !(prb > 0) {
		t.Errorf("median %.4f COD %.4f PRD %.4f PRB %.4f", med, cod, prd, prb)
	}
	med, cod, prd, prb = RatioStudy([]float64{110, 220, 330}, []float64{100, 200, 300})
	if math.Abs(med-1.1) > 1e-9 || math.Abs(cod) > 1e-9 || math.Abs(prd-1) > 1e-9 || math.Abs(prb) > 1e-9 {
		t.Errorf("proportional: median %.4f COD %.4f PRD %.4f PRB %.4f", med, cod, prd, prb)
	}
}
