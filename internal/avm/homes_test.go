package avm

import (
	"fmt"
	"math"
	"testing"
)

// A column gives back every value exactly as it was stored, whatever form its values move it to.
func TestColumnKeepsValuesExactly(t *testing.T) {
	vals := []float64{3, math.NaN(), 0, 254, 2.5, 255, 65534, 65535, math.Copysign(0, -1), 1e-40, 1234567,
		0.1, math.Inf(1), math.Inf(-1), -4, 1e300, 1.0 / 3}
	for start := range vals {
		var c column
		var want []float64
		for _, v := range vals[start:] {
			c.add(v)
			want = append(want, v)
			for i, w := range want {
				got := c.at(int32(i))
				if math.Float64bits(got) != math.Float64bits(w) && !(math.IsNaN(got) && math.IsNaN(w)) {
					t.Fatalf("from %d: value %d is %v, want %v (form %d)", start, i, got, w, c.width())
				}
			}
		}
		c.set(0, 1.0/7)
		if c.at(0) != 1.0/7 || c.width() != 3 {
			t.Fatalf("set: %v, form %d", c.at(0), c.width())
		}
	}
	var c column
	for _, v := range []float64{1, 2, math.NaN(), 200} {
		c.add(v)
	}
	if c.width() != 0 {
		t.Fatalf("small integers in form %d, want bytes", c.width())
	}
}

// A market's homes read back as they were added.
func TestMarketHomesRoundTrip(t *testing.T) {
	var m Market
	props := []Property{
		{ID: 7, Home: Home{Lat: 47.61234567891, Lon: -122.3, ZIP: "98101", Type: Condo, Beds: 2, Baths: 1.75,
			Sqft: 1180, LotSqft: 5650, Floors: 1.5, YearBuilt: 1955, YearRenovated: 0, Grade: 7, Condition: 3,
			View: 0, Waterfront: 0, SqftAbove: 1180, SqftBasement: 0, NbrSqft: 1340.5, NbrLot: 5650.25}},
		{ID: 8, Home: Unknown()},
		{ID: 9, Home: Home{Lat: 1, Lon: 2, ZIP: "98101", Type: SingleFamily, Beds: 33, Baths: 8, Sqft: 13540,
			LotSqft: 1651359, Floors: 3.5, YearBuilt: 2015, YearRenovated: 2014, Grade: 13, Condition: 5, View: 4,
			Waterfront: 1, SqftAbove: 9410, SqftBasement: 4820, NbrSqft: 1.0 / 3, NbrLot: math.NaN()}},
	}
	for _, p := range props {
		m.AddProperty(p)
	}
	for i, p := range props {
		got := m.Property(int32(i))
		for f := range nFacts {
			a, b := *got.fact(f), *p.fact(f)
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("home %d fact %d: %v, want %v", i, f, a, b)
			}
		}
		if got.ID != p.ID || got.ZIP != p.ZIP || got.Type != p.Type || math.Float64bits(got.Lat) != math.Float64bits(p.Lat) ||
			math.Float64bits(got.Lon) != math.Float64bits(p.Lon) {
			t.Fatalf("home %d: %+v, want %+v", i, got, p)
		}
	}
}

// Codes read back as their strings however many distinct strings the table grows to (a byte a code, then two).
func TestCodesWiden(t *testing.T) {
	var c codes
	var want []string
	for i := range 70_000 {
		s := fmt.Sprintf("%05d", i%66_000) // past 255 and 65,535 distinct values, some repeated
		c.add(s)
		want = append(want, s)
		if i == 200 && c.codes.width() != 0 || i == 1000 && c.codes.width() != 1 {
			t.Fatalf("%d codes in form %d", i+1, c.codes.width())
		}
	}
	for i, s := range want {
		if got := c.at(int32(i)); got != s {
			t.Fatalf("code %d is %q, want %q", i, got, s)
		}
	}
	if len(c.values) != 66_000 {
		t.Fatalf("%d distinct values kept, want 66,000", len(c.values))
	}
}
