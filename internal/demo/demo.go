// Package demo generates the demo market: a few thousand made-up homes at made-up street addresses in real ZIP
// codes of seven US metros, with ten years of sales and three years of rents, so that a fresh install values
// homes offline. The UI labels these records as demo data; nothing in them describes a real property.
//
// Prices come from a hedonic model fitted on real King County sales (hedonic.go), moved to each metro by a
// price level, to each ZIP code by a neighbourhood effect and a smooth gradient within it, and through time by
// a metro price index with a seasonal cycle (value.go). Generation is pure and deterministic: a seed and an end
// date give the same market on every machine.
package demo

import (
	"math"
	"slices"
	"time"

	"valuator/internal/address"
	"valuator/internal/geo"
	"valuator/internal/property"
)

// DefaultHomes is the size of the market Generate makes.
const DefaultHomes = 3000

// Source is property.Home.Source of every demo home.
const Source = property.SourceDemo

// Market is a generated market. Sales and Rentals refer to Homes by index; both are ordered by home, then date.
type Market struct {
	Homes   []property.Home
	Sales   []Sale
	Rentals []Rental
}

// Sale is a sale of Market.Homes[Home] at Price whole dollars.
type Sale struct {
	Home  int
	Date  time.Time
	Price int64
}

// Rental is a rent of Market.Homes[Home], Rent whole dollars a month, listed on Date.
type Rental struct {
	Home int
	Date time.Time
	Rent int64
}

// History spans: sales in the ten years before now, rents in the last three.
const (
	salesYears  = 10
	rentalYears = 3
)

// Generate makes a market of DefaultHomes homes whose history ends on now's date (UTC).
func Generate(seed uint64, now time.Time) Market {
	return GenerateN(seed, now, DefaultHomes)
}

// GenerateN makes a market of n homes (at least one per ZIP code used) whose history ends on now's date (UTC).
func GenerateN(seed uint64, now time.Time, n int) Market {
	g := build(seed, now, n)
	var mk Market
	mk.Homes = g.homes
	showcase := g.showcase()
	for i := range g.homes {
		mk.Sales = g.sales(mk.Sales, i)
		if i == showcase {
			mk.Sales = g.resoldAbove(mk.Sales, i)
		}
		mk.Rentals = g.rentals(mk.Rentals, i)
	}
	return mk
}

// The showcase home: one house of the demo market was bought, renovated in ways its records do not show, and
// resold showcaseAgo before now for showcasePremium over what its records and neighbours say (in log price: 49%),
// so that a fresh install shows a valuation whose evidence disagrees: the estimate follows the home's own recent
// sale, its comparables indicate about a quarter less, and the answer says so (issue 34).
const (
	// ShowcaseStreet is the showcase home's street line, in showcaseZIP (Seattle).
	ShowcaseStreet  = "6789 TAYLOR DR"
	showcaseZIP     = "98103"
	showcasePremium = 0.4
	showcaseAgo     = 40 * 24 * time.Hour
)

// showcase is the index of the showcase home: the first single-family home of showcaseZIP whose own lasting
// deviation from the price model is under 3%, so that its neighbours and its records agree on its value before the
// resale. Neither depends on the day the market is generated for, so its address does not either (TestShowcase);
// -1 in a market without one.
func (g *generator) showcase() int {
	for i, h := range g.homes {
		if h.ZIP == showcaseZIP && h.Type == singleFamily && h.Unit == "" && math.Abs(g.info[i].effect) < 0.03 {
			return i
		}
	}
	return -1
}

// resoldAbove replaces home i's sales of the last two years (appended last to sales) with its resale showcaseAgo
// before now at showcasePremium over its value.
func (g *generator) resoldAbove(sales []Sale, i int) []Sale {
	cut := g.now.AddDate(-2, 0, 0)
	for len(sales) > 0 && sales[len(sales)-1].Home == i && !sales[len(sales)-1].Date.Before(cut) {
		sales = sales[:len(sales)-1]
	}
	d := g.now.Add(-showcaseAgo)
	return append(sales, Sale{Home: i, Date: d, Price: roundTo(math.Exp(g.logValue(i, d)+showcasePremium), 500)})
}

// build lays out the homes of a market, ready for their histories.
func build(seed uint64, now time.Time, n int) *generator {
	u := now.UTC()
	g := &generator{
		seed:  seed,
		now:   time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC),
		homes: make([]property.Home, 0, n),
		info:  make([]homeInfo, 0, n),
	}
	g.start = g.now.AddDate(-salesYears, 0, 0)

	zips := g.zips()
	counts := allocate(newRNG(seed, hashKey("allocate")), len(zips), n)
	for i, z := range zips {
		g.zip(z, counts[i])
	}
	return g
}

// generator holds the state of one Generate call.
type generator struct {
	seed       uint64
	now, start time.Time
	homes      []property.Home
	info       []homeInfo
}

// homeInfo is what the price model knows about a home beyond its record.
type homeInfo struct {
	metro  *metro
	logLoc float64 // log location factor: metro level, ZIP effect, gradient within the ZIP
	effect float64 // the home's own lasting deviation from the model, in log price
}

// zipPlan is a ZIP code to fill, with its location effects.
type zipPlan struct {
	m   *metro
	z   *metroZIP
	geo geo.ZIP
	// effect is the ZIP's neighbourhood effect on log price; gx, gy a linear gradient (per mile east and
	// north) and bump an amenity (a park, a lake shore) of height bumpH at bumpX, bumpY.
	effect, gx, gy, bumpX, bumpY, bumpH float64
}

// neighbourhoodSD is the spread of ZIP effects in log price within a metro: ZIP medians of one metro's
// comparable homes differ by about 12%.
const neighbourhoodSD = 0.12

// A ZIP's price gradient rises by minGradient to maxGradient a mile in a random direction, and its amenity (a
// park, a lake shore) adds up to maxBump, fading over a third of a mile. Together they move prices within a ZIP
// by about 10% (sd), as location within a ZIP code does in King County (hedonic.go).
const (
	minGradient = 0.08
	maxGradient = 0.25
	maxBump     = 0.25
)

// zips draws every ZIP's location effects. A metro's ZIP effects are centred, so that the metro's level is its
// level.
func (g *generator) zips() []zipPlan {
	var out []zipPlan
	for mi := range metros {
		m := &metros[mi]
		first := len(out)
		var mean float64
		for zi := range m.zips {
			z := &m.zips[zi]
			gz, ok := geo.LookupZIP(z.code)
			if !ok {
				panic("demo: unknown ZIP " + z.code) // the table is fixed; TestZIPsAreReal guards it
			}
			r := newRNG(g.seed, hashKey("zip"), hashKey(z.code))
			// Effects are drawn within bounds, so that no seed makes a freak neighbourhood: ZIP effects within
			// two standard deviations, gradients of 8% to 25% a mile.
			effect := neighbourhoodSD * r.norm()
			for math.Abs(effect) > 2*neighbourhoodSD {
				effect = neighbourhoodSD * r.norm()
			}
			slope, dir := r.between(minGradient, maxGradient), r.between(0, 2*math.Pi)
			p := zipPlan{m: m, z: z, geo: gz, effect: effect, gx: slope * math.Cos(dir), gy: slope * math.Sin(dir),
				bumpX: r.between(-0.9, 0.9), bumpY: r.between(-0.9, 0.9), bumpH: r.between(0, maxBump)}
			mean += p.effect
			out = append(out, p)
		}
		mean /= float64(len(m.zips))
		for i := first; i < len(out); i++ {
			out[i].effect -= mean
		}
	}
	return out
}

// logLocation is the location factor of a point x, y miles east and north of the ZIP centroid.
func (p *zipPlan) logLocation(x, y float64) float64 {
	dx, dy := x-p.bumpX, y-p.bumpY
	return math.Log(p.m.level) + classPremium[p.z.class] + p.effect + p.gx*x + p.gy*y +
		p.bumpH*math.Exp(-(dx*dx+dy*dy)/(2*0.35*0.35))
}

// allocate splits n homes among k ZIP codes with weights of 0.75 to 1.25, at least one each.
func allocate(r *rng, k, n int) []int {
	w := make([]float64, k)
	var sum float64
	for i := range w {
		w[i] = r.between(0.75, 1.25)
		sum += w[i]
	}
	counts := make([]int, k)
	type rem struct {
		i int
		f float64
	}
	rems := make([]rem, k)
	left := n
	for i := range w {
		exact := float64(n) * w[i] / sum
		counts[i] = int(exact)
		left -= counts[i]
		rems[i] = rem{i, exact - float64(counts[i])}
	}
	slices.SortStableFunc(rems, func(a, b rem) int {
		switch {
		case a.f > b.f:
			return -1
		case a.f < b.f:
			return 1
		}
		return 0
	})
	for j := 0; left > 0; j = (j + 1) % k {
		counts[rems[j].i]++
		left--
	}
	for i := range counts {
		counts[i] = max(counts[i], 1)
	}
	return counts
}

// milesPerDegree is the length of a degree of latitude.
const milesPerDegree = geo.EarthRadiusMiles * math.Pi / 180

// latLon turns miles east and north of the ZIP centroid into degrees, rounded to six decimals (4 inches).
func (p *zipPlan) latLon(x, y float64) (lat, lon float64) {
	lat = p.geo.Lat + y/milesPerDegree
	lon = p.geo.Lon + x/(milesPerDegree*math.Cos(p.geo.Lat*math.Pi/180))
	return math.Round(lat*1e6) / 1e6, math.Round(lon*1e6) / 1e6
}

// setAddress fills h's address fields from a parsed address.
func setAddress(h *property.Home, a address.Address) {
	h.Street, h.UnitType, h.Unit = a.Street(), a.UnitType, a.UnitNumber
	h.City, h.State, h.ZIP = a.City, a.State, a.ZIP
	h.StreetKey, h.UnitKey, h.NameKey = a.StreetKey(), a.UnitKey(), a.NameKey()
}

// Records turns the market into import records (one per sale, one per rent, and one for each home with
// neither), for store.ImportRecords.
func (m Market) Records() []property.Record {
	var out []property.Record
	_ = m.EachRecords(1000, func(b []property.Record) error {
		out = append(out, b...)
		return nil
	})
	return out
}

// EachRecords passes the market's import records, in the order and with the line numbers of Records, to fn in
// batches of up to size, reusing one batch: an import of a large market never holds them all (a million homes
// make 1.7 million records of several hundred bytes each). It stops at fn's first error and returns it.
func (m Market) EachRecords(size int, fn func([]property.Record) error) error {
	size = max(1, size)
	batch := make([]property.Record, 0, size)
	line := 0
	add := func(r property.Record) error {
		line++
		r.Line = line
		batch = append(batch, r)
		if len(batch) < size {
			return nil
		}
		err := fn(batch)
		batch = batch[:0]
		return err
	}
	used := make([]bool, len(m.Homes))
	for _, s := range m.Sales {
		if err := add(property.Record{Home: m.Homes[s.Home], SaleDate: s.Date, Price: s.Price}); err != nil {
			return err
		}
		used[s.Home] = true
	}
	for _, r := range m.Rentals {
		if err := add(property.Record{Home: m.Homes[r.Home], SaleDate: r.Date, Rent: r.Rent}); err != nil {
			return err
		}
		used[r.Home] = true
	}
	for i, h := range m.Homes {
		if !used[i] {
			if err := add(property.Record{Home: h}); err != nil {
				return err
			}
		}
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}
