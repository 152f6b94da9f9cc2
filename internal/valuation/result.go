package valuation

import (
	"math"
	"strings"
	"time"

	"valuator/internal/address"
	"valuator/internal/avm"
	"valuator/internal/property"
)

// Result is a valuation as the API returns it (api/openapi.yaml PropertyValuation).
type Result struct {
	Property   ResultProperty `json:"property"`
	Valuation  ResultValue    `json:"valuation"`
	Details    ResultDetails  `json:"details"`
	MarketData ResultMarket   `json:"marketData"`
	// ValueHistory is the home's estimated value at the end of each of the last ValueHistoryMonths months, oldest
	// first (valueHistory); the last is the estimate itself.
	ValueHistory []ValuePoint `json:"valueHistory"`
	Meta         ResultMeta   `json:"meta"`
}

// ValuePoint is the estimated value at the end of a month ("2026-03").
type ValuePoint struct {
	Month string `json:"month"`
	Value int64  `json:"value"`
}

// ValueHistoryMonths is how many months valueHistory covers.
const ValueHistoryMonths = 60

// valueHistory carries today's value back by the market's index: value·exp(index(end of month) − index(at)), at
// the end of each of the last ValueHistoryMonths months, the current month's at at itself (so the last entry is
// the estimate); rounded as the estimate is.
func valueHistory(ix *avm.Index, value float64, at time.Time) []ValuePoint {
	out := make([]ValuePoint, ValueHistoryMonths)
	now := ix.At(at)
	first := time.Date(at.Year(), at.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1-ValueHistoryMonths, 0)
	for i := range out {
		month := first.AddDate(0, i, 0)
		end := month.AddDate(0, 1, 0).Add(-time.Second)
		if i == len(out)-1 {
			end = at
		}
		out[i] = ValuePoint{Month: month.Format("2006-01"), Value: round(value * math.Exp(ix.At(end)-now))}
	}
	return out
}

type ResultProperty struct {
	Address          string   `json:"address"`
	Unit             *string  `json:"unit"`
	City             string   `json:"city"`
	State            string   `json:"state"`
	ZIP              string   `json:"zip"`
	FormattedAddress string   `json:"formattedAddress"`
	Latitude         *float64 `json:"latitude"`
	Longitude        *float64 `json:"longitude"`
	County           *string  `json:"county"`
	MatchCode        string   `json:"matchCode"`
	IsDemo           bool     `json:"isDemo"`
}

type ResultValue struct {
	EstimatedValue int64 `json:"estimatedValue"`
	Low            int64 `json:"low"`
	High           int64 `json:"high"`
	// Confidence is 1 − FSD, the industry's confidence score; FSD is the forecast standard deviation (the price
	// lands within ±FSD of the estimate 68% of the time); WithinTenPercent is the chance it lands within 10%.
	Confidence       float64 `json:"confidence"`
	ConfidenceLevel  string  `json:"confidenceLevel"`
	FSD              float64 `json:"fsd"`
	WithinTenPercent float64 `json:"withinTenPercent"`
	PricePerSqFt     *int64  `json:"pricePerSqFt"`
	ValuationDate    string  `json:"valuationDate"`
	LastUpdated      string  `json:"lastUpdated"`
	// Warnings say in plain words what a customer must know to use the value (it is of an earlier date); empty
	// when there is nothing to say.
	Warnings []string `json:"warnings"`
	// Evidence is what the estimate is made of, with weights (avm.Evidence).
	Evidence []EvidenceOut `json:"evidence"`
	// Path is how the value was reached (avm.Path*), whose own held-out valuations calibrate its FSD.
	Path string `json:"path"`
	// ComparablesValue is the comparables' indicated value (the reconciled adjusted prices of the best three to
	// six), null when fewer than three could be used.
	ComparablesValue *int64 `json:"comparablesValue"`
	// Drivers explain the model's value against the area's typical home (null when there is nothing to explain).
	Drivers *DriversOut `json:"drivers"`
}

// DriversOut explains the model's value: the typical home's value plus every factor is the model's value.
type DriversOut struct {
	TypicalValue int64       `json:"typicalValue"`
	ModelValue   int64       `json:"modelValue"`
	Factors      []DriverOut `json:"factors"`
	// OtherFactors is what the factors past the five largest add up to.
	OtherFactors int64 `json:"otherFactors"`
}

// DriverOut is one factor: its contribution in dollars and what it is, in words.
type DriverOut struct {
	Factor      string `json:"factor"`
	Amount      int64  `json:"amount"`
	Description string `json:"description"`
}

// EvidenceOut is one part of an estimate as the API shows it.
type EvidenceOut struct {
	Source    string  `json:"source"`
	Weight    float64 `json:"weight"`
	Value     int64   `json:"value"`
	SaleDate  *string `json:"saleDate,omitempty"`
	SalePrice *int64  `json:"salePrice,omitempty"`
}

type ResultDetails struct {
	Bedrooms     *float64 `json:"bedrooms"`
	Bathrooms    *float64 `json:"bathrooms"`
	SquareFeet   *int64   `json:"squareFeet"`
	LivingArea   *int64   `json:"livingArea"`
	YearBuilt    *int64   `json:"yearBuilt"`
	PropertyType *string  `json:"propertyType"` // null when the records do not say
	LotSize      *float64 `json:"lotSize"`
	LotSizeSqFt  *int64   `json:"lotSizeSqFt"`
	ImageURL     *string  `json:"imageUrl"`
	HomeStatus   *string  `json:"homeStatus"`
}

type ResultMarket struct {
	RentEstimate *int64  `json:"rentEstimate"`
	RentLow      *int64  `json:"rentLow"`
	RentHigh     *int64  `json:"rentHigh"`
	RentSource   *string `json:"rentSource"`
	// RentalComparables are the rentals the rent estimate was made from, best first, with the weights it gave
	// them; empty when the rent comes from the yield model (rentSource "model") or there is no rent.
	RentalComparables []RentalComparableOut `json:"rentalComparables"`
	// GrossYield is rentEstimate × 12 / estimatedValue, both as quoted, to four decimals (0.0612 = 6.12% a year);
	// null without a rent estimate.
	GrossYield  *float64 `json:"grossYield"`
	County      *string  `json:"county"`
	MarketTrend *float64 `json:"marketTrend"`
	// PriceIndex says which price index marketTrend and valueHistory (and the value's move from the date of its
	// evidence to today) come from.
	PriceIndex   *PriceIndexOut  `json:"priceIndex"`
	PriceHistory []PriceEvent    `json:"priceHistory"`
	Comparables  []ComparableOut `json:"comparables"`
}

// PriceIndexOut names the price index a valuation used: its level (avm.LevelZIP "zip", LevelArea "area": a 3-digit
// ZIP prefix, LevelMetro "metro", LevelMarket "market": the whole market loaded) and the area it covers (the ZIP
// code, the prefix, or a metro by its ZIP code with the most sales; null for the whole market).
type PriceIndexOut struct {
	Level string  `json:"level"`
	Area  *string `json:"area"`
}

// RentalComparableOut is a rental comparable (avm.RentalComparable) as the API shows it: one home, its latest rent
// before the valuation date.
type RentalComparableOut struct {
	Address    string   `json:"address"`
	City       *string  `json:"city"`
	State      *string  `json:"state"`
	ZIP        *string  `json:"zip"`
	Rent       int64    `json:"rent"`
	Date       string   `json:"date"`
	Bedrooms   *float64 `json:"bedrooms"`
	Bathrooms  *float64 `json:"bathrooms"`
	SquareFeet *int64   `json:"squareFeet"`
	// Distance is in miles, to two decimals.
	Distance float64 `json:"distance"`
	// AdjustedRent is what this rent says the subject lets for (grown to the valuation date, scaled to its size):
	// the rent estimate is the weighted median of the adjusted rents.
	AdjustedRent int64   `json:"adjustedRent"`
	Similarity   float64 `json:"similarity"`
	Weight       float64 `json:"weight"`
}

// PriceEvent is one recorded sale of the home.
type PriceEvent struct {
	Date  string `json:"date"`
	Price int64  `json:"price"`
	Event string `json:"event"`
}

// ComparableOut is a comparable sale as the API shows it.
type ComparableOut struct {
	Address       string   `json:"address"`
	City          *string  `json:"city"`
	State         *string  `json:"state"`
	ZIP           *string  `json:"zip"`
	DistanceMiles float64  `json:"distanceMiles"`
	SaleDate      string   `json:"saleDate"`
	SalePrice     int64    `json:"salePrice"`
	Bedrooms      *float64 `json:"bedrooms"`
	Bathrooms     *float64 `json:"bathrooms"`
	SquareFeet    *int64   `json:"squareFeet"`
	YearBuilt     *int64   `json:"yearBuilt"`
	Similarity    float64  `json:"similarity"`
	AdjustedPrice int64    `json:"adjustedPrice"`
	// Adjustments are the line-by-line differences between this home and the subject, in dollars; they add up to
	// AdjustedPrice − SalePrice (to rounding).
	Adjustments Adjustments `json:"adjustments"`
	// NetAdjustment and GrossAdjustment are the sum of the adjustments and the sum of their sizes as shares of the
	// sale price; past 15% and 25% they are marked (Fannie Mae's guideline: such a comparable must be explained).
	NetAdjustment          float64 `json:"netAdjustment"`
	GrossAdjustment        float64 `json:"grossAdjustment"`
	NetAdjustmentOverLimit bool    `json:"netAdjustmentOverLimit"`
	GrossAdjustmentOverLim bool    `json:"grossAdjustmentOverLimit"`
	// Reconciled says the home is one of those whose adjusted prices make comparablesValue, with its weight.
	Reconciled           bool    `json:"reconciled"`
	ReconciliationWeight float64 `json:"reconciliationWeight"`
}

// Adjustments are a comparable's adjustment lines (avm.AdjustmentLines) in dollars.
type Adjustments struct {
	Time       int64 `json:"time"`
	LivingArea int64 `json:"livingArea"`
	Lot        int64 `json:"lot"`
	Bedrooms   int64 `json:"bedrooms"`
	Bathrooms  int64 `json:"bathrooms"`
	Age        int64 `json:"age"`
	Quality    int64 `json:"quality"`
	Location   int64 `json:"location"`
}

// ResultMeta is filled by the HTTP layer (request id, timing, credits) except DataSource.
type ResultMeta struct {
	RequestID        string `json:"requestId"`
	Timestamp        string `json:"timestamp"`
	ResponseTime     int64  `json:"responseTime"`
	CreditsUsed      int64  `json:"creditsUsed"`
	CreditsRemaining int64  `json:"creditsRemaining"`
	DataSource       string `json:"dataSource,omitempty"`
}

// ConfidenceLevel is the one mapping of every surface (DESIGN.md section 5): High at 0.85 or more, Medium at 0.70 or
// more, otherwise Low. These are the spec's badge colours (green at 85, yellow at 70) and HouseCanary's buckets of
// 1 − FSD; the spec's report rule (above 0.8, above 0.6) was written for the old within-10% measure.
func ConfidenceLevel(c float64) string {
	switch {
	case c >= 0.85:
		return "High"
	case c >= 0.70:
		return "Medium"
	default:
		return "Low"
	}
}

func optF(v float64) *float64 {
	if v != v || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func optI(v float64) *int64 {
	if v != v || math.IsInf(v, 0) {
		return nil
	}
	r := int64(math.Round(v))
	return &r
}

func optS(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// round rounds a dollar amount the way valuations are quoted: to $1,000 (to $100 under $100,000).
func round(v float64) int64 {
	step := 1000.0
	if v < 100000 {
		step = 100
	}
	return int64(math.Round(v/step) * step)
}

// recentlySold: a sale within this many days makes the home RECENTLY_SOLD.
const recentlySold = 90

// round3 rounds a share to three decimals, as the API quotes them.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// staleWarning is the warning of a valuation made as of the market's newest sale rather than today (avm.AsOf).
func staleWarning(asOf time.Time) string {
	return "Valued as of " + asOf.Format("January 2006") + ", the newest sale on record here: the records end there, " +
		"and prices may have moved since."
}

// result shapes a valuation made as of at (the engine's AsOf of the day asked; stale when that is the newest sale's
// day rather than today).
func (s *Service) result(snap *snapshot, a address.Address, m matched, rec *property.Home, subject avm.Home,
	val avm.Valuation, at time.Time, stale bool) *Result {
	r := &Result{}
	var county, source string
	r.Property, county, source = propertyOf(a, m, rec, subject.Lat, subject.Lon)

	// The API's confidence is exactly 1 − its fsd, both to three decimals.
	fsd := round3(val.FSD)
	confidence := round3(math.Max(0, 1-fsd))
	r.Valuation = ResultValue{EstimatedValue: round(val.Value), Low: round(val.Low), High: round(val.High),
		Confidence: confidence, ConfidenceLevel: ConfidenceLevel(confidence), FSD: fsd,
		WithinTenPercent: round3(val.WithinTen), ValuationDate: day(at), Warnings: []string{},
		LastUpdated: snap.engine.DataEnd().AddDate(0, 0, -1).UTC().Format(time.RFC3339)}
	if stale {
		r.Valuation.Warnings = append(r.Valuation.Warnings, staleWarning(at))
	}
	r.Valuation.Evidence = evidenceOf(val.Evidence)
	r.Valuation.Path = val.Path
	if val.ComparablesValue > 0 {
		r.Valuation.ComparablesValue = optI(float64(round(val.ComparablesValue)))
	}
	r.Valuation.Warnings = append(r.Valuation.Warnings, evidenceWarnings(val)...)
	if subject.Sqft > 0 {
		r.Valuation.PricePerSqFt = optI(val.Value / subject.Sqft)
	}

	r.Details = detailsOf(subject)
	if rec != nil {
		r.Details.ImageURL = optS(rec.ImageURL)
		r.Details.HomeStatus = optS("OFF_MARKET")
	}

	rent := snap.engine.Rent(subject, val.Value, at)
	r.MarketData = ResultMarket{County: optS(county), PriceHistory: []PriceEvent{}, Comparables: []ComparableOut{},
		RentalComparables: []RentalComparableOut{}}
	if rent.Rent > 0 {
		r.MarketData.RentEstimate = optI(math.Round(rent.Rent/25) * 25)
		r.MarketData.RentLow = optI(math.Round(rent.Low/25) * 25)
		r.MarketData.RentHigh = optI(math.Round(rent.High/25) * 25)
		r.MarketData.RentSource = optS(rent.Source)
		// From the quoted figures, so that a reader of the answer gets the same yield from it.
		if v := r.Valuation.EstimatedValue; v > 0 && *r.MarketData.RentEstimate > 0 {
			y := math.Round(float64(*r.MarketData.RentEstimate)*12/float64(v)*10000) / 10000
			r.MarketData.GrossYield = &y
		}
		for _, c := range rent.Comparables {
			h := snap.homes.home(c.Property)
			r.Property.IsDemo = r.Property.IsDemo || h.Source == property.SourceDemo
			r.MarketData.RentalComparables = append(r.MarketData.RentalComparables, RentalComparableOut{
				Address: streetLine(h), City: optS(h.City), State: optS(h.State), ZIP: optS(h.ZIP),
				Rent: int64(math.Round(c.Rent)), Date: day(c.Date), Bedrooms: optF(h.Beds), Bathrooms: optF(h.Baths),
				SquareFeet: optI(h.Sqft), Distance: math.Round(c.Miles*100) / 100,
				AdjustedRent: int64(math.Round(c.AdjustedRent)), Similarity: round3(c.Similarity), Weight: round3(c.Weight)})
		}
	}
	ix, level, key := snap.engine.AreaIndex(subject)
	r.MarketData.MarketTrend = optF(math.Round(ix.Change12m(at)*1000) / 1000)
	r.MarketData.PriceIndex = &PriceIndexOut{Level: level, Area: optS(key)}
	r.ValueHistory = valueHistory(ix, val.Value, at)
	if m.property >= 0 {
		r.MarketData.PriceHistory = snap.priceHistory(m.property)
		if len(r.MarketData.PriceHistory) > 0 {
			if last, err := time.Parse("2006-01-02", r.MarketData.PriceHistory[0].Date); err == nil &&
				at.Sub(last) < recentlySold*24*time.Hour {
				r.Details.HomeStatus = optS("RECENTLY_SOLD")
			}
		}
	}
	for _, c := range val.Comparables {
		h := snap.homes.home(c.Property)
		// A valuation drawn from demo records is a demo answer, whether or not the subject is on record.
		r.Property.IsDemo = r.Property.IsDemo || h.Source == property.SourceDemo
		out := ComparableOut{Address: streetLine(h),
			City: optS(h.City), State: optS(h.State), ZIP: optS(h.ZIP),
			DistanceMiles: math.Round(c.Miles*100) / 100, SaleDate: day(c.Date), SalePrice: int64(math.Round(c.Price)),
			Bedrooms: optF(h.Beds), Bathrooms: optF(h.Baths), SquareFeet: optI(h.Sqft), YearBuilt: optI(h.YearBuilt),
			Similarity: math.Round(c.Similarity*1000) / 1000, AdjustedPrice: round(c.AdjustedPrice),
			Adjustments: adjustmentsOf(c), NetAdjustment: round3(c.NetAdjustment), GrossAdjustment: round3(c.GrossAdjustment),
			NetAdjustmentOverLimit: c.NetOver(), GrossAdjustmentOverLim: c.GrossOver(), Reconciled: c.Reconciled,
			ReconciliationWeight: round3(c.ReconciliationWeight)}
		r.MarketData.Comparables = append(r.MarketData.Comparables, out)
	}
	r.Meta.DataSource = source
	return r
}

// streetLine is a comparable home's street line with its unit, or "Parcel <id>" for a record without a street.
func streetLine(h *property.Home) string {
	if h.Street == "" {
		return "Parcel " + h.ExternalID
	}
	return strings.TrimSpace(h.Street + " " + strings.TrimSpace(h.UnitType+" "+h.Unit))
}

// detailsOf shows what is known of a home; unknown numbers and type are null.
func detailsOf(h avm.Home) ResultDetails {
	d := ResultDetails{Bedrooms: optF(h.Beds), Bathrooms: optF(h.Baths), SquareFeet: optI(h.Sqft),
		LivingArea: optI(h.Sqft), YearBuilt: optI(h.YearBuilt), PropertyType: optS(string(h.Type)),
		LotSizeSqFt: optI(h.LotSqft)}
	if h.LotSqft > 0 {
		acres := math.Round(h.LotSqft/43560*100) / 100
		d.LotSize = &acres
	}
	return d
}

// evidenceOf shows the parts of an estimate, weights to three decimals (so they may add up to 1 ± 0.001).
func evidenceOf(ev []avm.Evidence) []EvidenceOut {
	out := make([]EvidenceOut, 0, len(ev))
	for _, e := range ev {
		o := EvidenceOut{Source: e.Source, Weight: math.Round(e.Weight*1000) / 1000, Value: round(e.Value)}
		if e.Source == avm.EvidenceLastSale {
			d := day(e.Date)
			p := int64(math.Round(e.Price))
			o.SaleDate, o.SalePrice = &d, &p
		}
		out = append(out, o)
	}
	return out
}

// propertyOf is the address part of a result: the record's own address when matched, else the caller's,
// normalized; with the county and the data source. It is all of a result that depends on how the address was
// written, so a cached valuation of the same subject gets it afresh (lat, lon: where the subject was valued).
func propertyOf(a address.Address, m matched, rec *property.Home, lat, lon float64) (ResultProperty, string, string) {
	street, unit, city, state, zip := a.Street(), a.Unit(), a.City, a.State, a.ZIP
	county := ""
	source := ""
	if rec != nil {
		street, city, state, zip, county, source = rec.Street, rec.City, rec.State, rec.ZIP, rec.County, rec.Source
		unit = strings.TrimSpace(rec.UnitType + " " + rec.Unit)
		if street == "" && rec.ExternalID != "" {
			street = "Parcel " + rec.ExternalID
		}
	} else if z, ok := zipInfo(m.zip); ok {
		county = z.County
		if zip == "" {
			zip = m.zip
		}
		if city == "" {
			city = strings.ToUpper(z.City)
		}
	}
	line := street
	if unit != "" {
		line += " " + unit
	}
	return ResultProperty{Address: line, Unit: optS(unit), City: city, State: state, ZIP: zip,
		FormattedAddress: formatted(line, city, state, zip), Latitude: optF(lat),
		Longitude: optF(lon), County: optS(county), MatchCode: m.code, IsDemo: source == property.SourceDemo}, county, source
}

func formatted(line, city, state, zip string) string {
	out := line
	if city != "" {
		out += ", " + city
	}
	if state != "" || zip != "" {
		out += ", " + strings.TrimSpace(state+" "+zip)
	}
	return out
}
