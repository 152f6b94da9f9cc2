package valuation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"valuator/internal/apperr"
)

func ptr[T any](v T) *T { return &v }

// TestParseRefusesWhatIsNotAnAddress: input that is not an address is a 400 naming the field to fix, while real
// addresses in every accepted form still parse.
func TestParseRefusesWhatIsNotAnAddress(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    Input
		field string // "" when the input must parse
		msg   string // a part of the message, when it matters
	}{
		{"a formula", Input{Address: "=1+2", City: "Seattle", State: "WA", ZIP: "98103"}, "address", ""},
		{"a formula on one line", Input{Address: "=1+2, Seattle, WA 98103"}, "address", ""},
		{"a piece of a query", Input{Address: "Maple Rd' OR '1'='1", City: "Seattle", State: "WA", ZIP: "98103"}, "address", ""},
		{"a bare street name", Input{Address: "Main St", City: "Seattle", State: "WA", ZIP: "98103"}, "address", "house number"},
		{"no house number on one line", Input{Address: "Maple Rd, Seattle, WA 98103"}, "address", "house number"},
		{"numbers alone", Input{Address: "1 2", City: "Seattle", State: "WA", ZIP: "98103"}, "address", "street name"},
		{"ZIP 00000", Input{Address: "1 Main St", City: "Seattle", State: "WA", ZIP: "00000"}, "zip", "no ZIP code 00000"},
		{"ZIP 00000 on one line", Input{Address: "1 Main St, Seattle, WA 00000"}, "zip", "no ZIP code 00000"},
		{"four digits", Input{Address: "1 Main St", City: "Seattle", State: "WA", ZIP: "1234"}, "zip", ""},
		{"letters", Input{Address: "1 Main St", City: "Seattle", State: "WA", ZIP: "98l03"}, "zip", ""},
		{"a ZIP code that does not exist", Input{Address: "1 Main St", City: "Seattle", State: "WA", ZIP: "99999"}, "zip", "no ZIP code 99999"},
		{"a ZIP code of another state", Input{Address: "1 Main St", City: "Seattle", State: "FL", ZIP: "98103"}, "zip", "ZIP code 98103 is in WA, not FL"},
		{"a ZIP code of another state on one line", Input{Address: "1 Main St, Seattle, FL 98103"}, "zip", "ZIP code 98103 is in WA, not FL"},
		{"an unknown state", Input{Address: "1 Main St", City: "Seattle", State: "XX", ZIP: "98103"}, "state", ""},
		{"an unknown state on one line", Input{Address: "1 Main St, Seattle, ZZ 98103"}, "state", ""},

		{"split fields", Input{Address: "7006 Maple Rd", City: "Seattle", State: "WA", ZIP: "98103"}, "", ""},
		{"state spelled out", Input{Address: "7006 Maple Rd", City: "Seattle", State: "Washington", ZIP: "98103"}, "", ""},
		{"one line", Input{Address: "7006 Maple Rd, Seattle, WA 98103"}, "", ""},
		{"one line with a ZIP code and no state", Input{Address: "7006 Maple Rd 98103"}, "", ""},
		{"one line with city and state and no ZIP code", Input{Address: "7006 Maple Rd, Seattle, WA"}, "", ""},
		{"ZIP+4", Input{Address: "7006 Maple Rd", City: "Seattle", State: "WA", ZIP: "98103-1234"}, "", ""},
		{"a ZIP code of Puerto Rico", Input{Address: "1 Calle Sol", City: "Adjuntas", State: "PR", ZIP: "00601"}, "", ""},
		{"a ZIP code that lost its zero", Input{Address: "12 Elm St, Boston, MA 02134"}, "", ""},
		{"the grid of Salt Lake City", Input{Address: "1234 S 500 E", City: "Salt Lake City", State: "UT", ZIP: "84106"}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.in.parse()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("parse(%+v) = %v, want a valid address", tt.in, err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.KindInvalid {
				t.Fatalf("parse(%+v) = %v, want a 400", tt.in, err)
			}
			if e.Field != tt.field || e.Fields[tt.field] == "" {
				t.Errorf("field %q (%v), want %q: %s", e.Field, e.Fields, tt.field, e.Message)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q, want it to say %q", e.Message, tt.msg)
			}
		})
	}
}

// TestNotOnRecordNeedsTypeAndSize: the refusal of a home that is not on record names the facts to add.
func TestNotOnRecordNeedsTypeAndSize(t *testing.T) {
	for _, tt := range []struct {
		in      Input
		missing []string
	}{
		{Input{}, []string{"propertyType", "squareFeet"}},
		{Input{Bedrooms: ptr(3.0), YearBuilt: ptr(1990.0)}, []string{"propertyType", "squareFeet"}},
		{Input{PropertyType: ptr("")}, []string{"propertyType", "squareFeet"}},
		{Input{PropertyType: ptr("condo")}, []string{"squareFeet"}},
		{Input{SquareFeet: ptr(1200.0)}, []string{"propertyType"}},
		{Input{PropertyType: ptr("Single Family"), SquareFeet: ptr(1200.0)}, nil},
	} {
		got := tt.in.missingFacts()
		if strings.Join(got, ",") != strings.Join(tt.missing, ",") {
			t.Errorf("missingFacts(%+v) = %v, want %v", tt.in, got, tt.missing)
		}
	}

	e, _ := apperr.As(errNotOnRecord(MatchNotOnRecord, []string{"propertyType", "squareFeet"}))
	want := "No property on record at this address. To value it anyway, add its propertyType and squareFeet " +
		"(optionally bedrooms, bathrooms, yearBuilt, lotSize)."
	if e.Kind != apperr.KindNotFound || e.Code != "property_not_found" || e.Message != want ||
		e.Field != "propertyType" || len(e.Fields) != 2 || e.Fields["squareFeet"] == "" {
		t.Errorf("not on record: %+v", e)
	}
	e, _ = apperr.As(errNotOnRecord(MatchUnitFallback, []string{"squareFeet"}))
	if !strings.HasPrefix(e.Message, "The building is on record but not this unit. To value the unit anyway, add its squareFeet (") ||
		e.Field != "squareFeet" || len(e.Fields) != 1 {
		t.Errorf("unit not on record: %+v", e)
	}
}

// TestGivenDetailsAreTheCallersFacts: the details of a home not on record are what the caller said and nothing else.
func TestGivenDetailsAreTheCallersFacts(t *testing.T) {
	d := givenDetails(Input{PropertyType: ptr("condo"), SquareFeet: ptr(1234.4)})
	b, _ := json.Marshal(d)
	want := `{"bedrooms":null,"bathrooms":null,"squareFeet":1234,"livingArea":1234,"yearBuilt":null,` +
		`"propertyType":"Condo","lotSize":null,"lotSizeSqFt":null,"imageUrl":null,"homeStatus":null}`
	if string(b) != want {
		t.Errorf("details\n got %s\nwant %s", b, want)
	}
	d = givenDetails(Input{PropertyType: ptr("Townhouse"), SquareFeet: ptr(1800.0), Bedrooms: ptr(3.0),
		Bathrooms: ptr(2.5), YearBuilt: ptr(1994.0), LotSize: ptr(4356.0)})
	b, _ = json.Marshal(d)
	want = `{"bedrooms":3,"bathrooms":2.5,"squareFeet":1800,"livingArea":1800,"yearBuilt":1994,` +
		`"propertyType":"Townhouse","lotSize":0.1,"lotSizeSqFt":4356,"imageUrl":null,"homeStatus":null}`
	if string(b) != want {
		t.Errorf("details\n got %s\nwant %s", b, want)
	}
}

// TestCacheKeyHoldsTheGivenFacts: two homes at one place share a cached valuation only when every fact given is
// the same; the type counts as valued ("condo" is Condo).
func TestCacheKeyHoldsTheGivenFacts(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m := matched{code: MatchNotOnRecord, property: -1, lat: 47.66, lon: -122.34, zip: "98103"}
	base := Input{PropertyType: ptr("Condo"), SquareFeet: ptr(900.0)}
	key := cacheKey("v1", m, base, at)
	if k := cacheKey("v1", m, Input{PropertyType: ptr("condo"), SquareFeet: ptr(900.0)}, at); k != key {
		t.Errorf("condo and Condo: %q / %q", k, key)
	}
	for _, other := range []Input{
		{PropertyType: ptr("Townhouse"), SquareFeet: ptr(900.0)},
		{PropertyType: ptr("Condo"), SquareFeet: ptr(901.0)},
		{PropertyType: ptr("Condo"), SquareFeet: ptr(900.0), Bedrooms: ptr(2.0)},
		{PropertyType: ptr("Condo"), SquareFeet: ptr(900.0), Bathrooms: ptr(1.0)},
		{PropertyType: ptr("Condo"), SquareFeet: ptr(900.0), YearBuilt: ptr(2001.0)},
		{PropertyType: ptr("Condo"), SquareFeet: ptr(900.0), LotSize: ptr(2000.0)},
	} {
		if cacheKey("v1", m, other, at) == key {
			t.Errorf("%+v shares the key of %+v", other, base)
		}
	}
	building := m
	building.code, building.lat = MatchUnitFallback, 47.67
	if cacheKey("v1", building, base, at) == key {
		t.Error("a unit at its building shares the key of a home at the ZIP centre")
	}
	// A record is valued from itself: the caller's facts are not part of its key.
	rec := matched{code: MatchExact, property: 7}
	if cacheKey("v1", rec, base, at) != cacheKey("v1", rec, Input{}, at) {
		t.Error("a record's key depends on the caller's facts")
	}
}

// TestAreaNotCoveredNamesThePlace: an address outside the markets loaded is a 404 area_not_covered whose message
// names its ZIP code, else its city and state as the ZIP table spells them, else the address as written.
func TestAreaNotCoveredNamesThePlace(t *testing.T) {
	for _, tt := range []struct {
		in   Input
		want string
	}{
		{Input{Address: "100 Biscayne Blvd", City: "Miami", State: "FL", ZIP: "33131"}, "We have no sales near 33131"},
		{Input{Address: "100 Biscayne Blvd, Miami, FL 33131"}, "We have no sales near 33131"},
		{Input{Address: "100 Biscayne Blvd, miami, fl"}, "We have no sales near Miami, FL"},
		{Input{Address: "100 BISCAYNE BLVD, MIAMI FL"}, "We have no sales near Miami, FL"},
	} {
		a, err := tt.in.parse()
		if err != nil {
			t.Fatalf("%+v: %v", tt.in, err)
		}
		e, _ := apperr.As(errAreaNotCovered(placeName(a, tt.in)))
		if e == nil || e.Kind != apperr.KindNotFound || e.Code != "area_not_covered" || e.Message != tt.want {
			t.Errorf("%+v: %+v, want the message %q", tt.in, e, tt.want)
		}
	}
	// A place the ZIP table does not know (the lookup answers property_not_found before asking): the address as
	// written.
	in := Input{Address: "1 Main St, Nowhereville, WA"}
	a, err := in.parse()
	if err != nil {
		t.Fatal(err)
	}
	if got := placeName(a, in); got != "1 Main St, Nowhereville, WA" {
		t.Errorf("placeName of an unknown city = %q", got)
	}
}
