package avm

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// rentMarket is a market of n homes around one spot in Seattle, every third let one to three times in the last
// three years before at (and once after it, which no estimate at at may use). Only the rent model is trained:
// rents need no value model.
func rentMarket(n int, at time.Time) (*Engine, *Market) {
	rng := rand.New(rand.NewPCG(7, 3))
	m := &Market{}
	for i := range n {
		h := Unknown()
		h.Lat = 47.66 + rng.Float64()*0.02 - 0.01
		h.Lon = -122.35 + rng.Float64()*0.03 - 0.015
		h.Sqft = 700 + rng.Float64()*2000
		h.Beds = math.Round(h.Sqft / 600)
		m.AddProperty(Property{ID: int64(i + 1), Home: h})
		if i%3 != 0 {
			continue
		}
		for k := range 1 + rng.IntN(3) {
			d := at.AddDate(0, -1-rng.IntN(34), -k*40)
			m.Rentals = append(m.Rentals, Rental{Property: int32(i), Day: DayOf(d), Rent: math.Round(h.Sqft*1.8*(0.9+0.2*rng.Float64())/25) * 25})
		}
		m.Rentals = append(m.Rentals, Rental{Property: int32(i), Day: DayOf(at.AddDate(0, 2, 0)), Rent: 99999})
	}
	return &Engine{market: m, rent: trainRent(m)}, m
}

// TestRentComparablesAreTheEstimatesEvidence: the comparables an estimate returns are the ones it was made from.
// Their weights add up to 1, the weighted median of their adjusted rents is the estimate (the 20th and 80th
// percentiles bound the range), each home appears once at its latest rent before the date, and none comes from
// after it or from further than the search reaches.
func TestRentComparablesAreTheEstimatesEvidence(t *testing.T) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	e, m := rentMarket(600, at)
	subjects := []Home{m.Home(0), m.Home(1), m.Home(200)}
	unknownSize := m.Home(5)
	unknownSize.Sqft, unknownSize.Beds = math.NaN(), math.NaN()
	subjects = append(subjects, unknownSize)
	for i, h := range subjects {
		r := e.Rent(h, 500000, at)
		if r.Source != RentFromComparables {
			t.Fatalf("subject %d: rent source %q, want %q", i, r.Source, RentFromComparables)
		}
		if n := len(r.Comparables); n < rentMinComps || n > rentMaxComps {
			t.Fatalf("subject %d: %d comparables, want %d to %d", i, n, rentMinComps, rentMaxComps)
		}
		var sum float64
		seen := map[int32]bool{}
		for j, c := range r.Comparables {
			sum += c.Weight
			if seen[c.Property] {
				t.Errorf("subject %d: home %d appears twice", i, c.Property)
			}
			seen[c.Property] = true
			if !c.Date.Before(at) || c.Rent == 99999 {
				t.Errorf("subject %d: comparable %d dated %v, after the date valued", i, j, c.Date)
			}
			if c.Miles > rentRadius || c.Similarity <= 0 || c.Similarity > 1 || !(c.AdjustedRent > 0) {
				t.Errorf("subject %d: comparable %d = %+v", i, j, c)
			}
			// Its latest rent before the date.
			for _, o := range m.Rentals {
				if o.Property == c.Property && o.Date().Before(at) && o.Date().After(c.Date) {
					t.Errorf("subject %d: home %d shown with its rent of %v, not its later one of %v", i, c.Property,
						c.Date, o.Date())
				}
			}
			if j > 0 && c.Weight > r.Comparables[j-1].Weight {
				t.Errorf("subject %d: comparable %d weighs more than the one before it", i, j)
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("subject %d: weights add up to %v, want 1", i, sum)
		}
		byRent := append([]RentalComparable(nil), r.Comparables...)
		sort.Slice(byRent, func(a, b int) bool { return byRent[a].AdjustedRent < byRent[b].AdjustedRent })
		weighted := func(q float64) float64 {
			acc := 0.0
			for _, c := range byRent {
				if acc += c.Weight; acc >= q {
					return c.AdjustedRent
				}
			}
			return byRent[len(byRent)-1].AdjustedRent
		}
		if got, want := r.Rent, weighted(0.5); got != want {
			t.Errorf("subject %d: rent %v, want the comparables' weighted median %v", i, got, want)
		}
		if got, want := r.Low, math.Min(weighted(0.2), 0.92*r.Rent); got != want {
			t.Errorf("subject %d: low %v, want %v", i, got, want)
		}
		if got, want := r.High, math.Max(weighted(0.8), 1.08*r.Rent); got != want {
			t.Errorf("subject %d: high %v, want %v", i, got, want)
		}
	}
}

// TestRentComparablesAdjustedRent: a comparable's adjusted rent is its rent grown to the date and scaled to the
// subject's living area, and its similarity falls with distance.
func TestRentComparablesAdjustedRent(t *testing.T) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	home := func(lat, sqft float64) Property {
		h := Unknown()
		h.Lat, h.Lon, h.Sqft, h.Beds = lat, -122.35, sqft, 3
		return Property{Home: h}
	}
	m := &Market{}
	for _, p := range []Property{home(47.66, 1500), home(47.661, 1500), home(47.662, 1000), home(47.67, 2000)} {
		m.AddProperty(p)
	}
	m.Rentals = []Rental{
		{Property: 1, Day: DayOf(at.AddDate(-1, 0, 0)), Rent: 3000},
		{Property: 2, Day: DayOf(at.AddDate(0, -6, 0)), Rent: 2000},
		{Property: 3, Day: DayOf(at.AddDate(0, -1, 0)), Rent: 3500},
	}
	e := &Engine{market: m, rent: trainRent(m)}
	r := e.Rent(m.Home(0), 600000, at)
	if len(r.Comparables) != 3 {
		t.Fatalf("%d comparables, want 3", len(r.Comparables))
	}
	byHome := map[int32]RentalComparable{}
	for _, c := range r.Comparables {
		byHome[c.Property] = c
	}
	grow := func(d time.Time) float64 { return math.Pow(1+rentGrowth, at.Sub(d).Hours()/24/365) }
	for _, tc := range []struct {
		home int32
		want float64
	}{
		{1, 3000 * grow(m.Rentals[0].Date())},
		{2, 2000 * grow(m.Rentals[1].Date()) * math.Pow(1.5, 0.6)},
		{3, 3500 * grow(m.Rentals[2].Date()) * math.Pow(0.75, 0.6)},
	} {
		if got := byHome[tc.home].AdjustedRent; math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("home %d: adjusted rent %.2f, want %.2f", tc.home, got, tc.want)
		}
	}
	if r.Comparables[0].Property != 1 {
		t.Errorf("best comparable is home %d, want the nearest home of the same size (1)", r.Comparables[0].Property)
	}
}

// TestRentFallbackHasNoComparables: with fewer than three homes let nearby the rent comes from the yield, and no
// comparables are shown for it.
func TestRentFallbackHasNoComparables(t *testing.T) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	e, m := rentMarket(600, at)
	far := m.Home(0)
	far.Lat += 1 // about 69 miles north
	for _, tc := range []struct {
		name string
		e    *Engine
		h    Home
	}{
		{"far from every rent", e, far},
		{"before any rent", e, m.Home(0)},
		{"no rents at all", &Engine{market: &Market{homes: m.homes}, rent: trainRent(&Market{})}, m.Home(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			when := at
			if tc.name == "before any rent" {
				when = at.AddDate(-4, 0, 0)
			}
			r := tc.e.Rent(tc.h, 400000, when)
			if r.Source != RentFromModel || len(r.Comparables) != 0 || !(r.Rent > 0) {
				t.Errorf("rent = %+v, want a model rent with no comparables", r)
			}
		})
	}
}
