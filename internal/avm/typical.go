package avm

import (
	"math"
	"sort"
	"time"

	"valuator/internal/geo"
)

// typicalHome is the median home among the properties nearest to a location: what a home known only by its
// address is assumed to be, attribute by attribute, where the caller did not say.
func (e *Engine) typicalHome(lat, lon float64) Home {
	t := Unknown()
	t.Lat, t.Lon = lat, lon
	nb := e.homes.Nearest(lat, lon, 50, compRadiusWide, nil)
	if len(nb) == 0 {
		return t
	}
	pick := func(fact int) float64 {
		var v []float64
		for _, x := range nb {
			if f := e.market.homes.facts[fact].at(x.ID); known(f) {
				v = append(v, f)
			}
		}
		if len(v) == 0 {
			return math.NaN()
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	// Each fact but the year renovated and the area above ground.
	for _, f := range []int{fBeds, fBaths, fSqft, fLotSqft, fFloors, fYearBuilt, fGrade, fCondition, fView,
		fWaterfront, fSqftBasement, fNbrSqft, fNbrLot} {
		*t.fact(f) = pick(f)
	}
	types := map[PropertyType]int{}
	for _, x := range nb {
		types[PropertyType(e.market.homes.typ.at(x.ID))]++
	}
	best := 0
	for ty, n := range types {
		if n > best || (n == best && ty < t.Type) {
			t.Type, best = ty, n
		}
	}
	return t
}

// fillFrom sets every unknown attribute of h to typical's.
func fillFrom(h *Home, typical Home) {
	fill := func(dst *float64, v float64) {
		if !known(*dst) {
			*dst = v
		}
	}
	fill(&h.Beds, typical.Beds)
	fill(&h.Baths, typical.Baths)
	fill(&h.Sqft, typical.Sqft)
	fill(&h.LotSqft, typical.LotSqft)
	fill(&h.Floors, typical.Floors)
	fill(&h.YearBuilt, typical.YearBuilt)
	fill(&h.Grade, typical.Grade)
	fill(&h.Condition, typical.Condition)
	fill(&h.View, typical.View)
	fill(&h.Waterfront, typical.Waterfront)
	fill(&h.SqftBasement, typical.SqftBasement)
	fill(&h.NbrSqft, typical.NbrSqft)
	fill(&h.NbrLot, typical.NbrLot)
	if !known(h.SqftAbove) && known(h.Sqft) && known(h.SqftBasement) {
		h.SqftAbove = h.Sqft - h.SqftBasement
	}
	if h.Type == "" {
		h.Type = typical.Type
	}
}

// ValueApprox values a home that is not on record: known by an approximate location (its ZIP code's centre) and
// whatever attributes the caller gave; the rest are taken from the typical home nearby. The confidence reflects
// both (the calibration learned from held-out sales valued the same way). It returns the home as valued.
func (e *Engine) ValueApprox(h Home, at time.Time) (Valuation, Home) {
	path := PathFacts
	if givenShare(h) <= 0.2 {
		path = PathTypeAndSize
	}
	return e.valueGiven(h, at, path)
}

// ValueUnit values a unit that is not on record in a building that is: placed at the building, known by the facts
// the caller gave (the rest taken from the typical home nearby), calibrated on its own path (PathUnit).
func (e *Engine) ValueUnit(h Home, at time.Time) (Valuation, Home) {
	return e.valueGiven(h, at, PathUnit)
}

// givenShare is the share of a home's main attributes that are known: beds, baths, living area, year built and
// lot, a fifth each.
func givenShare(h Home) float64 {
	given := 0.0
	for _, v := range []float64{h.Beds, h.Baths, h.Sqft, h.YearBuilt, h.LotSqft} {
		if known(v) {
			given += 0.2
		}
	}
	return given
}

func (e *Engine) valueGiven(h Home, at time.Time, path string) (Valuation, Home) {
	given := givenShare(h)
	fillFrom(&h, e.typicalHome(h.Lat, h.Lon))
	at, _ = e.AsOf(at)
	v := e.valueWith(&h, -1, at, -1, path, given)
	return v, h
}

// zipCentre returns the centre of a ZIP code, if known.
func zipCentre(zip string) (lat, lon float64, ok bool) {
	z, ok := geo.LookupZIP(zip)
	return z.Lat, z.Lon, ok
}

// ApproxHome is approxVariant for callers outside the engine (the evaluation of ZIP-level lookups).
func ApproxHome(h Home, keepAttrs bool) (Home, bool) { return approxVariant(h, keepAttrs) }

// UnitHome is unitVariant for callers outside the engine (the evaluation of each valuation path).
func UnitHome(h Home) (Home, bool) { return unitVariant(h) }

// unitVariant turns a recorded home into what a caller valuing a unit of its building gives: its own place, its
// type, living area, beds and baths.
func unitVariant(h Home) (Home, bool) {
	if !known(h.Sqft) || !known(h.Lat) {
		return Home{}, false
	}
	v := Unknown()
	v.Lat, v.Lon, v.ZIP = h.Lat, h.Lon, h.ZIP
	v.Sqft, v.Type, v.Beds, v.Baths = h.Sqft, h.Type, h.Beds, h.Baths
	if v.Type == "" {
		v.Type = SingleFamily
	}
	return v, true
}

// approxVariant turns a recorded home into what a caller who knows only its address and the least the API asks for
// gives: the location becomes its ZIP code's centre, and its type and living area are kept (an address not on record
// is valued only with both); with keepAttrs the other attributes a person knows (beds, baths, year built) are kept
// too.
func approxVariant(h Home, keepAttrs bool) (Home, bool) {
	lat, lon, ok := zipCentre(h.ZIP)
	if !ok || !known(h.Sqft) {
		return Home{}, false
	}
	v := Unknown()
	v.Lat, v.Lon, v.ZIP = lat, lon, h.ZIP
	v.Sqft, v.Type = h.Sqft, h.Type
	if v.Type == "" {
		v.Type = SingleFamily
	}
	if keepAttrs {
		v.Beds, v.Baths, v.YearBuilt = h.Beds, h.Baths, h.YearBuilt
	}
	return v, true
}
