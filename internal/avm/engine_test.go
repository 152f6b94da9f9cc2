package avm

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// synthMarket builds a market in Seattle's 98103 where a home's price is known: $400 a square foot, times a
// location effect that rises to the east, times 1% a month of appreciation, times a little noise.
func synthMarket(n int, seed uint64) (*Market, func(h Home, at time.Time) float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	truth := func(h Home, at time.Time) float64 {
		months := at.Sub(start).Hours() / 24 / 30.4
		loc := math.Exp((h.Lon + 122.35) * 8) // about +/-15% across the area
		return 400 * h.Sqft * loc * math.Exp(0.01*months)
	}
	m := &Market{}
	for i := 0; i < n; i++ {
		h := Unknown()
		h.Lat = 47.66 + rng.Float64()*0.03 - 0.015
		h.Lon = -122.35 + rng.Float64()*0.04 - 0.02
		h.ZIP = "98103"
		h.Sqft = 900 + rng.Float64()*2100
		h.Beds = math.Round(h.Sqft / 600)
		h.Baths = math.Round(h.Sqft/900*2) / 2
		h.LotSqft = 3000 + rng.Float64()*4000
		h.YearBuilt = 1920 + math.Floor(rng.Float64()*100)
		h.Type = SingleFamily
		m.AddProperty(Property{ID: int64(i + 1), Home: h})
		d := start.AddDate(0, 0, rng.IntN(730))
		p := truth(h, d) * math.Exp(rng.NormFloat64()*0.03)
		m.Sales = append(m.Sales, Sale{ID: int64(i + 1), Property: int32(i), Day: DayOf(d), Price: math.Round(p)})
		if i%4 == 0 {
			m.Rentals = append(m.Rentals, Rental{Property: int32(i), Day: DayOf(d), Rent: p * 0.004})
		}
	}
	return m, truth
}

func testOptions() Options {
	o := DefaultOptions()
	o.Model.Trees = 300
	o.Model.LearningRate = 0.1
	o.Folds = 3
	return o
}

func TestEngineValuesAKnownMarket(t *testing.T) {
	m, truth := synthMarket(800, 1)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	subject := Unknown()
	subject.Lat, subject.Lon, subject.ZIP, subject.Type = 47.665, -122.34, "98103", SingleFamily
	subject.Sqft, subject.Beds, subject.Baths, subject.LotSqft, subject.YearBuilt = 1800, 3, 2, 5000, 1965
	v := e.Value(subject, -1, at)
	want := truth(subject, at)
	if rel := math.Abs(v.Value-want) / want; rel > 0.08 {
		t.Errorf("value %.0f, true value %.0f: off by %.1f%%", v.Value, want, 100*rel)
	}
	if !(v.Low < v.Value && v.Value < v.High) {
		t.Errorf("interval [%.0f, %.0f] does not hold the value %.0f", v.Low, v.High, v.Value)
	}
	if v.Confidence <= 0 || v.Confidence >= 1 {
		t.Errorf("confidence %.3f outside (0, 1)", v.Confidence)
	}
	if len(v.Comparables) == 0 || len(v.Comparables) > e.opt.Comps {
		t.Fatalf("%d comparables", len(v.Comparables))
	}
	for i, c := range v.Comparables {
		if !c.Date.Before(at) {
			t.Errorf("comparable %d sold %v, not before the valuation date", i, c.Date)
		}
		// Ranked by likeness and recency together.
		if i > 0 && c.weight > v.Comparables[i-1].weight {
			t.Errorf("comparables not ordered by weight at %d", i)
		}
		if c.Similarity < 0 || c.Similarity > 1 || !(c.AdjustedPrice > 0) {
			t.Errorf("comparable %d: similarity %.3f adjusted %.0f", i, c.Similarity, c.AdjustedPrice)
		}
	}
	// Rent: a quarter of the homes have rents nearby, at 0.4% of value a month.
	r := e.Rent(subject, v.Value, at)
	if r.Source != RentFromComparables || math.Abs(r.Rent/(want*0.004)-1) > 0.25 {
		t.Errorf("rent %+v, want about %.0f from comparables", r, want*0.004)
	}
}

func TestMarketDataBeforeTheValuationDateOnly(t *testing.T) {
	m, _ := synthMarket(600, 2)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	// Valued in the middle of the data, no comparable may come from after the date.
	at := time.Date(2022, 7, 1, 0, 0, 0, 0, time.UTC)
	v := e.Value(m.Home(0), 0, at)
	for _, c := range v.Comparables {
		if !c.Date.Before(at) {
			t.Fatalf("comparable dated %v used for a valuation at %v", c.Date, at)
		}
	}
}

// splitAt is the market of m's sales before cut, and the later sales as test sales of homes not on record.
func splitAt(m *Market, cut time.Time) (*Market, []TestSale) {
	market := &Market{homes: m.homes}
	var tests []TestSale
	for _, s := range m.Sales {
		if s.Date().Before(cut) {
			market.Sales = append(market.Sales, s)
		} else {
			tests = append(tests, TestSale{Home: m.Home(s.Property), Property: -1, Date: s.Date(), Price: s.Price})
		}
	}
	return market, tests
}

func TestEvaluateOnHeldOutSales(t *testing.T) {
	m, truth := synthMarket(900, 3)
	// Hold out the last 100 sales by date.
	cut := time.Date(2023, 10, 1, 0, 0, 0, 0, time.UTC)
	market, tests := splitAt(m, cut)
	e, err := Train(market, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := e.Evaluate(tests)
	if r.Valued != len(tests) {
		t.Errorf("valued %d of %d", r.Valued, len(tests))
	}
	// Noise is 3%: a good engine lands most sales within 10%.
	if r.MdAPE > 0.06 || r.PPE10 < 0.7 {
		t.Errorf("MdAPE %.3f PPE10 %.3f on an easy market", r.MdAPE, r.PPE10)
	}
	if len(r.Deciles) != 10 {
		t.Errorf("%d calibration deciles", len(r.Deciles))
	}
	_ = truth
}

func TestApproxValuationIsLessSure(t *testing.T) {
	m, truth := synthMarket(800, 4)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	h := m.Home(10)
	exact := e.Value(h, 10, at)
	approxHome, ok := approxVariant(h, true)
	if !ok {
		t.Fatal("98103 has no centre")
	}
	approx, valued := e.ValueApprox(approxHome, at)
	if !(approx.Confidence < exact.Confidence) {
		t.Errorf("ZIP-level confidence %.3f not below the exact %.3f", approx.Confidence, exact.Confidence)
	}
	if valued.Sqft != h.Sqft || !known(valued.LotSqft) || valued.Type == "" {
		t.Errorf("approximate home %+v: given attributes must be kept and the rest filled", valued)
	}
	if math.Abs(approx.Value/truth(h, at)-1) > 0.3 {
		t.Errorf("ZIP-level value %.0f far from %.0f", approx.Value, truth(h, at))
	}
}

func TestMarshalRestoreGivesTheSameValuations(t *testing.T) {
	m, _ := synthMarket(500, 5)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	blob, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// The same records save the same bytes, trained again or saved again (issue 39: engines trained by several
	// workers are compared with one worker's); gob writes maps in random order, so the saved engine has none.
	mAgain, _ := synthMarket(500, 5)
	again, err := Train(mAgain, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if b, err := again.Marshal(); err != nil || !bytes.Equal(b, blob) {
			t.Fatalf("saving an engine of the same records again: %d bytes (%v), first %d bytes, not the same", len(b), err, len(blob))
		}
	}
	m2, _ := synthMarket(500, 5)
	r, err := Restore(m2, blob)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 20; i++ {
		a, b := e.Value(m.Home(int32(i)), int32(i), at), r.Value(m2.Home(int32(i)), int32(i), at)
		if a.Value != b.Value || a.Confidence != b.Confidence || a.Low != b.Low || len(a.Comparables) != len(b.Comparables) {
			t.Fatalf("home %d: restored engine answers %+v, trained one %+v", i, b, a)
		}
	}
	// A market that lost a sale cannot take the saved engine.
	m3, _ := synthMarket(500, 5)
	m3.Sales = m3.Sales[1:]
	if _, err := Restore(m3, blob); err == nil {
		t.Error("restored an engine onto a market missing one of its sales")
	}
	if _, err := Restore(m2, []byte("garbage")); err == nil {
		t.Error("restored garbage")
	}
}

func TestTrainNeedsSales(t *testing.T) {
	if _, err := Train(&Market{}, testOptions()); err == nil {
		t.Error("trained on an empty market")
	}
}

func TestRentFromYieldWithoutRentals(t *testing.T) {
	r := rentFromYield(300000)
	if r.Source != RentFromModel || math.Abs(r.Rent-1800) > 1 || r.Low >= r.Rent || r.High <= r.Rent {
		t.Errorf("rent for $300,000 = %+v, want $1,800 a month from the model", r)
	}
	hi := rentFromYield(3000000)
	if hi.Rent/3000000 >= r.Rent/300000 {
		t.Error("the yield does not fall as the value rises")
	}
}

func BenchmarkValue(b *testing.B) {
	m, _ := synthMarket(3000, 6)
	e, err := Train(m, testOptions())
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Value(m.Home(int32(i%m.NumProperties())), -1, at)
	}
}

// A market is never carried more than MaxTrendMonths past its newest sale: a later date is valued as of that sale,
// exactly as if asked for that day, and says so; a date within the limit is valued as asked. Confidence is 1 − FSD.
func TestValuationsStopAtTheTrendLimit(t *testing.T) {
	m, _ := synthMarket(800, 4)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	subject := Unknown()
	subject.Lat, subject.Lon, subject.ZIP, subject.Type = 47.665, -122.34, "98103", SingleFamily
	subject.Sqft, subject.Beds, subject.Baths, subject.LotSqft, subject.YearBuilt = 1800, 3, 2, 5000, 1965

	newest := e.DataEnd().Add(-time.Second)
	within := e.DataEnd().AddDate(0, MaxTrendMonths, -2)
	if at, stale := e.AsOf(within); stale || !at.Equal(within) {
		t.Errorf("AsOf(%v) = %v, %v; want the date itself", within, at, stale)
	}
	for _, far := range []time.Time{e.DataEnd().AddDate(0, MaxTrendMonths, 0), e.DataEnd().AddDate(18, 0, 0)} {
		at, stale := e.AsOf(far)
		if !stale || !at.Equal(newest) {
			t.Errorf("AsOf(%v) = %v, %v; want the newest sale's day %v", far, at, stale, newest)
		}
		got, want := e.Value(subject, -1, far), e.Value(subject, -1, newest)
		if got.Value != want.Value || got.FSD != want.FSD || got.Low != want.Low || !got.At.Equal(newest) {
			t.Errorf("valued on %v: %.0f (FSD %.3f, as of %v); as of the newest sale: %.0f (FSD %.3f)", far, got.Value,
				got.FSD, got.At, want.Value, want.FSD)
		}
		approx, _ := e.ValueApprox(subject, far)
		if !approx.At.Equal(newest) {
			t.Errorf("an address not on record valued on %v is valued as of %v", far, approx.At)
		}
	}
	// Inside the limit the valuation is of the day asked, and its FSD grows with the distance from the data.
	near, later := e.Value(subject, -1, e.DataEnd()), e.Value(subject, -1, within)
	if !later.At.Equal(within) || !(later.FSD > near.FSD) {
		t.Errorf("FSD %.3f a month past the data, %.3f near the limit: it should grow", near.FSD, later.FSD)
	}
	for _, v := range []Valuation{near, later} {
		if math.Abs(v.Confidence-(1-v.FSD)) > 1e-12 || !(v.FSD > 0 && v.FSD < 1) || !(v.WithinTen > 0 && v.WithinTen < 1) {
			t.Errorf("confidence %.3f, FSD %.3f, within 10%% %.3f", v.Confidence, v.FSD, v.WithinTen)
		}
	}
}

func TestTooUncertain(t *testing.T) {
	for _, c := range []struct {
		low, high float64
		want      bool
	}{{100, 300, false}, {100, 299, false}, {100, 301, true}, {12300, 1215000, true}} {
		if got := (Valuation{Low: c.low, High: c.high}).TooUncertain(); got != c.want {
			t.Errorf("range %.0f-%.0f: too uncertain %v, want %v", c.low, c.high, got, c.want)
		}
	}
}

// TestPointValueIsValuesEstimate: the market statistics' values (PointValue) are exactly the estimates a valuation
// gives, without the range.
func TestPointValueIsValuesEstimate(t *testing.T) {
	m, _ := synthMarket(500, 3)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := e.DataEnd().AddDate(0, 1, 0)
	for i := int32(0); i < 40; i++ {
		h := m.Home(i)
		if got, want := e.PointValue(h, i, at), e.Value(h, i, at).Value; got != want {
			t.Errorf("home %d: point value %v, valuation %v", i, got, want)
		}
	}
	ix := e.PriceIndex()
	if l, ok := ix.Month(ix.Start); !ok || l != ix.Levels[0] {
		t.Errorf("first month %v %v", l, ok)
	}
	if _, ok := ix.Month(ix.Start.AddDate(0, -1, 0)); ok {
		t.Error("a month before the data has a level")
	}
	if l, ok := ix.Month(ix.End().AddDate(0, 2, 0)); !ok || l != ix.At(ix.End().AddDate(0, 2, 15)) {
		t.Errorf("a month after the data: %v %v", l, ok)
	}
}

// TestModelValueRisesWithLivingArea: every input that moves with the living area is a monotone function of it and a
// monotone constraint of the trees (monotoneFeatures), so the model never values a larger home below a smaller one at
// the same place with the same other facts, for any home, size or retraining, recorded or known by facts alone.
func TestModelValueRisesWithLivingArea(t *testing.T) {
	m, _ := synthMarket(800, 6)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	for p := 0; p < m.NumProperties(); p += 40 {
		rec := m.Home(int32(p))
		approx, ok := approxVariant(rec, true)
		if !ok {
			t.Fatal("98103 has no centre")
		}
		prevRec, prevApprox := 0.0, 0.0
		for sqft := 300.0; sqft <= 12000; sqft *= 1.07 {
			h := rec
			h.Sqft, h.SqftAbove = sqft, Unknown().SqftAbove
			v := e.Value(h, int32(p), at).ModelValue
			a := approx
			a.Sqft = sqft
			av, _ := e.ValueApprox(a, at)
			if v < prevRec || av.ModelValue < prevApprox {
				t.Errorf("home %d at %.0f sq ft: model values %.0f (recorded) and %.0f (by facts), below %.0f and %.0f for a smaller size",
					p, sqft, v, av.ModelValue, prevRec, prevApprox)
			}
			prevRec, prevApprox = math.Max(prevRec, v), math.Max(prevApprox, av.ModelValue)
		}
	}
}

// TestSizeElasticityIsTheMarkets: the elasticity that corrects neighbours' prices to the subject's size is learned
// from the market: the synthetic market's prices are proportional to the living area (elasticity 1), a fixed guess
// was 0.45.
func TestSizeElasticityIsTheMarkets(t *testing.T) {
	m, _ := synthMarket(800, 7)
	e, err := Train(m, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Info().SizeElasticity; math.Abs(got-1) > 0.1 {
		t.Errorf("size elasticity %.3f, the market's is 1", got)
	}
	data, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(m, data)
	if err != nil {
		t.Fatal(err)
	}
	if r.elasticity != e.elasticity {
		t.Errorf("restored elasticity %v, trained %v", r.elasticity, e.elasticity)
	}
}
