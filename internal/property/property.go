// Package property holds the records the engine learns from: homes, their sales and their rents, and the importers
// that read them from files (county records, MLS exports, any CSV with a column mapping).
package property

import (
	"math"
	"strings"
	"time"
)

// SourceDemo is the Source of the demo market's homes (internal/demo): a valuation drawn from them says isDemo.
const SourceDemo = "demo"

// Home is a property on record. Unknown numbers are NaN.
type Home struct {
	ID         int64
	Source     string // "demo", "kingcounty", "sacramento", or the name given to a CSV import
	ExternalID string // the source's own id (a parcel number), or ""
	// Address, normalized (internal/address); Street is "" for records without one (King County's parcels).
	Street   string
	UnitType string
	Unit     string
	City     string
	State    string
	ZIP      string
	// StreetKey and UnitKey match differently written forms of one address.
	StreetKey string
	UnitKey   string
	NameKey   string
	Lat, Lon  float64
	County    string
	Type      string // avm.PropertyType values: "Single Family", "Condo", ...
	Beds      float64
	Baths     float64
	Sqft      float64
	LotSqft   float64
	Floors    float64
	YearBuilt float64
	YearRenov float64
	Grade     float64
	Condition float64
	View      float64
	Water     float64
	SqftAbove float64
	SqftBase  float64
	NbrSqft   float64
	NbrLot    float64
	ImageURL  string
}

// NewHome returns a Home with every number unknown.
func NewHome() Home {
	n := math.NaN()
	return Home{Lat: n, Lon: n, Beds: n, Baths: n, Sqft: n, LotSqft: n, Floors: n, YearBuilt: n, YearRenov: n,
		Grade: n, Condition: n, View: n, Water: n, SqftAbove: n, SqftBase: n, NbrSqft: n, NbrLot: n}
}

// Sale is a recorded sale. Prices are whole dollars.
type Sale struct {
	ID         int64
	PropertyID int64
	Date       time.Time
	Price      int64
}

// Rental is a recorded monthly rent in whole dollars.
type Rental struct {
	ID         int64
	PropertyID int64
	Date       time.Time
	Rent       int64
}

// Record is one row of an import: a home and, when the row is a sale, its date and price.
type Record struct {
	Line     int
	Home     Home
	SaleDate time.Time
	Price    int64 // 0: no sale on this row
	Rent     int64 // 0: no rent on this row
}

// NormalizeType normalises a source's property type to the engine's names.
func NormalizeType(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "residential", "single family", "single-family", "sfr", "house", "detached", "single family residential", "sf":
		return "Single Family"
	case "condo", "condominium", "apartment", "co-op", "coop":
		return "Condo"
	case "townhouse", "townhome", "town house", "row house", "attached":
		return "Townhouse"
	case "multi-family", "multifamily", "multi family", "duplex", "triplex", "fourplex", "2-4 units":
		return "Multi-Family"
	case "manufactured", "mobile", "mobile home", "manufactured home":
		return "Manufactured"
	case "":
		return ""
	default:
		return "Other"
	}
}
