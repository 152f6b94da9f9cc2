// Package testmarket builds the small market that tests of several packages train the engine on. It writes
// nothing: callers import the records into their own database.
package testmarket

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"valuator/internal/address"
	"valuator/internal/property"
)

// Start is the date of the first sale of Seattle, two years before the server tests' clock (2026-03-01).
var Start = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

// Seattle is 404 homes in Seattle's 98103 with two years of sales from Start: $450 a square foot, 0.5% a month of
// appreciation, a little noise; the same records every time. The first home is "1000 N 40TH ST" with two sales;
// "2000 STONE WAY N" is a building with units 101 and 102.
func Seattle() ([]property.Record, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	var recs []property.Record
	add := func(street string, lat, lon, sqft float64, date time.Time) error {
		a, err := address.FromParts(street, "Seattle", "WA", "98103")
		if err != nil {
			return fmt.Errorf("%s: %w", street, err)
		}
		h := property.NewHome()
		h.Street, h.UnitType, h.Unit, h.City, h.State, h.ZIP = a.Street(), a.UnitType, a.UnitNumber, a.City, a.State, a.ZIP
		h.StreetKey, h.UnitKey, h.NameKey, h.County = a.StreetKey(), a.UnitKey(), a.NameKey(), "King County"
		h.Lat, h.Lon, h.Sqft, h.Beds, h.Baths, h.LotSqft, h.YearBuilt = lat, lon, sqft, math.Round(sqft/600), 2, 4000, 1950
		h.Type, h.ImageURL = "Single Family", "/demo-homes/house-1.svg"
		months := date.Sub(Start).Hours() / 24 / 30.4
		price := int64(math.Round(450 * sqft * math.Exp(0.005*months) * math.Exp(rng.NormFloat64()*0.04)))
		recs = append(recs, property.Record{Home: h, SaleDate: date, Price: price})
		return nil
	}
	fixed := []struct {
		street   string
		lat, lon float64
		sqft     float64
		date     time.Time
	}{
		{"1000 N 40th St", 47.6550, -122.3400, 1500, Start.AddDate(0, 2, 0)},
		{"1000 N 40th St", 47.6550, -122.3400, 1500, Start.AddDate(1, 6, 0)},
		{"2000 Stone Way N Unit 101", 47.6600, -122.3420, 800, Start.AddDate(0, 5, 0)},
		{"2000 Stone Way N Unit 102", 47.6600, -122.3420, 850, Start.AddDate(1, 1, 0)},
	}
	for _, f := range fixed {
		if err := add(f.street, f.lat, f.lon, f.sqft, f.date); err != nil {
			return nil, err
		}
	}
	for i := 0; i < 400; i++ {
		lat := 47.645 + rng.Float64()*0.03
		lon := -122.36 + rng.Float64()*0.04
		if err := add(fmt.Sprintf("%d Test Ave N", 3000+i*2), lat, lon, 900+rng.Float64()*1800,
			Start.AddDate(0, 0, rng.IntN(720))); err != nil {
			return nil, err
		}
	}
	return recs, nil
}
