package demo

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"valuator/internal/address"
	"valuator/internal/geo"
)

// market is the default market of the tests, generated once.
var market = Generate(1, testNow)

// fingerprint writes a market out in full; NaN fields make reflect.DeepEqual useless for comparing homes.
func fingerprint(mk Market) string {
	var b strings.Builder
	for _, h := range mk.Homes {
		fmt.Fprintf(&b, "%#v\n", h)
	}
	for _, s := range mk.Sales {
		fmt.Fprintf(&b, "%d %s %d\n", s.Home, s.Date.Format(time.RFC3339), s.Price)
	}
	for _, r := range mk.Rentals {
		fmt.Fprintf(&b, "%d %s %d\n", r.Home, r.Date.Format(time.RFC3339), r.Rent)
	}
	return b.String()
}

func TestDeterministic(t *testing.T) {
	a := fingerprint(market)
	if b := fingerprint(Generate(1, testNow)); a != b {
		t.Error("Generate(1, now) twice gave different markets")
	}
	// The end date counts by its UTC day: the time of day and the zone do not change the market.
	pdt := time.FixedZone("PDT", -7*3600)
	if b := fingerprint(Generate(1, time.Date(2026, 3, 15, 1, 5, 0, 0, pdt))); a != b {
		t.Error("Generate(1, 2026-03-15 01:05 PDT) differs from the market of 2026-03-15 UTC")
	}
	if b := fingerprint(Generate(2, testNow)); a == b {
		t.Error("seeds 1 and 2 gave the same market")
	}
}

func TestCounts(t *testing.T) {
	if got := len(market.Homes); got != DefaultHomes {
		t.Errorf("Generate made %d homes, want %d", got, DefaultHomes)
	}
	for _, n := range []int{100, 777, 5000} {
		if got := len(GenerateN(3, testNow, n).Homes); got != n {
			t.Errorf("GenerateN(%d) made %d homes", n, got)
		}
	}
	perHome := float64(len(market.Sales)) / float64(len(market.Homes))
	if perHome < 1.15 || perHome > 1.45 {
		t.Errorf("%.2f sales a home, want about 1.3", perHome)
	}
	recent := 0
	for _, s := range market.Sales {
		if s.Date.After(testNow.AddDate(-2, 0, 0)) {
			recent++
		}
	}
	if recent < 1500 {
		t.Errorf("%d sales in the last 24 months, want at least 1,500", recent)
	}
	perHomeSales := make([]int, len(market.Homes))
	for _, s := range market.Sales {
		perHomeSales[s.Home]++
	}
	for i, n := range perHomeSales {
		if n > 3 {
			t.Errorf("home %d sold %d times, want at most 3", i, n)
		}
	}
	let := map[int]int{}
	for _, r := range market.Rentals {
		let[r.Home]++
	}
	if share := float64(len(let)) / float64(len(market.Homes)); share < 0.2 || share > 0.3 {
		t.Errorf("%.1f%% of homes have rentals, want about 25%%", 100*share)
	}
	for i, n := range let {
		if n < 1 || n > 3 {
			t.Errorf("home %d has %d rentals, want 1 to 3", i, n)
		}
	}
	types := map[string]int{}
	for _, h := range market.Homes {
		types[h.Type]++
	}
	for typ, want := range map[string][2]float64{singleFamily: {0.65, 0.8}, townhouse: {0.07, 0.16},
		condo: {0.07, 0.14}, multiFamily: {0.02, 0.08}} {
		if share := float64(types[typ]) / float64(len(market.Homes)); share < want[0] || share > want[1] {
			t.Errorf("%s: %.1f%% of homes, want %.0f%% to %.0f%%", typ, 100*share, 100*want[0], 100*want[1])
		}
	}
}

func TestAddresses(t *testing.T) {
	seen := map[string]int{}
	ids := map[string]bool{}
	buildings := map[string]int{} // condo buildings: units per ZIP and street
	for i, h := range market.Homes {
		if h.Source != Source {
			t.Errorf("home %d: Source %q, want %q", i, h.Source, Source)
		}
		if ids[h.ExternalID] || h.ExternalID == "" {
			t.Errorf("home %d: ExternalID %q empty or repeated", i, h.ExternalID)
		}
		ids[h.ExternalID] = true
		key := h.ZIP + "|" + h.StreetKey + "|" + h.UnitKey
		if j, dup := seen[key]; dup {
			t.Errorf("homes %d and %d share the address %s %s %s %s", j, i, h.Street, h.UnitType, h.Unit, h.ZIP)
		}
		seen[key] = i

		line := h.Street
		if h.Unit != "" {
			line += " " + h.UnitType + " " + h.Unit
		}
		a, err := address.FromParts(line, h.City, h.State, h.ZIP)
		if err != nil {
			t.Errorf("home %d: %q does not parse: %v", i, line, err)
			continue
		}
		if a.Street() != h.Street || a.UnitType != h.UnitType || a.UnitNumber != h.Unit || a.City != h.City ||
			a.State != h.State || a.ZIP != h.ZIP || a.StreetKey() != h.StreetKey || a.UnitKey() != h.UnitKey ||
			a.NameKey() != h.NameKey {
			t.Errorf("home %d: %q, %s, %s %s parses back as %+v", i, line, h.City, h.State, h.ZIP, a)
		}
		// The one-line form a user would type must find the same home.
		a, err = address.Parse(a.Line())
		if err != nil || a.StreetKey() != h.StreetKey || a.UnitKey() != h.UnitKey {
			t.Errorf("home %d: one-line %q parses to %q %q (%v)", i, a.Line(), a.StreetKey(), a.UnitKey(), err)
		}
		switch {
		case h.Type == condo && h.UnitKey == "":
			t.Errorf("home %d: a condo without a unit", i)
		case h.Type != condo && h.UnitKey != "":
			t.Errorf("home %d: a %s with unit %q", i, h.Type, h.UnitKey)
		}
		if h.Type == condo {
			if h.UnitType != "APT" && h.UnitType != "UNIT" {
				t.Errorf("home %d: unit designator %q, want APT or UNIT", i, h.UnitType)
			}
			buildings[h.ZIP+"|"+h.StreetKey]++
		}
	}
	for b, n := range buildings {
		if n < 2 {
			t.Errorf("condo building %s has %d unit on record, want several", b, n)
		}
	}
	if len(buildings) == 0 {
		t.Error("no condo buildings")
	}
	// A street key that holds a condo building holds no other kind of home.
	for i, h := range market.Homes {
		if h.Type != condo && buildings[h.ZIP+"|"+h.StreetKey] > 0 {
			t.Errorf("home %d: a %s at the address of a condo building", i, h.Type)
		}
	}
}

func TestZIPsAreReal(t *testing.T) {
	for _, m := range metros {
		if len(m.zips) < 5 || len(m.zips) > 8 {
			t.Errorf("%s has %d ZIP codes, want 5 to 8", m.name, len(m.zips))
		}
		for _, z := range m.zips {
			gz, ok := geo.LookupZIP(z.code)
			if !ok {
				t.Errorf("%s: ZIP %s is not a real ZIP code", m.name, z.code)
				continue
			}
			if !strings.EqualFold(gz.City, m.name) {
				t.Errorf("%s: ZIP %s is in %s", m.name, z.code, gz.City)
			}
		}
	}
	for i, h := range market.Homes {
		gz, ok := geo.LookupZIP(h.ZIP)
		if !ok {
			t.Errorf("home %d: ZIP %q is not real", i, h.ZIP)
			continue
		}
		if !strings.EqualFold(h.City, gz.City) || h.State != gz.State || h.County != gz.County {
			t.Errorf("home %d: %s, %s, %s in ZIP %s, which is %s, %s, %s", i, h.City, h.State, h.County, h.ZIP,
				gz.City, gz.State, gz.County)
		}
	}
}

func TestCoordinates(t *testing.T) {
	var worst float64
	far := 0
	for i, h := range market.Homes {
		gz, _ := geo.LookupZIP(h.ZIP)
		d := geo.Miles(h.Lat, h.Lon, gz.Lat, gz.Lon)
		worst = max(worst, d)
		if d > 1.5 {
			far++
		}
		if !(d <= 3) {
			t.Errorf("home %d (%s, %s) is %.2f miles from its ZIP's centroid, want at most 3", i, h.Street, h.ZIP, d)
		}
	}
	if share := float64(far) / float64(len(market.Homes)); share > 0.02 {
		t.Errorf("%.1f%% of homes lie more than 1.5 miles from their ZIP's centroid", 100*share)
	}
	t.Logf("farthest home: %.2f miles from its ZIP's centroid", worst)

	// Homes on one street lie near each other: the farthest two on a street within a mile.
	type pt struct{ lat, lon float64 }
	streets := map[string][]pt{}
	for _, h := range market.Homes {
		k := h.ZIP + "|" + h.NameKey[strings.IndexByte(h.NameKey, '|'):]
		streets[k] = append(streets[k], pt{h.Lat, h.Lon})
	}
	for k, ps := range streets {
		for _, p := range ps {
			if d := geo.Miles(p.lat, p.lon, ps[0].lat, ps[0].lon); d > 1 {
				t.Errorf("street %s: homes %.2f miles apart", k, d)
				break
			}
		}
	}
}

var imageURL = regexp.MustCompile(`^/demo-homes/house-[1-6]\.svg$`)

func TestAttributes(t *testing.T) {
	type bounds struct{ lo, hi float64 }
	check := func(i int, name string, v float64, b bounds) {
		t.Helper()
		if !(v >= b.lo && v <= b.hi) {
			t.Errorf("home %d (%s): %s = %v, want %v to %v", i, market.Homes[i].Type, name, v, b.lo, b.hi)
		}
	}
	images := map[string]int{}
	for i, h := range market.Homes {
		check(i, "Sqft", h.Sqft, bounds{400, 7000})
		check(i, "Beds", h.Beds, bounds{0, 12})
		check(i, "Baths", h.Baths, bounds{1, 6})
		check(i, "YearBuilt", h.YearBuilt, bounds{1870, float64(testNow.Year() - 1)})
		check(i, "Floors", h.Floors, bounds{1, 3})
		check(i, "Grade", h.Grade, bounds{4, 12})
		check(i, "Condition", h.Condition, bounds{1, 5})
		check(i, "SqftAbove+SqftBase", h.SqftAbove+h.SqftBase, bounds{h.Sqft, h.Sqft})
		check(i, "YearRenov", h.YearRenov, bounds{0, 0})
		if h.Type == condo {
			if !math.IsNaN(h.LotSqft) {
				t.Errorf("home %d: a condo with a lot of %v", i, h.LotSqft)
			}
		} else {
			check(i, "LotSqft", h.LotSqft, bounds{900, 60000})
		}
		if h.Type != condo && h.Beds < 1 {
			t.Errorf("home %d: a %s with no bedroom", i, h.Type)
		}
		if !imageURL.MatchString(h.ImageURL) {
			t.Errorf("home %d: ImageURL %q", i, h.ImageURL)
		}
		images[h.ImageURL]++
		drawing := map[string]string{condo: "/demo-homes/house-5.svg", townhouse: "/demo-homes/house-4.svg"}
		if want, ok := drawing[h.Type]; ok && h.ImageURL != want {
			t.Errorf("home %d: a %s drawn as %s, want %s", i, h.Type, h.ImageURL, want)
		}
		if !math.IsNaN(h.View) || !math.IsNaN(h.NbrSqft) {
			t.Errorf("home %d: View or NbrSqft set; the generator does not model them", i)
		}
	}
	if len(images) != 6 {
		t.Errorf("drawings used: %v, want all six", images)
	}
	t.Logf("drawings: %v", images)
}

// TestPrices checks every sale against bounds no real sale in these metros would break.
func TestPrices(t *testing.T) {
	for _, s := range market.Sales {
		h := market.Homes[s.Home]
		if s.Price < 50_000 || s.Price > 10_000_000 || s.Price%500 != 0 {
			t.Errorf("home %d sold for $%d on %s: want $50,000 to $10M in steps of $500", s.Home, s.Price,
				s.Date.Format(time.DateOnly))
		}
		if ppsf := float64(s.Price) / h.Sqft; ppsf < 40 || ppsf > 2500 {
			t.Errorf("home %d (%s, %.0f sqft) sold for $%d, $%.0f a square foot", s.Home, h.Type, h.Sqft, s.Price, ppsf)
		}
	}
	// Each price is the home's model value on its date times the shock of the sale, and nothing else.
	g := rebuild(t)
	var sum, sum2 float64
	for _, s := range market.Sales {
		d := math.Log(float64(s.Price)) - g.logValue(s.Home, s.Date)
		sum += d
		sum2 += d * d
	}
	n := float64(len(market.Sales))
	mean, sd := sum/n, math.Sqrt(sum2/n-(sum/n)*(sum/n))
	if math.Abs(mean) > 0.01 || math.Abs(sd-saleShockSD) > 0.01 {
		t.Errorf("log(price / model value): mean %.4f, sd %.4f; want 0 and %.2f", mean, sd, saleShockSD)
	}
}

func TestSaleDates(t *testing.T) {
	from, to := time.Date(2016, 3, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	for j, s := range market.Sales {
		if s.Date.Before(from) || s.Date.After(to) {
			t.Errorf("sale %d on %s, outside %s to %s", j, s.Date, from.Format(time.DateOnly), to.Format(time.DateOnly))
		}
		if s.Date.Location() != time.UTC || s.Date.Hour() != 0 || s.Date.Minute() != 0 {
			t.Errorf("sale %d at %s, want midnight UTC", j, s.Date)
		}
		if wd := s.Date.Weekday(); wd == time.Saturday || wd == time.Sunday {
			t.Errorf("sale %d on a %s", j, wd)
		}
		if float64(s.Date.Year()) < market.Homes[s.Home].YearBuilt {
			t.Errorf("sale %d on %s, before its home was built (%v)", j, s.Date.Format(time.DateOnly),
				market.Homes[s.Home].YearBuilt)
		}
		if j > 0 {
			p := market.Sales[j-1]
			switch {
			case s.Home < p.Home:
				t.Errorf("sale %d (home %d) after a sale of home %d: want sales ordered by home", j, s.Home, p.Home)
			case s.Home == p.Home && s.Date.Sub(p.Date) < minResale:
				t.Errorf("home %d sold on %s and %s: want dates sorted and a year apart", s.Home,
					p.Date.Format(time.DateOnly), s.Date.Format(time.DateOnly))
			}
		}
	}
	// Sales spread over the days: no date holds more than a handful.
	perDay := map[time.Time]int{}
	for _, s := range market.Sales {
		perDay[s.Date]++
	}
	for d, n := range perDay {
		if n > 12 {
			t.Errorf("%d sales on %s", n, d.Format(time.DateOnly))
		}
	}
}

func TestRentals(t *testing.T) {
	from := time.Date(2023, 3, 15, 0, 0, 0, 0, time.UTC)
	for j, r := range market.Rentals {
		h := market.Homes[r.Home]
		if r.Date.Before(from) || r.Date.After(testNow) {
			t.Errorf("rental %d listed %s, outside the last %d years", j, r.Date.Format(time.DateOnly), rentalYears)
		}
		if r.Rent%25 != 0 || r.Rent < 500 || r.Rent > 15000 {
			t.Errorf("rental %d: $%d a month, want $500 to $15,000 in steps of $25", j, r.Rent)
		}
		// Against the model value of the home on the date, the gross yield stays within what the market knows.
		g := rebuild(t)
		v := math.Exp(g.logValue(r.Home, r.Date))
		if y := float64(r.Rent) * 12 / v; y < 0.025 || y > 0.12 {
			t.Errorf("rental %d: a %s worth $%.0f lets for $%d, a gross yield of %.1f%%", j, h.Type, v, r.Rent, 100*y)
		}
		if j > 0 {
			p := market.Rentals[j-1]
			if r.Home < p.Home || (r.Home == p.Home && r.Date.Sub(p.Date) < minRelet) {
				t.Errorf("rentals %d and %d: want them ordered by home and ten months apart", j-1, j)
			}
		}
	}
}

var rebuilt *generator

// rebuild lays out the default market's homes again, to reach the model values behind its prices.
func rebuild(t *testing.T) *generator {
	t.Helper()
	if rebuilt == nil {
		rebuilt = build(1, testNow, DefaultHomes)
		if fingerprint(Market{Homes: rebuilt.homes}) != fingerprint(Market{Homes: market.Homes}) {
			t.Fatal("build does not lay out the homes of Generate")
		}
	}
	return rebuilt
}

// TestMetroMedians checks that each metro's recent median sale price lands near the target its level was set
// for, for a few seeds: the level, growth and ZIP effects together give the documented market.
func TestMetroMedians(t *testing.T) {
	metroOf := map[string]*metro{}
	for i := range metros {
		for _, z := range metros[i].zips {
			metroOf[z.code] = &metros[i]
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		mk := market
		if seed > 1 {
			mk = Generate(seed, testNow)
		}
		prices := map[string][]float64{}
		for _, s := range mk.Sales {
			if s.Date.After(testNow.AddDate(-2, 0, 0)) {
				m := metroOf[mk.Homes[s.Home].ZIP]
				prices[m.name] = append(prices[m.name], float64(s.Price))
			}
		}
		for _, m := range metros {
			if got := median(prices[m.name]); got < 0.8*m.target || got > 1.2*m.target {
				t.Errorf("seed %d, %s: median recent sale $%.0f, want within 20%% of $%.0f", seed, m.name, got, m.target)
			}
		}
	}
}

func TestMarketIndex(t *testing.T) {
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, m := range metros {
		if m.growth < 0.03 || m.growth > 0.07 {
			t.Errorf("%s: appreciation %.1f%%, want 3%% to 7%%", m.name, 100*m.growth)
		}
		// Year on year at the same date the index grows by the appreciation; the season cancels.
		a, b := start.AddDate(3, 5, 0), start.AddDate(4, 5, 0)
		if got := math.Expm1(m.logIndex(b, start) - m.logIndex(a, start)); math.Abs(got-m.growth) > 0.002 {
			t.Errorf("%s: index grew %.2f%% in a year, want %.2f%%", m.name, 100*got, 100*m.growth)
		}
		june, dec := time.Date(2020, 6, 15, 0, 0, 0, 0, time.UTC), time.Date(2020, 12, 15, 0, 0, 0, 0, time.UTC)
		trend := dec.Sub(june).Hours() / 24 / 365.25 * math.Log1p(m.growth)
		if got := m.logIndex(june, start) - m.logIndex(dec, start) + trend; math.Abs(got-2*seasonAmplitude) > 0.002 {
			t.Errorf("%s: June over December, net of trend, %.3f, want %.3f", m.name, got, 2*seasonAmplitude)
		}
	}
	// The market shows it: repeat sales of one home gain about the metro's appreciation a year.
	metroOf := map[string]*metro{}
	for i := range metros {
		for _, z := range metros[i].zips {
			metroOf[z.code] = &metros[i]
		}
	}
	var sum, n float64
	for j := 1; j < len(market.Sales); j++ {
		p, s := market.Sales[j-1], market.Sales[j]
		if p.Home != s.Home {
			continue
		}
		years := s.Date.Sub(p.Date).Hours() / 24 / 365.25
		g := math.Log1p(metroOf[market.Homes[s.Home].ZIP].growth)
		sum += math.Log(float64(s.Price)/float64(p.Price))/years - g
		n++
	}
	if n < 300 {
		t.Fatalf("only %v repeat sales", n)
	}
	if mean := sum / n; math.Abs(mean) > 0.02 {
		t.Errorf("repeat sales beat their metro's appreciation by %.1f%% a year on average, want about 0", 100*mean)
	}
}

func TestHedonicPrice(t *testing.T) {
	// King County's typical sale: 1,910 sqft, 3 bedrooms, 2.25 baths, a 7,600 sqft lot, 40 years old,
	// grade 7, condition 3, 1.5 floors. King County's median sale price in 2014-15 was $450,000.
	h := newTestHome(1910, 3, 2.25, 7600, 7, 3, 1.5)
	if got := math.Exp(hedonicLogPrice(&h, 40)); got < 350_000 || got > 500_000 {
		t.Errorf("typical King County home priced at $%.0f, want about $420,000", got)
	}
	big := newTestHome(3820, 3, 2.25, 7600, 7, 3, 1.5)
	if r := math.Exp(hedonicLogPrice(&big, 40) - hedonicLogPrice(&h, 40)); math.Abs(r-math.Pow(2, hedonicCoef[0])) > 1e-9 {
		t.Errorf("twice the living area: price ratio %.3f, want 2^%.4f", r, hedonicCoef[0])
	}
	c := newTestHome(900, 2, 1, math.NaN(), 8, 3, 1)
	if got := math.Exp(hedonicLogPrice(&c, 10)); !(got > 150_000 && got < 400_000) {
		t.Errorf("a 900 sqft condo priced at $%.0f", got)
	}
}

func TestMonthlyYield(t *testing.T) {
	m := &metro{yield: 1}
	for _, c := range []struct{ value, want float64 }{{300_000, 0.0055}, {1_500_000, 0.0035}} {
		if got := monthlyYield(c.value, m, singleFamily); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("monthlyYield(%v) = %v, want %v", c.value, got, c.want)
		}
	}
	for _, mt := range metros {
		if mt.yield < 0.85 || mt.yield > 1.15 {
			t.Errorf("%s: yield factor %v", mt.name, mt.yield)
		}
	}
}

func TestLocationEffects(t *testing.T) {
	g := rebuild(t)
	plans := g.zips()
	for _, m := range metros {
		var sum float64
		for _, p := range plans {
			if p.m.name == m.name {
				sum += p.effect
				if math.Abs(p.effect) > 2*neighbourhoodSD+1e-12 {
					t.Errorf("ZIP %s: effect %.3f, want within ±%.2f", p.z.code, p.effect, 2*neighbourhoodSD)
				}
			}
		}
		if math.Abs(sum) > 1e-9 {
			t.Errorf("%s: ZIP effects sum to %v, want 0 (the level is the metro's)", m.name, sum)
		}
	}
	// Location within a ZIP moves prices by about 10%, as in King County.
	byZIP := map[string][]float64{}
	for i, h := range g.homes {
		byZIP[h.ZIP] = append(byZIP[h.ZIP], g.info[i].logLoc)
	}
	var ss, n float64
	for _, v := range byZIP {
		var mean float64
		for _, x := range v {
			mean += x
		}
		mean /= float64(len(v))
		for _, x := range v {
			ss += (x - mean) * (x - mean)
			n++
		}
	}
	if sd := math.Sqrt(ss / n); sd < 0.07 || sd > 0.13 {
		t.Errorf("location within a ZIP: sd %.3f of log price, want about 0.10", sd)
	}
}

// TestShowcase: the showcase home (demo.go) is the same house on every day the market is generated for, at
// ShowcaseStreet (which the end-to-end tests look up), and its last sale is its resale showcaseAgo before that day
// at showcasePremium over its value, at least two years after its sale before.
func TestShowcase(t *testing.T) {
	for _, day := range []time.Time{
		time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC),
	} {
		g := build(1, day, DefaultHomes)
		i := g.showcase()
		if i < 0 {
			t.Fatalf("%s: no showcase home", day.Format(time.DateOnly))
		}
		if h := g.homes[i]; h.Street != ShowcaseStreet || h.ZIP != showcaseZIP {
			t.Errorf("%s: the showcase home is %s %s, want %s %s", day.Format(time.DateOnly), h.Street, h.ZIP,
				ShowcaseStreet, showcaseZIP)
		}
		m := GenerateN(1, day, DefaultHomes)
		var own []Sale
		for _, s := range m.Sales {
			if s.Home == i {
				own = append(own, s)
			}
		}
		last := own[len(own)-1]
		want := math.Exp(g.logValue(i, last.Date) + showcasePremium)
		if !last.Date.Equal(day.Add(-showcaseAgo)) || math.Abs(float64(last.Price)-want) > 500 {
			t.Errorf("%s: last sale %v at %d, want %v at %.0f", day.Format(time.DateOnly), last.Date, last.Price,
				day.Add(-showcaseAgo), want)
		}
		if len(own) > 1 && own[len(own)-2].Date.After(day.AddDate(-2, 0, 0)) {
			t.Errorf("%s: sold on %v, then again on %v", day.Format(time.DateOnly), own[len(own)-2].Date, last.Date)
		}
	}
}
