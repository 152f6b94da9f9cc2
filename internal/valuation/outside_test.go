package valuation

import (
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/avm"
	"valuator/internal/demo"
	"valuator/internal/testclock"
)

// TestFactsOutsideTheRecordsAreRefused: a home not on record is valued only near what the records of its area and
// type hold. A 100,000 sq ft single-family house in 98103 (the demo market) is a free 422 outside_records naming
// squareFeet and the largest single-family home on record there, not a price of the largest home; so are a tiny
// house, a year before any on record and too many bedrooms. Facts within the records are valued.
func TestFactsOutsideTheRecordsAreRefused(t *testing.T) {
	now := testclock.Now()
	md := marketOf(demo.Generate(1, now).Records(), demo.Source)
	o := avm.DefaultOptions()
	o.Model.Trees, o.Model.LearningRate, o.Folds = 150, 0.15, 3 // a quicker training: the figures do not matter
	s := New(&memStore{md: md}, slog.New(slog.DiscardHandler), func() time.Time { return now }, o)
	if err := s.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	// What the records hold for single-family homes in 98103, read here from the records themselves.
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, h := range md.Homes {
		if h.ZIP == "98103" && h.Type == "Single Family" && h.Sqft > 0 {
			lo, hi, n = math.Min(lo, h.Sqft), math.Max(hi, h.Sqft), n+1
		}
	}
	if n < minRangeHomes {
		t.Fatalf("the demo market has %d single-family homes in 98103; the test needs %d", n, minRangeHomes)
	}
	t.Logf("single-family homes in 98103: %d, %.0f to %.0f sq ft", n, lo, hi)
	f := func(v float64) *float64 { return &v }
	home := func(sqft float64) Input {
		typ := "Single Family"
		return Input{Address: "1 Nowhere Ln", City: "Seattle", State: "WA", ZIP: "98103", PropertyType: &typ, SquareFeet: &sqft}
	}

	// Within the records (and a little past them) a home is valued, or refused only as too uncertain to sell.
	if _, err := s.Lookup(t.Context(), home(1800)); err != nil {
		t.Errorf("1,800 sq ft: %v, want a value", err)
	}
	for _, sqft := range []float64{lo, hi, hi * 1.2} {
		var e *apperr.Error
		if _, err := s.Lookup(t.Context(), home(math.Round(sqft))); err != nil && (!errors.As(err, &e) || e.Code != "valuation_too_uncertain") {
			t.Errorf("%.0f sq ft (records %.0f-%.0f): %v, want a value", sqft, lo, hi, err)
		}
	}
	refused := []struct {
		name  string
		in    Input
		field string
		words string
	}{
		{"100,000 sq ft", home(100000), "squareFeet", "the largest single-family home on record near 98103 has " + thousands(hi) + " sq ft"},
		{"20,000 sq ft", home(20000), "squareFeet", "and 20,000 sq ft were given"},
		{"a shed", home(math.Floor(lo * 0.6)), "squareFeet", "the smallest single-family home on record near 98103 has " + thousands(lo) + " sq ft"},
		{"built in 1750", func() Input { in := home(1800); in.YearBuilt = f(1750); return in }(), "yearBuilt", "the oldest single-family home on record near 98103 was built in"},
		{"40 bedrooms", func() Input { in := home(1800); in.Bedrooms = f(40); return in }(), "bedrooms",
			"the single-family home with the most bedrooms on record near 98103 has"},
		{"a 23-acre lot", func() Input { in := home(1800); in.LotSize = f(1e6); return in }(), "lotSize",
			"the largest lot of a single-family home on record near 98103 has"},
	}
	for _, tt := range refused {
		_, err := s.Lookup(t.Context(), tt.in)
		var e *apperr.Error
		if !errors.As(err, &e) || e.Kind != apperr.KindUnprocessable || e.Code != "outside_records" || e.Field != tt.field {
			t.Errorf("%s: %v, want a 422 outside_records naming %s", tt.name, err, tt.field)
			continue
		}
		if !strings.Contains(e.Message, tt.words) || !strings.HasSuffix(e.Message, "Not charged.") {
			t.Errorf("%s: %q, want it to say %q and that nothing was charged", tt.name, e.Message, tt.words)
		}
		rr, _ := e.Extra["recordRange"].(map[string]any)
		if rr["field"] != tt.field || rr["area"] != "98103" {
			t.Errorf("%s: recordRange %v", tt.name, rr)
		}
		if tt.field == "squareFeet" && (rr["min"] != lo || rr["max"] != hi || rr["homes"] != n) {
			t.Errorf("%s: recordRange %v, want %.0f-%.0f over %d homes", tt.name, rr, lo, hi, n)
		}
	}

	// A home on record is valued from its own record, whatever facts the caller adds.
	h := md.Homes[0]
	in := Input{Address: h.Street, City: h.City, State: h.State, ZIP: h.ZIP, SquareFeet: f(100000)}
	if h.Unit != "" {
		in.Address += " " + h.UnitType + " " + h.Unit
	}
	if _, err := s.Lookup(t.Context(), in); err != nil {
		t.Errorf("a home on record with a wild square feet given: %v, want its record's value", err)
	}
}

func TestRecordRangeAllows(t *testing.T) {
	sqft, year := factRules[0], factRules[4]
	r := recordRange{min: 800, max: 4000, n: 30}
	for _, tt := range []struct {
		rule factRule
		v    float64
		want bool
	}{
		{sqft, 800, true}, {sqft, 640, true}, {sqft, 639, false}, {sqft, 5000, true}, {sqft, 5001, false},
	} {
		if got := r.allows(tt.rule, tt.v); got != tt.want {
			t.Errorf("%s %v in %v: %v, want %v", tt.rule.field, tt.v, r, got, tt.want)
		}
	}
	years := recordRange{min: 1900, max: 2024, n: 30}
	for v, want := range map[float64]bool{1875: true, 1874: false, 2029: true, 2030: false} {
		if got := years.allows(year, v); got != want {
			t.Errorf("year %v in %v: %v, want %v", v, years, got, want)
		}
	}
	if !(recordRange{}).allows(sqft, 1e9) {
		t.Error("a fact the records do not hold refused")
	}
	if !(recordRange{min: 4000, max: 4000, n: 400}).allows(factRules[1], 1e6) {
		t.Error("a fact the records hold one value of (a default filled in) refused")
	}
	if thousands(5240) != "5,240" || thousands(100000) != "100,000" || thousands(999) != "999" {
		t.Errorf("thousands: %s %s %s", thousands(5240), thousands(100000), thousands(999))
	}
}
