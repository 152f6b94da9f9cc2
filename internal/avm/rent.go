package avm

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"valuator/internal/geo"
)

// RentSource says where a rent estimate came from.
const (
	RentFromComparables = "rental_comparables"
	RentFromModel       = "model"
)

// Rent is a monthly rent estimate.
type Rent struct {
	Rent, Low, High float64
	Source          string
	// Comparables are the rentals the estimate was made from, best (heaviest) first; empty when it comes from the
	// yield model. Rent is their weighted median adjusted rent and Low and High widen their 20th and 80th weighted
	// percentiles (rentFromComps), so the list is the estimate's whole evidence, not a separate search.
	Comparables []RentalComparable
}

// RentalComparable is a recorded rent that informed a rent estimate: one per home, its latest rent before the date
// valued.
type RentalComparable struct {
	Property int32 // index in Market.Properties
	Date     time.Time
	Rent     float64 // as recorded, a month
	Miles    float64
	// AdjustedRent is what this rent says the subject lets for: grown to the date valued at rentGrowth a year and
	// scaled to the subject's living area.
	AdjustedRent float64
	// Similarity (0-1) is how alike the homes are: nearness, living area and bedrooms (the raw weight); Weight is
	// its share of all the comparables' similarity, so the weights add up to 1.
	Similarity, Weight float64
}

// rentModel finds rental comparables: recorded rents near the home.
type rentModel struct {
	rentals []Rental
	// next is the index in rentals of the same home's next rent (by date), -1 for its latest: a rent is a home's
	// latest before a date when its next one is not, so a search keeps one rent per home without a second pass.
	next    []int32
	spatial *geo.Index
}

func trainRent(m *Market) rentModel {
	var pts []int32
	var rs []Rental
	for _, r := range m.Rentals {
		if r.Rent <= 0 || int(r.Property) >= m.NumProperties() {
			continue
		}
		h := m.Home(r.Property)
		if !known(h.Lat) || !known(h.Lon) {
			continue
		}
		pts = append(pts, int32(len(rs)))
		rs = append(rs, r)
	}
	order := make([]int32, len(rs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(rs[a].Property, rs[b].Property), rs[a].Date().Compare(rs[b].Date()))
	})
	next := make([]int32, len(rs))
	for i, id := range order {
		next[id] = -1
		if i+1 < len(order) && rs[order[i+1]].Property == rs[id].Property {
			next[id] = order[i+1]
		}
	}
	// A rent is where its home is: the index reads the home's position from the market.
	at := func(id int32) (float64, float64) { return m.homes.latLon(rs[id].Property) }
	return rentModel{rentals: rs, next: next, spatial: geo.NewIndexAt(pts, at)}
}

// Rent comparables: the latest rent of each of the ten nearest homes let within 2 miles in the last three years,
// adjusted for size and for rent growth.
const (
	rentRadius      = 2.0
	rentMaxAgeYears = 3
	rentGrowth      = 0.03 // a year; the long-run US average
	rentMinComps    = 3
	rentMaxComps    = 10
)

// Rent estimates the monthly rent of h, worth value, at the date at: from rental comparables where there are at
// least three, else from the value with a gross-yield model.
func (e *Engine) Rent(h Home, value float64, at time.Time) Rent {
	if r, ok := e.rentFromComps(&h, at); ok {
		return r
	}
	return rentFromYield(value)
}

// rentFromComps is the weighted median of the comparables' adjusted rents, with their weighted 20th and 80th
// percentiles (widened to at least ±8%) as the range.
func (e *Engine) rentFromComps(h *Home, at time.Time) (Rent, bool) {
	rm := &e.rent
	if len(rm.rentals) == 0 {
		return Rent{}, false
	}
	oldest := at.AddDate(-rentMaxAgeYears, 0, 0)
	nb := rm.spatial.Nearest(h.Lat, h.Lon, rentMaxComps, rentRadius, func(id int32) bool {
		d := rm.rentals[id].Date()
		// Only a home's latest rent before the date: one entry per home, as it lets now.
		latest := rm.next[id] < 0 || !rm.rentals[rm.next[id]].Date().Before(at)
		return d.Before(at) && d.After(oldest) && latest
	})
	if len(nb) < rentMinComps {
		return Rent{}, false
	}
	comps := make([]RentalComparable, 0, len(nb))
	var total float64
	for _, x := range nb {
		r := rm.rentals[x.ID]
		c := e.market.Home(r.Property)
		rent := r.Rent * math.Pow(1+rentGrowth, at.Sub(r.Date()).Hours()/24/365)
		w := math.Exp(-x.Miles / 0.75)
		if h.Sqft > 0 && c.Sqft > 0 {
			// Rent grows with size, but less than in proportion.
			rent *= math.Pow(h.Sqft/c.Sqft, 0.6)
			w *= math.Exp(-math.Abs(math.Log(h.Sqft/c.Sqft)) / 0.4)
		}
		if known(h.Beds) && known(c.Beds) {
			w *= math.Exp(-math.Abs(h.Beds-c.Beds) / 2)
		}
		comps = append(comps, RentalComparable{Property: r.Property, Date: r.Date(), Rent: r.Rent, Miles: x.Miles,
			AdjustedRent: rent, Similarity: w})
		total += w
	}
	if !(total > 0) {
		return Rent{}, false
	}
	for i := range comps {
		comps[i].Weight = comps[i].Similarity / total
	}
	mid, lo, hi := rentQuantiles(comps)
	lo, hi = math.Min(lo, mid*0.92), math.Max(hi, mid*1.08)
	// Best first: the heaviest, then the nearest.
	sort.SliceStable(comps, func(a, b int) bool {
		if comps[a].Weight != comps[b].Weight {
			return comps[a].Weight > comps[b].Weight
		}
		return comps[a].Miles < comps[b].Miles
	})
	return Rent{Rent: mid, Low: lo, High: hi, Source: RentFromComparables, Comparables: comps}, true
}

// rentQuantiles are the weighted median and 20th and 80th percentiles of the comparables' adjusted rents: the
// adjusted rent at which the weights, summed from the lowest rent up, first reach the share (the weights add up
// to 1).
func rentQuantiles(comps []RentalComparable) (mid, lo, hi float64) {
	byRent := slices.Clone(comps)
	sort.SliceStable(byRent, func(a, b int) bool { return byRent[a].AdjustedRent < byRent[b].AdjustedRent })
	quantile := func(q float64) float64 {
		acc := 0.0
		for _, c := range byRent {
			acc += c.Weight
			if acc >= q {
				return c.AdjustedRent
			}
		}
		return byRent[len(byRent)-1].AdjustedRent
	}
	return quantile(0.5), quantile(0.2), quantile(0.8)
}

// rentFromYield estimates rent from value with a gross monthly yield that falls as prices rise: about 0.6% of
// value a month for a $300,000 home and 0.4% for $1,500,000 (typical US rent-to-price ratios), within 0.3% to
// 0.9%. The range is plus or minus 20%: without local rents the estimate is rough, and says so.
func rentFromYield(value float64) Rent {
	if !(value > 0) {
		return Rent{Source: RentFromModel}
	}
	y := 0.006 * math.Pow(value/300000, -0.25)
	y = math.Max(0.003, math.Min(0.009, y))
	r := value * y
	return Rent{Rent: r, Low: r * 0.8, High: r * 1.2, Source: RentFromModel}
}
