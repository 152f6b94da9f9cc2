package avm

import (
	"math"
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
	Comparables     int
}

// rentModel finds rental comparables: recorded rents near the home.
type rentModel struct {
	rentals []Rental
	spatial *geo.Index
}

func trainRent(m *Market) rentModel {
	var pts []geo.Point
	var rs []Rental
	for _, r := range m.Rentals {
		if r.Rent <= 0 || int(r.Property) >= len(m.Properties) {
			continue
		}
		h := &m.Properties[r.Property].Home
		if !known(h.Lat) || !known(h.Lon) {
			continue
		}
		pts = append(pts, geo.Point{ID: int32(len(rs)), Lat: h.Lat, Lon: h.Lon})
		rs = append(rs, r)
	}
	return rentModel{rentals: rs, spatial: geo.NewIndex(pts)}
}

// Rent comparables: rents within 2 miles from the last three years, adjusted for size and for rent growth.
const (
	rentRadius      = 2.0
	rentMaxAgeYears = 3
	rentGrowth      = 0.03 // a year; the long-run US average
	rentMinComps    = 3
)

// Rent estimates the monthly rent of h, worth value, at the date at: from rental comparables where there are at
// least three, else from the value with a gross-yield model.
func (e *Engine) Rent(h Home, value float64, at time.Time) Rent {
	if r, ok := e.rentFromComps(&h, at); ok {
		return r
	}
	return rentFromYield(value)
}

func (e *Engine) rentFromComps(h *Home, at time.Time) (Rent, bool) {
	rm := &e.rent
	if len(rm.rentals) == 0 {
		return Rent{}, false
	}
	oldest := at.AddDate(-rentMaxAgeYears, 0, 0)
	nb := rm.spatial.Nearest(h.Lat, h.Lon, 20, rentRadius, func(id int32) bool {
		d := rm.rentals[id].Date
		return d.Before(at) && d.After(oldest)
	})
	type obs struct{ rent, w float64 }
	var os []obs
	for _, x := range nb {
		r := rm.rentals[x.ID]
		c := &e.market.Properties[r.Property].Home
		rent := r.Rent * math.Pow(1+rentGrowth, at.Sub(r.Date).Hours()/24/365)
		w := math.Exp(-x.Miles / 0.75)
		if h.Sqft > 0 && c.Sqft > 0 {
			// Rent grows with size, but less than in proportion.
			rent *= math.Pow(h.Sqft/c.Sqft, 0.6)
			w *= math.Exp(-math.Abs(math.Log(h.Sqft/c.Sqft)) / 0.4)
		}
		if known(h.Beds) && known(c.Beds) {
			w *= math.Exp(-math.Abs(h.Beds-c.Beds) / 2)
		}
		os = append(os, obs{rent, w})
	}
	if len(os) < rentMinComps {
		return Rent{}, false
	}
	sort.Slice(os, func(a, b int) bool { return os[a].rent < os[b].rent })
	var total float64
	for _, o := range os {
		total += o.w
	}
	quantile := func(q float64) float64 {
		acc := 0.0
		for _, o := range os {
			acc += o.w
			if acc >= q*total {
				return o.rent
			}
		}
		return os[len(os)-1].rent
	}
	mid := quantile(0.5)
	lo, hi := math.Min(quantile(0.2), mid*0.92), math.Max(quantile(0.8), mid*1.08)
	return Rent{Rent: mid, Low: lo, High: hi, Source: RentFromComparables, Comparables: len(os)}, true
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
