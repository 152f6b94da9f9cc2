package avm

import "math"

// homes holds a market's properties column by column, each number as compactly as all of its column's values allow
// exactly (issue 39: 176 bytes a home as []Property). A column starts as bytes and widens, for every home at once,
// to the narrowest of uint8, uint16, float32 and float64 that holds each value it is given without rounding, so
// what is read back is always the float64 that was stored: the engine's arithmetic is unchanged. Latitude and
// longitude are kept as float64; the ZIP code and the type as codes into tables of their distinct values.
type homes struct {
	ids      []int64
	lat, lon []float64
	zip, typ codes
	facts    [nFacts]column
}

// The facts of a Home kept in homes.facts, by index.
const (
	fBeds = iota
	fBaths
	fSqft
	fLotSqft
	fFloors
	fYearBuilt
	fYearRenovated
	fGrade
	fCondition
	fView
	fWaterfront
	fSqftAbove
	fSqftBasement
	fNbrSqft
	fNbrLot
	nFacts
)

// fact is where a Home keeps each of homes.facts.
func (h *Home) fact(f int) *float64 {
	switch f {
	case fBeds:
		return &h.Beds
	case fBaths:
		return &h.Baths
	case fSqft:
		return &h.Sqft
	case fLotSqft:
		return &h.LotSqft
	case fFloors:
		return &h.Floors
	case fYearBuilt:
		return &h.YearBuilt
	case fYearRenovated:
		return &h.YearRenovated
	case fGrade:
		return &h.Grade
	case fCondition:
		return &h.Condition
	case fView:
		return &h.View
	case fWaterfront:
		return &h.Waterfront
	case fSqftAbove:
		return &h.SqftAbove
	case fSqftBasement:
		return &h.SqftBasement
	case fNbrSqft:
		return &h.NbrSqft
	default:
		return &h.NbrLot
	}
}

func (t *homes) len() int { return len(t.ids) }

// latLon is home i's latitude and longitude, for the spatial indexes (geo.NewIndexAt), which read them here rather
// than keep copies.
func (t *homes) latLon(i int32) (lat, lon float64) { return t.lat[i], t.lon[i] }

func (t *homes) add(p Property) {
	t.ids = append(t.ids, p.ID)
	t.lat = append(t.lat, p.Lat)
	t.lon = append(t.lon, p.Lon)
	t.zip.add(p.ZIP)
	t.typ.add(string(p.Type))
	for f := range t.facts {
		t.facts[f].add(*p.fact(f))
	}
}

// home is property i's facts.
func (t *homes) home(i int32) Home {
	h := Home{Lat: t.lat[i], Lon: t.lon[i], ZIP: t.zip.at(i), Type: PropertyType(t.typ.at(i))}
	for f := range t.facts {
		*h.fact(f) = t.facts[f].at(i)
	}
	return h
}

// grow makes room for n more homes.
func (t *homes) grow(n int) {
	t.ids = growTo(t.ids, n)
	t.lat = growTo(t.lat, n)
	t.lon = growTo(t.lon, n)
	t.zip.codes.u8 = growTo(t.zip.codes.u8, n)
	t.typ.codes.u8 = growTo(t.typ.codes.u8, n)
	for f := range t.facts {
		t.facts[f].u8 = growTo(t.facts[f].u8, n)
	}
}

func growTo[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return append(make([]T, 0, len(s)+n), s...)
}

// codes are strings kept as codes into a table of the distinct values, each code in a column as narrow as the
// table allows: a byte for the few property types, two bytes for a state's ZIP codes (not four each).
type codes struct {
	codes  column
	values []string
	code   map[string]uint32
}

func (c *codes) add(s string) {
	k, ok := c.code[s]
	if !ok {
		if c.code == nil {
			c.code = map[string]uint32{}
		}
		k = uint32(len(c.values))
		c.values = append(c.values, s)
		c.code[s] = k
	}
	c.codes.add(float64(k))
}

func (c *codes) at(i int32) string { return c.values[int(c.codes.at(i))] }

// column is one fact of every home, in the narrowest of its four forms that holds every value exactly: only one
// of u8, u16, f32 and f64 is in use. In the integer forms the largest value stands for NaN.
type column struct {
	u8  []uint8
	u16 []uint16
	f32 []float32
	f64 []float64
}

const (
	nan8  = math.MaxUint8
	nan16 = math.MaxUint16
)

// width is the narrowest form that holds v exactly: 0 uint8, 1 uint16, 2 float32, 3 float64.
func width(v float64) int {
	switch {
	case v != v:
		return 0
	case v >= 0 && v < nan8 && v == math.Trunc(v) && !math.Signbit(v):
		return 0
	case v >= 0 && v < nan16 && v == math.Trunc(v) && !math.Signbit(v):
		return 1
	case float64(float32(v)) == v:
		return 2
	default:
		return 3
	}
}

func (c *column) width() int {
	switch {
	case c.f64 != nil:
		return 3
	case c.f32 != nil:
		return 2
	case c.u16 != nil:
		return 1
	default:
		return 0
	}
}

func (c *column) len() int {
	switch c.width() {
	case 3:
		return len(c.f64)
	case 2:
		return len(c.f32)
	case 1:
		return len(c.u16)
	default:
		return len(c.u8)
	}
}

func (c *column) at(i int32) float64 {
	switch {
	case c.f64 != nil:
		return c.f64[i]
	case c.f32 != nil:
		return float64(c.f32[i])
	case c.u16 != nil:
		if v := c.u16[i]; v != nan16 {
			return float64(v)
		}
		return math.NaN()
	default:
		if v := c.u8[i]; v != nan8 {
			return float64(v)
		}
		return math.NaN()
	}
}

// widen moves the column to form w (wider than its own), keeping its values.
func (c *column) widen(w int) {
	n := c.len()
	old := *c
	*c = column{}
	switch w {
	case 1:
		c.u16 = make([]uint16, n, max(n, cap(old.u8)))
	case 2:
		c.f32 = make([]float32, n, max(n, cap(old.u8), cap(old.u16)))
	default:
		c.f64 = make([]float64, n, max(n, cap(old.u8), cap(old.u16), cap(old.f32)))
	}
	for i := range int32(n) {
		c.put(i, old.at(i))
	}
}

// put stores v at i, which the column's form must hold exactly.
func (c *column) put(i int32, v float64) {
	switch {
	case c.f64 != nil:
		c.f64[i] = v
	case c.f32 != nil:
		c.f32[i] = float32(v)
	case c.u16 != nil:
		if v != v {
			c.u16[i] = nan16
		} else {
			c.u16[i] = uint16(v)
		}
	default:
		if v != v {
			c.u8[i] = nan8
		} else {
			c.u8[i] = uint8(v)
		}
	}
}

func (c *column) add(v float64) {
	if w := width(v); w > c.width() {
		c.widen(w)
	}
	switch {
	case c.f64 != nil:
		c.f64 = append(c.f64, 0)
	case c.f32 != nil:
		c.f32 = append(c.f32, 0)
	case c.u16 != nil:
		c.u16 = append(c.u16, 0)
	default:
		c.u8 = append(c.u8, 0)
	}
	c.put(int32(c.len()-1), v)
}

// set replaces the value at i.
func (c *column) set(i int32, v float64) {
	if w := width(v); w > c.width() {
		c.widen(w)
	}
	c.put(i, v)
}
