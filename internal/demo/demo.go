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
		mk.Sales = g.homeSales(mk.Sales, i, showcase)
		mk.Rentals = g.rentals(mk.Rentals, i)
	}
	return mk
}

// homeSales appends home i's sales: its history, or the showcase's resale if i is the showcase home.
func (g *generator) homeSales(out []Sale, i, showcase int) []Sale {
	out = g.sales(out, i)
	if i == showcase {
		out = g.resoldAbove(out, i)
	}
	return out
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
	for i := range g.homes {
		if g.isShowcase(i) {
			return i
		}
	}
	return -1
}

// isShowcase is whether home i could be the showcase: the showcase is the first home for which it is true.
func (g *generator) isShowcase(i int) bool {
	h := &g.homes[i-g.first]
	return h.ZIP == showcaseZIP && h.Type == singleFamily && h.Unit == "" && math.Abs(g.info[i-g.first].effect) < 0.03
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
	g := newGenerator(seed, now)
	g.homes, g.info = make([]property.Home, 0, n), make([]homeInfo, 0, n)
	g.run(n)
	return g
}

// newGenerator returns a generator of the market whose history ends on now's date (UTC), with no homes yet.
func newGenerator(seed uint64, now time.Time) *generator {
	u := now.UTC()
	g := &generator{seed: seed, now: time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC), showcaseAt: -1}
	g.start = g.now.AddDate(-salesYears, 0, 0)
	return g
}

// run generates n homes, ZIP code by ZIP code. Each ZIP's homes depend only on the seed, the date, the ZIP's
// count and the index of its first home (their ids; their sales and rents are drawn from streams keyed by the
// index), so a streaming generator can make them again and again with one ZIP's streets in memory. It stops
// after the ZIP code in which each returned an error.
func (g *generator) run(n int) {
	zips := g.zips()
	counts := allocate(newRNG(g.seed, hashKey("allocate")), len(zips), n)
	for i, z := range zips {
		if g.err != nil {
			return
		}
		g.zip(z, counts[i])
	}
}

// generator holds the state of one Generate call.
type generator struct {
	seed       uint64
	now, start time.Time
	// homes and info are homes made, homes[k] being the market's home first+k: every home (build; first is 0),
	// or only the latest one when each is set.
	homes []property.Home
	info  []homeInfo
	first int
	// each, when set, is called with every home's index as it is made (its record is then g.homes[0]); the
	// first error is kept in err. showcaseAt is the showcase home once each has seen it, -1 before.
	each       func(i int) error
	err        error
	showcaseAt int
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
	b := newBatcher(size, fn)
	used := make([]bool, len(m.Homes))
	for _, s := range m.Sales {
		if err := b.add(property.Record{Home: m.Homes[s.Home], SaleDate: s.Date, Price: s.Price}); err != nil {
			return err
		}
		used[s.Home] = true
	}
	for _, r := range m.Rentals {
		if err := b.add(property.Record{Home: m.Homes[r.Home], SaleDate: r.Date, Rent: r.Rent}); err != nil {
			return err
		}
		used[r.Home] = true
	}
	for i, h := range m.Homes {
		if !used[i] {
			if err := b.add(property.Record{Home: h}); err != nil {
				return err
			}
		}
	}
	return b.flush()
}

// EachRecordsN passes the import records of GenerateN(seed, now, n), exactly as its EachRecords would (the same
// records, order and line numbers), to fn in batches of up to size, without making the market: it generates
// the homes three times, ZIP code by ZIP code, keeping one home at a time besides the streets of its ZIP code. The
// first pass passes on every sale, the second every rent, the third each home with neither. Its memory does not
// grow with the homes of other ZIP codes, which lets `valuator demo` import ten million homes; it takes about
// three times as long to generate as GenerateN. It stops at fn's first error and returns it.
func EachRecordsN(seed uint64, now time.Time, n, size int, fn func([]property.Record) error) error {
	b := newBatcher(size, fn)
	var sales []Sale
	var rents []Rental
	passes := []func(g *generator, i int) error{
		func(g *generator, i int) error {
			sales = g.homeSales(sales[:0], i, g.showcaseAt)
			for _, s := range sales {
				if err := b.add(property.Record{Home: g.homes[0], SaleDate: s.Date, Price: s.Price}); err != nil {
					return err
				}
			}
			return nil
		},
		func(g *generator, i int) error {
			rents = g.rentals(rents[:0], i)
			for _, r := range rents {
				if err := b.add(property.Record{Home: g.homes[0], SaleDate: r.Date, Rent: r.Rent}); err != nil {
					return err
				}
			}
			return nil
		},
		func(g *generator, i int) error {
			if sales = g.homeSales(sales[:0], i, g.showcaseAt); len(sales) > 0 {
				return nil
			}
			if rents = g.rentals(rents[:0], i); len(rents) > 0 {
				return nil
			}
			return b.add(property.Record{Home: g.homes[0]})
		},
	}
	for _, pass := range passes {
		g := newGenerator(seed, now)
		g.each = func(i int) error { return pass(g, i) }
		if g.run(n); g.err != nil {
			return g.err
		}
	}
	return b.flush()
}

// batcher numbers records from line 1 and passes them to fn in batches of up to size, reusing one batch.
type batcher struct {
	batch []property.Record
	line  int
	fn    func([]property.Record) error
}

func newBatcher(size int, fn func([]property.Record) error) *batcher {
	return &batcher{batch: make([]property.Record, 0, max(1, size)), fn: fn}
}

// add numbers r and adds it to the batch, passing the batch on when it is full.
func (b *batcher) add(r property.Record) error {
	b.line++
	r.Line = b.line
	b.batch = append(b.batch, r)
	if len(b.batch) < cap(b.batch) {
		return nil
	}
	err := b.fn(b.batch)
	b.batch = b.batch[:0]
	return err
}

// flush passes on the records left.
func (b *batcher) flush() error {
	if len(b.batch) == 0 {
		return nil
	}
	return b.fn(b.batch)
}
