// Package avm is the valuation engine: given a home and a date, it estimates the price the home would sell for,
// an 80% range, a calibrated confidence, the rent it would fetch, and the comparable sales behind the figure.
// It is pure Go with no I/O: it learns from a Market handed to Train and answers from memory.
package avm

import (
	"math"
	"time"

	days "valuator/internal/day"
)

// PropertyType is the kind of home.
type PropertyType string

const (
	SingleFamily PropertyType = "Single Family"
	Condo        PropertyType = "Condo"
	Townhouse    PropertyType = "Townhouse"
	MultiFamily  PropertyType = "Multi-Family"
	Manufactured PropertyType = "Manufactured"
	OtherType    PropertyType = "Other"
)

// typeCode gives the model a number per type; the order carries no meaning beyond grouping.
func typeCode(t PropertyType) float64 {
	switch t {
	case SingleFamily:
		return 1
	case Townhouse:
		return 2
	case Condo:
		return 3
	case MultiFamily:
		return 4
	case Manufactured:
		return 5
	case OtherType:
		return 6
	default:
		return math.NaN()
	}
}

// Home is what the engine knows about a property. Unknown numbers are NaN (use Unknown()).
type Home struct {
	Lat, Lon      float64
	ZIP           string
	Type          PropertyType
	Beds, Baths   float64
	Sqft          float64 // living area
	LotSqft       float64
	Floors        float64
	YearBuilt     float64
	YearRenovated float64 // 0 or NaN: never
	// Optional quality attributes (King County style): construction grade 1-13, condition 1-5, view 0-4,
	// waterfront 0/1, above-ground and basement area.
	Grade, Condition, View, Waterfront float64
	SqftAbove, SqftBasement            float64
	// NbrSqft and NbrLot are the mean living area and lot of the nearest homes (the neighbourhood's scale);
	// Train fills them from the market's own properties when they are unknown.
	NbrSqft, NbrLot float64
}

// Unknown returns a Home with every number unknown.
func Unknown() Home {
	n := math.NaN()
	return Home{Lat: n, Lon: n, Beds: n, Baths: n, Sqft: n, LotSqft: n, Floors: n, YearBuilt: n, YearRenovated: n,
		Grade: n, Condition: n, View: n, Waterfront: n, SqftAbove: n, SqftBasement: n, NbrSqft: n, NbrLot: n}
}

// Property is a home on record.
type Property struct {
	ID int64
	Home
}

// Sale is a recorded sale of Market.Property(Property).
type Sale struct {
	ID       int64
	Price    float64
	Property int32
	Day      Day // the date
}

// Date is the day of the sale, at midnight UTC.
func (s Sale) Date() time.Time { return s.Day.Time() }

// Rental is a recorded monthly rent of Market.Property(Property).
type Rental struct {
	Property int32
	Day      Day // the date
	Rent     float64
}

// Date is the day of the rent, at midnight UTC.
func (r Rental) Date() time.Time { return r.Day.Time() }

// Day is a date as a day number (package day): 4 bytes, where a time.Time takes 24 (issue 39).
type Day = days.Day

// DayOf is the day of t (day.Of).
func DayOf(t time.Time) Day { return days.Of(t) }

// Market is everything the engine learns from. Its properties are kept compactly (homes): add them with
// AddProperty and read them with Home, PropertyID and NumProperties.
type Market struct {
	homes   homes
	Sales   []Sale
	Rentals []Rental
}

// AddProperty adds a property; it is Market.Home(NumProperties()-1) after.
func (m *Market) AddProperty(p Property) { m.homes.add(p) }

// GrowProperties makes room for n more properties.
func (m *Market) GrowProperties(n int) { m.homes.grow(n) }

// NumProperties is the number of properties.
func (m *Market) NumProperties() int { return m.homes.len() }

// Home is the facts of property i (an index in 0..NumProperties()-1).
func (m *Market) Home(i int32) Home { return m.homes.home(i) }

// PropertyID is the ID of property i.
func (m *Market) PropertyID(i int32) int64 { return m.homes.ids[i] }

// Property is property i.
func (m *Market) Property(i int32) Property {
	return Property{ID: m.homes.ids[i], Home: m.homes.home(i)}
}

func known(v float64) bool { return v == v }

// logOr returns log(v) for a positive known v, else NaN.
func logOr(v float64) float64 {
	if v > 0 {
		return math.Log(v)
	}
	return math.NaN()
}
