package valuation

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"valuator/internal/address"
	"valuator/internal/apperr"
	"valuator/internal/avm"
	"valuator/internal/geo"
	"valuator/internal/property"
)

// Input is a lookup request (api/openapi.yaml PropertyLookupRequest).
type Input struct {
	Address      string   `json:"address"`
	City         string   `json:"city"`
	State        string   `json:"state"`
	ZIP          string   `json:"zip"`
	Bedrooms     *float64 `json:"bedrooms"`
	Bathrooms    *float64 `json:"bathrooms"`
	SquareFeet   *float64 `json:"squareFeet"`
	YearBuilt    *float64 `json:"yearBuilt"`
	LotSize      *float64 `json:"lotSize"`
	PropertyType *string  `json:"propertyType"`
	// Brief leaves out what only a single answer shows, the drivers of the model's value (several milliseconds of
	// exact Shapley values a valuation): a batch's rows do not carry them, and six thousand rows would spend most of
	// their time on them.
	Brief bool `json:"-"`
}

// Match codes: how an address matched the records. A home matched exact or fuzzy is valued from its record; a
// unit of a building on record whose unit is not (placed at the building) and an address not on record (placed
// at its ZIP code's centre) are valued only from the facts the caller gives, and only when they include the
// property type and the square feet (see errNotOnRecord).
const (
	MatchExact        = "exact"
	MatchUnitFallback = "unit_fallback"
	MatchFuzzy        = "fuzzy"
	MatchNotOnRecord  = "not_on_record"
)

// Validation texts of the lookup form (spec working-screens section 5).
const (
	msgAddressRequired = "Address is required"
	msgCityRequired    = "City is required"
	msgStateRequired   = "State is required"
	msgZIPShort        = "ZIP code must be at least 5 characters"
)

// parse validates the input and parses its address. With city, state or ZIP given, the split fields are
// required as the lookup form requires them; with only `address`, it is a whole address on one line.
func (in Input) parse() (address.Address, error) {
	var v apperr.Validation
	street := strings.TrimSpace(in.Address)
	v.Check(street != "", "address", msgAddressRequired)
	split := strings.TrimSpace(in.City) != "" || strings.TrimSpace(in.State) != "" || strings.TrimSpace(in.ZIP) != ""
	if split {
		v.Check(strings.TrimSpace(in.City) != "", "city", msgCityRequired)
		v.Check(strings.TrimSpace(in.State) != "", "state", msgStateRequired)
		v.Check(len(strings.TrimSpace(in.ZIP)) >= 5, "zip", msgZIPShort)
	}
	checkRange := func(p *float64, field string, lo, hi float64) {
		if p != nil {
			v.Check(*p >= lo && *p <= hi && !math.IsNaN(*p), field,
				field+" must be between "+trimFloat(lo)+" and "+trimFloat(hi))
		}
	}
	checkRange(in.Bedrooms, "bedrooms", 0, 50)
	checkRange(in.Bathrooms, "bathrooms", 0, 50)
	checkRange(in.SquareFeet, "squareFeet", 100, 100000)
	checkRange(in.YearBuilt, "yearBuilt", 1700, 2100)
	checkRange(in.LotSize, "lotSize", 0, 1e8)
	if in.PropertyType != nil && *in.PropertyType != "" {
		if property.NormalizeType(*in.PropertyType) == "Other" && *in.PropertyType != "Other" {
			v.Add("propertyType", "propertyType must be Single Family, Condo, Townhouse, Multi-Family, Manufactured or Other")
		}
	}
	if err := v.Err(); err != nil {
		return address.Address{}, err
	}
	if split {
		a, err := address.FromParts(street, in.City, in.State, in.ZIP)
		if err != nil {
			return a, err
		}
		return a, checkZIP(a)
	}
	a, err := address.Parse(street)
	if err != nil {
		return a, err
	}
	if a.ZIP == "" && (a.City == "" || a.State == "") {
		return a, apperr.Invalid("address", "Add the city and state or the ZIP code to the address")
	}
	return a, checkZIP(a)
}

// checkZIP refuses a ZIP code that does not exist (internal/geo's table of every US ZIP code) or that lies in
// another state than the one given: such an address is a typing mistake or made up, and placing it anywhere
// would value a home somewhere else. The error names the zip field in either form of input (the one-line form has
// no zip field of its own, but the ZIP code is what to fix).
func checkZIP(a address.Address) error {
	if a.ZIP == "" {
		return nil
	}
	z, ok := geo.LookupZIP(a.ZIP)
	if !ok {
		return zipError("There is no ZIP code " + a.ZIP + ". Enter the 5-digit ZIP code of the property.")
	}
	if a.State != "" && z.State != a.State {
		return zipError("ZIP code " + a.ZIP + " is in " + z.State + ", not " + a.State)
	}
	return nil
}

func zipError(msg string) error {
	return &apperr.Error{Kind: apperr.KindInvalid, Code: address.CodeInvalidZIP, Message: msg, Field: "zip",
		Fields: map[string]string{"zip": msg}}
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// matched is the outcome of address matching.
type matched struct {
	code     string
	property int32 // the record valued (-1 when none)
	// Where a home not on record is placed: its building, or its ZIP code's (or city's) centre.
	lat, lon float64
	zip      string
}

// match finds the record of an address.
func (s *snapshot) match(a address.Address) (matched, bool) {
	sk, uk := a.StreetKey(), a.UnitKey()
	zips := []string{a.ZIP}
	if a.ZIP == "" {
		zips = nil
	}
	lookupZIP := func(zip string) (matched, bool) {
		units := s.byBuilding.get(zip + "|" + sk)
		if p, ok := s.unitOf(units, uk); ok {
			// A building with several units answers a unit-less address with the building, not one unit.
			if uk != "" || len(units) == 1 {
				return matched{code: MatchExact, property: p}, true
			}
		}
		if len(units) > 0 {
			if uk == "" && len(units) == 1 {
				return matched{code: MatchExact, property: units[0]}, true
			}
			h := s.market.Home(units[0])
			return matched{code: MatchUnitFallback, property: -1, lat: h.Lat, lon: h.Lon, zip: zip}, true
		}
		// The street suffix missing or different ("Main" for "Main St"): accept one home with that number and
		// name.
		if cands := s.byName.get(zip + "|" + a.NameKey()); len(cands) > 0 && a.Number != "" {
			var hit []int32
			for _, c := range cands {
				if uk == "" || s.homes.own(c).UnitKey == uk {
					hit = append(hit, c)
				}
			}
			if len(hit) == 1 {
				return matched{code: MatchFuzzy, property: hit[0]}, true
			}
		}
		return matched{}, false
	}
	for _, z := range zips {
		if m, ok := lookupZIP(z); ok {
			return m, true
		}
	}
	if a.ZIP == "" && a.City != "" {
		// No ZIP code: the same street key in the same city.
		for _, p := range s.byCity.get(cityKey(a.City, a.State) + "|" + sk) {
			if m, ok := lookupZIP(s.homes.str(p, sZIP)); ok {
				return m, true
			}
		}
	}
	return matched{}, false
}

// locate places an address that is not on record at its ZIP code's centre, or its city's.
func locate(a address.Address) (lat, lon float64, zip string, ok bool) {
	if z, found := geo.LookupZIP(a.ZIP); found {
		return z.Lat, z.Lon, z.Code, true
	}
	if a.City == "" || a.State == "" {
		return 0, 0, "", false
	}
	zs := geo.ZIPsInCity(a.City, a.State)
	if len(zs) == 0 {
		return 0, 0, "", false
	}
	for _, z := range zs {
		lat += z.Lat
		lon += z.Lon
	}
	n := float64(len(zs))
	return lat / n, lon / n, zs[0].Code, true
}

// errNotFound is the answer when there is no market data for an address (not charged): the address cannot be
// placed at all (a one-line address whose city is not in the ZIP table), or the engine has no market to value from.
var errNotFound = apperr.NotFound("property_not_found", "Property not found")

// CodeAreaNotCovered is the code of the free 404 for an address that is placed (at its ZIP code's centre, its
// city's or its building) but lies farther than maxMarketMiles from every sale the installation holds: the
// markets loaded here do not reach it, which a caller must be told in those words rather than "not found".
const CodeAreaNotCovered = "area_not_covered"

// errAreaNotCovered is the answer for an address outside the markets loaded in this installation (not charged).
// Its message names the place: the ZIP code of the address, else its city and state, else the address as written.
func errAreaNotCovered(place string) error {
	return apperr.NotFound(CodeAreaNotCovered, "We have no sales near "+place)
}

// placeName is how the answer for an address outside the markets names where it is: the ZIP code given, else the
// city and state as the ZIP table spells them ("Miami, FL", whatever the case the caller wrote), else the address as
// the caller wrote it.
func placeName(a address.Address, in Input) string {
	if a.ZIP != "" {
		return a.ZIP
	}
	if a.City != "" && a.State != "" {
		if zs := geo.ZIPsInCity(a.City, a.State); len(zs) > 0 {
			return zs[0].City + ", " + zs[0].State
		}
	}
	return in.Line()
}

// The facts a home that is not on record is valued from: the property type and the square feet at least (as
// RentCast requires), the others optional.
const (
	msgNotOnRecord     = "No property on record at this address."
	msgUnitNotOnRecord = "The building is on record but not this unit."
	msgOptionalFacts   = " (optionally bedrooms, bathrooms, yearBuilt, lotSize)."
)

// errNotOnRecord is the answer for an address that is not on record when the caller did not give the facts to
// value it from (not charged): a 404 with the code of every not-found lookup, whose message says what to add and
// whose fields name the missing facts, so that a form can ask for them.
func errNotOnRecord(code string, missing []string) error {
	msg := msgNotOnRecord
	it := "it"
	if code == MatchUnitFallback {
		msg, it = msgUnitNotOnRecord, "the unit"
	}
	msg += " To value " + it + " anyway, add its " + strings.Join(missing, " and ") + msgOptionalFacts
	e := apperr.NotFound("property_not_found", msg)
	e.Field = missing[0]
	e.Fields = map[string]string{}
	for _, f := range missing {
		e.Fields[f] = factMessages[f]
	}
	return e
}

var factMessages = map[string]string{
	"propertyType": "Add the property type: the home is not on record",
	"squareFeet":   "Add the square feet: the home is not on record",
}

// missingFacts lists the facts a home that is not on record needs and the caller did not give.
func (in Input) missingFacts() []string {
	var miss []string
	if in.givenType() == "" {
		miss = append(miss, "propertyType")
	}
	if in.SquareFeet == nil {
		miss = append(miss, "squareFeet")
	}
	return miss
}

// givenType is the property type the caller gave, normalized, or "".
func (in Input) givenType() string {
	if in.PropertyType == nil {
		return ""
	}
	return property.NormalizeType(*in.PropertyType)
}

// maxMarketMiles: a home farther than this from every recorded sale cannot be valued (errAreaNotCovered).
const maxMarketMiles = 25

// Lookup values the home at an address, as of today.
func (s *Service) Lookup(ctx context.Context, in Input) (*Result, error) {
	a, err := in.parse()
	if err != nil {
		return nil, err
	}
	set := s.set.Load()
	if set == nil {
		return nil, s.errNotReady()
	}
	if !set.valuing() {
		return nil, errNotFound
	}
	at := s.now().UTC()
	snap, m, onRecord := set.match(a)
	if !onRecord {
		lat, lon, zip, ok := locate(a)
		if !ok {
			return nil, errNotFound
		}
		m = matched{code: MatchNotOnRecord, property: -1, lat: lat, lon: lon, zip: zip}
		// A home not on record is valued by its ZIP code's partition; none loaded: not a market this
		// installation covers.
		if snap = set.home(a, zip); snap == nil {
			return nil, errAreaNotCovered(placeName(a, in))
		}
	}
	if snap.engine == nil {
		return nil, errNotFound
	}
	if m.property < 0 {
		// Known, estimated or refused: a home that is not on record is valued from the caller's facts, never from
		// invented ones, and only where there is a market to value it in.
		if !snap.engine.Covers(m.lat, m.lon, maxMarketMiles) {
			return nil, errAreaNotCovered(placeName(a, in))
		}
		if miss := in.missingFacts(); len(miss) > 0 {
			return nil, errNotOnRecord(m.code, miss)
		}
		if err := checkFacts(in, snap.rangesFor(m.zip, in.givenType())); err != nil {
			return nil, err
		}
	}
	var rec *property.Home
	if m.property >= 0 {
		rec = snap.homes.home(m.property)
	}
	key := cacheKey(snap.version, m, in, at)
	if r := s.cache.get(key); r != nil {
		// The same subject written another way (or another address placed at the same ZIP centre): the
		// valuation is the same; the address part is this caller's.
		demo := r.Property.IsDemo
		r.Property, _, _ = propertyOf(a, m, rec, deref(r.Property.Latitude), deref(r.Property.Longitude))
		r.Property.IsDemo = demo
		return r, nil
	}
	res, err := s.value(snap, a, m, rec, in, at)
	if err == nil {
		s.cache.put(key, res)
		// The caller fills the meta of its own copy; the cached original stays clean.
		c := *res
		res = &c
	}
	return res, err
}

// cacheKey identifies a valuation for the cache: the market version, the subject (a record, or a place and the
// attributes given for it) and the day. How the address was written is not part of it, so every form of one
// address, and every address placed at one ZIP code's centre with the same attributes, share one entry.
func cacheKey(version string, m matched, in Input, at time.Time) string {
	var b strings.Builder
	b.WriteString(version)
	b.WriteByte('|')
	b.WriteString(at.Format("2006-01-02"))
	if in.Brief {
		b.WriteString("|brief")
	}
	if m.property >= 0 {
		// A record is valued from its own attributes; the caller's are not used.
		b.WriteString("|p")
		b.WriteString(strconv.Itoa(int(m.property)))
		return b.String()
	}
	b.WriteString("|@" + strconv.FormatFloat(m.lat, 'g', -1, 64) + "," + strconv.FormatFloat(m.lon, 'g', -1, 64) + "," + m.zip)
	for _, p := range []*float64{in.Bedrooms, in.Bathrooms, in.SquareFeet, in.YearBuilt, in.LotSize} {
		b.WriteByte('|')
		if p != nil {
			b.WriteString(strconv.FormatFloat(*p, 'g', -1, 64))
		}
	}
	// The type as valued (and shown): "condo" and "Condo" are one subject.
	b.WriteString("|" + in.givenType())
	return b.String()
}

// errTooUncertain refuses a valuation whose 80% range is wider than avm.MaxRangeRatio (not charged): such a number
// is no use to anyone, and a customer must not pay for it.
func errTooUncertain(onRecord bool) error {
	msg := "This home's value is too uncertain to quote: its likely range is more than three times wide (the high " +
		"end over three times the low): the sales near it say too little about a home like it."
	if !onRecord {
		msg += " Adding its bedrooms, bathrooms and year built may narrow it."
	}
	return &apperr.Error{Kind: apperr.KindUnprocessable, Code: "valuation_too_uncertain", Message: msg + " Not charged."}
}

// value values the matched subject: a record from its own attributes, otherwise a home at the matched place with
// the attributes the caller gave. The valuation is made as of the engine's AsOf of at: today, or the market's newest
// sale when today lies too far past it (the answer then says so).
func (s *Service) value(snap *snapshot, a address.Address, m matched, rec *property.Home, in Input, at time.Time) (*Result, error) {
	at, stale := snap.engine.AsOf(at)
	var val avm.Valuation
	var subject avm.Home
	if rec != nil {
		subject = snap.market.Home(m.property)
		val = snap.engine.Value(subject, m.property, at)
	} else {
		given := avm.Unknown()
		applyInput(&given, in)
		given.Lat, given.Lon, given.ZIP = m.lat, m.lon, m.zip
		if m.code == MatchUnitFallback {
			val, subject = snap.engine.ValueUnit(given, at)
		} else {
			val, subject = snap.engine.ValueApprox(given, at)
		}
	}
	if !(val.Value > 0) || math.IsInf(val.Value, 0) {
		return nil, errNotFound
	}
	if val.TooUncertain() {
		return nil, errTooUncertain(rec != nil)
	}
	r := s.result(snap, a, m, rec, subject, val, at, stale)
	if !in.Brief {
		r.Valuation.Drivers = driversOf(snap.engine.Drivers(subject, m.property, at), val.ModelValue)
	}
	if rec == nil {
		// The engine filled what the caller did not say with the typical home nearby to value it; those are its
		// assumptions, not facts about this home, so the answer shows only what the caller said.
		r.Details = givenDetails(in)
	}
	return r, nil
}

// givenDetails are the details of a home that is not on record: exactly the facts the caller gave, null
// elsewhere (its market status, photo and everything not given are unknown).
func givenDetails(in Input) ResultDetails {
	h := avm.Unknown()
	applyInput(&h, in)
	return detailsOf(h)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// applyInput copies the attributes a caller gave.
func applyInput(h *avm.Home, in Input) {
	set := func(dst *float64, p *float64) {
		if p != nil {
			*dst = *p
		}
	}
	set(&h.Beds, in.Bedrooms)
	set(&h.Baths, in.Bathrooms)
	set(&h.Sqft, in.SquareFeet)
	set(&h.YearBuilt, in.YearBuilt)
	set(&h.LotSqft, in.LotSize)
	if in.PropertyType != nil {
		h.Type = avm.PropertyType(property.NormalizeType(*in.PropertyType))
	}
}

// priceHistory lists the recorded sales of a property, newest first.
func (s *snapshot) priceHistory(p int32) []PriceEvent {
	idx := s.salesOf(p)
	out := make([]PriceEvent, 0, len(idx))
	for _, i := range idx {
		sale := s.market.Sales[i]
		out = append(out, PriceEvent{Date: day(sale.Date()), Price: int64(sale.Price), Event: "sale"})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Date > out[b].Date })
	return out
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

func zipInfo(zip string) (geo.ZIP, bool) { return geo.LookupZIP(zip) }

// Line is the address as given, on one line, for records of calls that could not be valued.
func (in Input) Line() string {
	parts := []string{}
	for _, p := range []string{in.Address, in.City, strings.TrimSpace(in.State + " " + in.ZIP)} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}
