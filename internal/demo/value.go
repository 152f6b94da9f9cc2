package demo

import (
	"math"
	"slices"
	"time"
)

// The price of a home on a date is
//
//	log price = hedonic (King County 2014-15 dollars, hedonic.go)
//	          + log metro level + ZIP class premium + ZIP effect + gradient and amenity within the ZIP
//	          + the home's own effect (lasting)
//	          + log metro index at the date (trend and season)
//	          + a shock of the sale
//
// and its rent is its value without the sale shock times a gross monthly yield.

// seasonAmplitude and seasonPeak: prices run about 2% above trend in June and 2% below in December, the usual
// US pattern of sale prices by contract month.
const (
	seasonAmplitude = 0.02
	seasonPeakDay   = 166 // June 15
)

// logIndex is the metro's price index at t: its annual appreciation compounded from the start of the history,
// plus the seasonal cycle.
func (m *metro) logIndex(t, start time.Time) float64 {
	years := t.Sub(start).Hours() / 24 / 365.25
	season := seasonAmplitude * math.Cos(2*math.Pi*float64(t.YearDay()-seasonPeakDay)/365.25)
	return years*math.Log1p(m.growth) + season
}

// logValue is home i's log value on t without the shock of a sale.
func (g *generator) logValue(i int, t time.Time) float64 {
	h, in := &g.homes[i-g.first], &g.info[i-g.first]
	age := float64(t.Year()) - h.YearBuilt
	return hedonicLogPrice(h, age) + in.logLoc + in.effect + in.metro.logIndex(t, g.start)
}

// Sales: how many times a home sold in the ten years (0 to 3, 1.33 on average), and how the sales spread over
// time: a density growing by salesGrowth a year, because recent records are more complete and recent sales are
// what a valuation leans on. Homes sell at least a year apart and not before they are built, which brings the
// average to about 1.3; about 41% of the sales fall in the last two years (1,600 of 3,950 for 3,000 homes) and
// 3% in the first.
var salesCount = []float64{0.19, 0.40, 0.30, 0.11}

const salesGrowth = 0.26

// minResale is the shortest time between two sales of one home.
const minResale = 365 * 24 * time.Hour

// sales appends home i's sales.
func (g *generator) sales(out []Sale, i int) []Sale {
	r := newRNG(g.seed, hashKey("sales"), uint64(i))
	h := &g.homes[i-g.first]
	k := r.pick(salesCount)
	// A new home first sells when it is finished, from the middle of its year of building.
	from := g.start
	if built := time.Date(int(h.YearBuilt), 7, 1, 0, 0, 0, 0, time.UTC); built.After(from) {
		from = built
	}
	dates := g.spreadDates(r, k, from, g.now, minResale, salesGrowth)
	for _, d := range dates {
		v := math.Exp(g.logValue(i, d) + saleShockSD*r.norm())
		out = append(out, Sale{Home: i, Date: d, Price: roundTo(v, 500)})
	}
	return out
}

// Rentals: a quarter of the homes were let in the last three years, condos, townhouses and small apartment
// houses more often than houses; each let 1 to 3 times, at least ten months apart (a lease).
var rentalShare = map[string]float64{singleFamily: 0.18, townhouse: 0.35, condo: 0.45, multiFamily: 0.55}

var rentalCount = []float64{0.5, 0.35, 0.15}

const minRelet = 300 * 24 * time.Hour

// rentNoise is the spread of rents around the yield model (log): the same home lets within about 8%.
const rentNoise = 0.08

// rentals appends home i's rentals.
func (g *generator) rentals(out []Rental, i int) []Rental {
	r := newRNG(g.seed, hashKey("rentals"), uint64(i))
	h := &g.homes[i-g.first]
	if !r.chance(rentalShare[h.Type]) {
		return out
	}
	k := 1 + r.pick(rentalCount)
	from := g.now.AddDate(-rentalYears, 0, 0)
	if built := time.Date(int(h.YearBuilt)+1, 1, 1, 0, 0, 0, 0, time.UTC); built.After(from) {
		from = built
	}
	for _, d := range g.spreadDates(r, k, from, g.now, minRelet, 0) {
		v := math.Exp(g.logValue(i, d))
		rent := v * monthlyYield(v, g.info[i-g.first].metro, h.Type) * math.Exp(rentNoise*r.norm())
		out = append(out, Rental{Home: i, Date: d, Rent: roundTo(rent, 25)})
	}
	return out
}

// monthlyYield is the gross monthly rent over value: 0.55% for a $300,000 home falling (linearly in log value)
// to 0.35% for a $1.5M one, as cheaper homes rent for more of their price; scaled by the metro (rents are
// relatively higher in the Midwest and the South) and by type (a small apartment house earns more per dollar
// than a house: 20% more).
func monthlyYield(value float64, m *metro, typ string) float64 {
	y := 0.0055 - 0.0020*math.Log(value/300000)/math.Log(5)
	y = clamp(y, 0.0025, 0.0075) * m.yield
	if typ == multiFamily {
		y *= 1.2
	}
	return y
}

// spreadDates draws up to k weekdays in [from, to], at least gap apart, with a density growing by growth a year
// (0: uniform), sorted. It draws fewer when the window is too short for k.
func (g *generator) spreadDates(r *rng, k int, from, to time.Time, gap time.Duration, growth float64) []time.Time {
	if !from.Before(to) || k == 0 {
		return nil
	}
	span := to.Sub(from).Hours() / 24 / 365.25 // years
	for ; k > 0; k-- {
		for try := 0; try < 12; try++ {
			ds := make([]time.Time, k)
			for j := range ds {
				ds[j] = drawWeekday(r, from, to, span, growth)
			}
			slices.SortFunc(ds, func(a, b time.Time) int { return a.Compare(b) })
			ok := true
			for j := 1; j < k && ok; j++ {
				ok = ds[j].Sub(ds[j-1]) >= gap
			}
			if ok {
				return ds
			}
		}
	}
	return nil
}

// drawYears draws a time in [0, span) years with density proportional to exp(growth * t).
func drawYears(r *rng, span, growth float64) float64 {
	u := r.float()
	if growth == 0 {
		return u * span
	}
	return math.Log(1+u*(math.Exp(growth*span)-1)) / growth
}

// drawWeekday draws a date in [from, to] (span years apart) with density growing by growth a year, on a weekday:
// deeds are recorded and leases listed on working days. Weekend draws are drawn again, which spreads the
// weekend's share evenly over the week rather than piling it on Fridays and Mondays.
func drawWeekday(r *rng, from, to time.Time, span, growth float64) time.Time {
	var d time.Time
	for range 20 {
		d = from.AddDate(0, 0, int(drawYears(r, span, growth)*365.25))
		if d.After(to) {
			d = to
		}
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			return d
		}
	}
	return d
}

// roundTo rounds v to the nearest multiple of step, and never to less than step.
func roundTo(v float64, step int64) int64 {
	n := int64(math.Round(v/float64(step))) * step
	return max(n, step)
}
