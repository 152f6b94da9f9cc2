package batch

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"valuator/internal/address"
	"valuator/internal/apperr"
)

// ColumnType is what a column of an uploaded file holds (spec section 3, "Column mapping types").
type ColumnType string

const (
	TypeFullAddress ColumnType = "fullAddress" // street, city, state and ZIP code in one value
	TypeAddress     ColumnType = "address"     // the street line, with its unit
	TypeStreet      ColumnType = "street"      // the same as address, for files that call it so
	TypeCity        ColumnType = "city"
	TypeState       ColumnType = "state"
	TypeZIP         ColumnType = "zip"
	TypeIgnore      ColumnType = "ignore"
	// The facts of a home that is not on record, from which alone it is valued (a home on record is valued from
	// its record and these are not used). They go beyond the spec's types so that a sheet of homes not on record
	// can be valued as a single lookup can: propertyType and squareFeet at least, the others optional.
	TypePropertyType ColumnType = "propertyType"
	TypeSquareFeet   ColumnType = "squareFeet"
	TypeBedrooms     ColumnType = "bedrooms"
	TypeBathrooms    ColumnType = "bathrooms"
	TypeYearBuilt    ColumnType = "yearBuilt"
	TypeLotSize      ColumnType = "lotSize" // square feet
	// TypeUnknown is a Detection's type for a column that holds none of the above. It is never a mapping's type:
	// Detect maps such columns to TypeIgnore.
	TypeUnknown ColumnType = "unknown"
)

// Confidences of the detection heuristics (spec section 5, "Column detection heuristics").
const (
	confFullAddress = 0.95
	confAddress     = 0.9
	confCity        = 0.85
	confState       = 0.8
	confZIPName     = 0.95
	confZIPSample   = 0.8
	confFact        = 0.9  // a column named for a fact of the home: "Square Feet", "Beds", "Year Built"
	confUnknownName = 0.1  // the name says the column is something else (price, owner, ...)
	confUnknown     = 0.01 // nothing matched
	// minConfidence is the least confidence at which Detect assigns a type (spec section 4, "Column mapping").
	minConfidence = 0.6
	// sampleSize is how many non-empty values of a column the sample heuristics look at.
	sampleSize = 10
)

// Detection is the type detected for one column and how sure the heuristic is.
type Detection struct {
	Column     string     `json:"column"`
	Type       ColumnType `json:"type"`
	Confidence float64    `json:"confidence"`
}

// Mapping maps each column name of a file to its type. Detect gives every column; Validate and Apply take a
// column that is missing to be ignored.
type Mapping map[string]ColumnType

// Detect guesses the type of every column of t from its name and its first non-empty values, and assigns
// types as the mapping screen does: in order of confidence (the column order breaks ties), a type only at 0.6 or
// more and not unknown, and a type already taken makes the column ignored.
//
// Two steps go beyond the spec's heuristics. A column named for a fact of the home that a home not on record is
// valued from ("Property Type", "Square Feet", "Beds", "Baths", "Year Built", "Lot Sq Ft") gets that fact's type
// rather than unknown (factColumns). When the assigned mapping is not valid (no full address, and
// city, state or ZIP code missing) and the street column's values parse as whole addresses with city and state
// ("7006 Maple Rd Seattle WA 98103", which has no commas for the full-address rule), that column becomes the full
// address, so a file of one address column needs no manual mapping.
func Detect(t *Table) (Mapping, []Detection) {
	dets := make([]Detection, len(t.Headers))
	samples := make([][]string, len(t.Headers))
	for i, h := range t.Headers {
		samples[i] = columnSamples(t, i)
		dets[i] = detectColumn(h, samples[i])
	}
	m := assign(t.Headers, dets)
	if m.Validate(t.Headers) != nil && !m.has(TypeFullAddress) {
		for i, h := range t.Headers {
			if m[h] == TypeAddress && parsesAsFullAddress(samples[i]) {
				m[h] = TypeFullAddress
				dets[i].Type, dets[i].Confidence = TypeFullAddress, confFullAddress
				break
			}
		}
	}
	return m, dets
}

// has reports whether some column is mapped to t.
func (m Mapping) has(t ColumnType) bool {
	for _, v := range m {
		if v == t {
			return true
		}
	}
	return false
}

// assign turns detections into a mapping (see Detect).
func assign(headers []string, dets []Detection) Mapping {
	order := make([]int, len(dets))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return dets[order[a]].Confidence > dets[order[b]].Confidence })
	m := make(Mapping, len(headers))
	taken := map[ColumnType]bool{}
	for _, i := range order {
		d := dets[i]
		if d.Confidence >= minConfidence && d.Type != TypeUnknown && !taken[d.Type] {
			m[headers[i]] = d.Type
			taken[d.Type] = true
		} else {
			m[headers[i]] = TypeIgnore
		}
	}
	return m
}

// columnSamples is the first sampleSize non-empty values of column col.
func columnSamples(t *Table, col int) []string {
	var out []string
	for _, r := range t.Rows {
		if col < len(r) && r[col] != "" {
			out = append(out, r[col])
			if len(out) == sampleSize {
				break
			}
		}
	}
	return out
}

// parsesAsFullAddress reports whether at least half of the samples, and at least one, parse as an address with
// a street, city and state.
func parsesAsFullAddress(samples []string) bool {
	ok := 0
	for _, s := range samples {
		if a, err := address.Parse(oneLine(s)); err == nil && a.Street() != "" && a.City != "" && a.State != "" {
			ok++
		}
	}
	return ok > 0 && 2*ok >= len(samples)
}

// detectColumn applies the spec's heuristics to one column. Names are checked before values, since a name that
// says "State" is surer than values that happen to be two letters; the one exception is a value with three comma
// parts, which makes even an "Address" column the full address.
func detectColumn(name string, samples []string) Detection {
	d := func(t ColumnType, c float64) Detection { return Detection{Column: name, Type: t, Confidence: c} }
	n := parseName(name)
	if t, ok := factColumns[n.joined]; ok {
		return d(t, confFact)
	}
	switch {
	case n.unknown():
		return d(TypeUnknown, confUnknownName)
	case anySample(samples, hasThreeCommaParts):
		return d(TypeFullAddress, confFullAddress)
	case n.isFullAddress():
		return d(TypeFullAddress, confFullAddress)
	case n.isZIP():
		return d(TypeZIP, confZIPName)
	case n.isAddress():
		return d(TypeAddress, confAddress)
	case n.isCity():
		return d(TypeCity, confCity)
	case n.isState():
		return d(TypeState, confState)
	case anySample(samples, streetLike.MatchString):
		return d(TypeAddress, confAddress)
	case n.codeLike() && allSamples(samples, zipLike.MatchString):
		return d(TypeZIP, confZIPSample)
	case allSamples(samples, twoLetters.MatchString):
		return d(TypeState, confState)
	case allSamples(samples, cityLike):
		return d(TypeCity, confCity)
	}
	return d(TypeUnknown, confUnknown)
}

var (
	// streetLike: digits, then letters ("123 Main St", "123A Main St", "123-45 Queens Blvd", "10 1/2 Elm St").
	streetLike = regexp.MustCompile(`^[0-9]+[A-Za-z]?(?:[-/][0-9]+[A-Za-z]?)?(?:\s+[0-9]+/[0-9]+)?\s+\S*\pL`)
	zipLike    = regexp.MustCompile(`^[0-9]{5}(?:-[0-9]{4})?$`)
	twoLetters = regexp.MustCompile(`^[A-Za-z]{2}$`)
)

// cityLike: letters only (with the spaces, periods, hyphens and apostrophes of "St. Louis", "Winston-Salem" and
// "Coeur d'Alene"), 3 to 49 characters.
func cityLike(s string) bool {
	n, letters := 0, 0
	for _, r := range s {
		n++
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == ' ' || r == '.' || r == '-' || r == '\'' || r == '\u2019':
		default:
			return false
		}
	}
	return letters > 0 && n >= 3 && n <= 49
}

func hasThreeCommaParts(s string) bool {
	parts := 0
	for _, p := range strings.Split(oneLine(s), ",") {
		if strings.TrimSpace(p) != "" {
			parts++
		}
	}
	return parts >= 3
}

func anySample(samples []string, f func(string) bool) bool {
	return slices.ContainsFunc(samples, f)
}

// allSamples reports whether there are samples and f holds for each.
func allSamples(samples []string, f func(string) bool) bool {
	if len(samples) == 0 {
		return false
	}
	for _, s := range samples {
		if !f(s) {
			return false
		}
	}
	return true
}

// colName is a column name split into lower-case words: "PropertyID", "property_id" and "Property ID" are all
// [property id]; letters and digits are separate words ("Zip5" is [zip 5]).
type colName struct {
	words  []string
	joined string // the words run together: "zipcode"
}

func parseName(s string) colName {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r):
			if len(cur) > 0 {
				prev := cur[len(cur)-1]
				// A word starts at a digit-letter change, at "aB", and at the last capital of "IDNumber".
				if unicode.IsDigit(prev) || unicode.IsUpper(r) && unicode.IsLower(prev) ||
					unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
					flush()
				}
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			if len(cur) > 0 && !unicode.IsDigit(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return colName{words: words, joined: strings.Join(words, "")}
}

func (n colName) has(words ...string) bool {
	for _, w := range n.words {
		if slices.Contains(words, w) {
			return true
		}
	}
	return false
}

func (n colName) key() string { return strings.Join(n.words, "_") }

// unknownWords are words of a column name that mean the column holds something other than the address (spec:
// "value, price, rent, sqft, bedroom, year, id, note, owner, listing, mls, parcel and similar"). They are matched
// as whole words (a trailing s dropped), so "id" does not match "residence" nor "rent" "current".
var unknownWords = wordSet(`value valuation price rent rental sqft sq ft feet foot footage sqm gla area size living
	bedroom bed bd bdr br bath bathroom ba fullbath halfbath year yr built age id uid uuid guid key
	note comment remark description desc memo owner ownership listing mls parcel apn pin legal deed
	tax assessed assessment assessor sale sold date amount cost total count percent pct lot acre acreage land
	phone telephone tel mobile cell fax email type status style class category condition view garage parking
	pool hoa fee zoning county country neighborhood neighbourhood subdivision community district school market
	metro msa latitude longitude lat lon lng long geo coordinate url link website web photo image picture agent
	broker brokerage office company contact estimate estimated zestimate avm equity mortgage loan lender balance
	income payment rate cap yield arv rehab repair offer bid deposit commission days dom cdom score rank story
	stories floor level basement heating cooling roof unit apt apartment suite ste occupancy vacant vacancy
	tenant lease permit improvement`)

// personWords name a person rather than a place; they mean unknown only in a name without a place word, so that
// "Street Name" and "City Name" are still the street and the city.
var personWords = wordSet(`name first last middle surname given`)

// compoundWords are matched inside names written without separators ("LISTPRICE", "yearbuilt"); they are long
// or odd enough not to occur inside an address word.
var compoundWords = []string{"price", "sqft", "squarefeet", "squarefoot", "bedroom", "bathroom", "yearbuilt",
	"lotsize", "parcel", "listing", "zestimate", "email", "phone", "owner", "value"}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func (n colName) unknown() bool {
	place := n.hasPlaceWord()
	for _, w := range n.words {
		if unknownWords[w] || len(w) > 2 && strings.HasSuffix(w, "s") && unknownWords[w[:len(w)-1]] {
			return true
		}
		if !place && personWords[w] {
			return true
		}
	}
	for _, c := range compoundWords {
		if strings.Contains(n.joined, c) {
			return true
		}
	}
	return false
}

// hasPlaceWord reports a name that mentions a part of the address.
func (n colName) hasPlaceWord() bool {
	return strings.Contains(n.joined, "addr") || n.has("street", "city", "town", "state", "province", "zip",
		"zipcode", "postal", "postcode", "location")
}

func (n colName) isFullAddress() bool {
	return (strings.Contains(n.joined, "addr") || n.has("location")) &&
		n.has("full", "complete", "formatted", "entire", "whole", "single", "one", "oneline")
}

func (n colName) isZIP() bool {
	switch n.key() {
	case "zip", "zipcode", "zip_code", "postal_code", "postalcode", "postcode", "post_code":
		return true
	}
	return n.has("zip", "zipcode", "zip5", "postal", "postcode")
}

func (n colName) isAddress() bool {
	switch n.key() {
	case "address", "street", "street_address":
		return true
	}
	return strings.Contains(n.joined, "addr") || n.has("street")
}

func (n colName) isCity() bool { return n.has("city", "town", "municipality", "locality") }

func (n colName) isState() bool { return n.key() == "st" || n.has("state", "province") }

// codeLike names may hold ZIP codes given 5 or 5+4 digit values: "Code", "Post Code", "ZIP".
func (n colName) codeLike() bool {
	return n.has("code", "post", "zip", "postal", "postcode", "zipcode")
}

// factColumns are the names (as colName.joined: lower case, words run together) of columns that hold a fact of
// the home. Only names that say the unit the API uses are taken: "Lot Size" alone may be in acres, so only
// "Lot Sq Ft" and the like are the lot in square feet; any other column can be mapped by hand.
var factColumns = map[string]ColumnType{}

func init() {
	for t, names := range map[ColumnType]string{
		TypePropertyType: `propertytype proptype hometype housetype buildingtype dwellingtype`,
		TypeSquareFeet: `squarefeet squarefoot squarefootage sqft sqfeet livingarea livingsqft sqftliving
			livingareasqft livingsquarefeet gla finishedsqft heatedsqft buildingsqft`,
		TypeBedrooms:  `bedrooms bedroom beds bed bd bdrm bdrms br`,
		TypeBathrooms: `bathrooms bathroom baths bath ba bathstotal totalbaths totalbathrooms`,
		TypeYearBuilt: `yearbuilt yrbuilt builtyear yearconstructed`,
		TypeLotSize:   `lotsqft sqftlot lotsizesqft lotsquarefeet lotsizesquarefeet lotareasqft`,
	} {
		for _, n := range strings.Fields(names) {
			factColumns[n] = t
		}
	}
}

// typeLabels are the types as the mapping screen names them.
var typeLabels = map[ColumnType]string{TypeFullAddress: "Full Address", TypeAddress: "Street Address",
	TypeStreet: "Street", TypeCity: "City", TypeState: "State", TypeZIP: "ZIP", TypeIgnore: "Ignore",
	TypePropertyType: "Property Type", TypeSquareFeet: "Square Feet", TypeBedrooms: "Bedrooms",
	TypeBathrooms: "Bathrooms", TypeYearBuilt: "Year Built", TypeLotSize: "Lot Size (sq ft)"}

// Validate checks a mapping for the columns headers (spec section 4): every column it names must exist and every
// type must be one of typeLabels (the spec's seven and the facts of a home), no type but ignore may be given to
// two columns, and it is valid when fullAddress is mapped, or street (or address), city, state and zip all are.
// The error is KindInvalid with Field "mapping" and a message that says what is missing.
func (m Mapping) Validate(headers []string) error {
	known := make(map[string]bool, len(headers))
	for _, h := range headers {
		known[h] = true
	}
	var extra []string
	for k := range m {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return mappingError(fmt.Sprintf("The mapping names a column the file does not have: %q", extra[0]))
	}
	seen := map[ColumnType]string{}
	for _, h := range headers {
		t, ok := m[h]
		if !ok || t == TypeIgnore {
			continue
		}
		if _, valid := typeLabels[t]; !valid {
			return mappingError(fmt.Sprintf("Column %q has an unknown type %q; use fullAddress, address, street, "+
				"city, state, zip, propertyType, squareFeet, bedrooms, bathrooms, yearBuilt, lotSize or ignore", h, string(t)))
		}
		if prev, dup := seen[t]; dup {
			return mappingError(fmt.Sprintf("Columns %q and %q are both mapped to %s; map it to one column",
				prev, h, typeLabels[t]))
		}
		seen[t] = h
	}
	if _, ok := seen[TypeFullAddress]; ok {
		return nil
	}
	var missing []string
	_, street := seen[TypeStreet]
	_, addr := seen[TypeAddress]
	if !street && !addr {
		missing = append(missing, "Street Address")
	}
	for _, t := range []ColumnType{TypeCity, TypeState, TypeZIP} {
		if _, ok := seen[t]; !ok {
			missing = append(missing, typeLabels[t])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return mappingError(fmt.Sprintf("Map a column to %s, or one column to Full Address", joinAnd(missing)))
}

func mappingError(msg string) error {
	e := apperr.Invalid("mapping", msg)
	e.Code = "invalid_mapping"
	return e
}

// joinAnd writes a list as a sentence does: "City, State and ZIP".
func joinAnd(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
