package valuation

import (
	"math"
	"strings"

	"valuator/internal/avm"
	"valuator/internal/property"
)

// records are the homes' records as the answers show them, kept compactly (issue 39): as property.Home they took
// 336 bytes a home beside the engine's copy of the same numbers. Their numbers are read from the engine's market
// (the market's properties, converted from the records by engineHome, so the same values); the strings that repeat
// across homes (source, unit type, city, state, ZIP code, county, type, image) are codes into one table, and the
// homes of a street or a ZIP code share all eight, so each home keeps one code of its eight (4 bytes, not 32: a
// few thousand distinct sets in a market of millions); the strings of each home's own are laid end to end in one
// string (text), which the records' strings are slices of: 16 bytes a home for where they are instead of 96 for six
// string headers, and no allocation of each.
type records struct {
	market *avm.Market
	table  []string          // the repeated strings, each once
	sets   [][nShared]uint32 // the distinct sets of repeated strings, as indexes in table
	set    []uint32          // per home, its set's index in sets
	text   string            // every home's own strings, home after home
	start  []uint32          // home p's own strings begin at text[start[p]]
	ends   [][nOwn]uint16    // and each ends that far from start[p]
	long   map[int32]ownText // the homes whose own strings are longer than ends can say (none in practice)
}

// The repeated strings of a record, by their place in records.shared.
const (
	sSource = iota
	sUnitType
	sCity
	sState
	sZIP
	sCounty
	sType
	sImage
	nShared
)

// ownText is what is a home's own among its record's strings.
type ownText struct {
	ExternalID, Street, Unit, StreetKey, UnitKey, NameKey string
}

// The fields of ownText, by their place in records.ends.
const (
	oExternalID = iota
	oStreet
	oUnit
	oStreetKey
	oUnitKey
	oNameKey
	nOwn
)

func (o *ownText) fields() [nOwn]string {
	return [nOwn]string{oExternalID: o.ExternalID, oStreet: o.Street, oUnit: o.Unit, oStreetKey: o.StreetKey,
		oUnitKey: o.UnitKey, oNameKey: o.NameKey}
}

// newRecords keeps homes, whose numbers m holds (toMarket of them, in the same order).
func newRecords(homes []property.Home, m *avm.Market) records {
	var b recordsBuilder
	b.grow(len(homes))
	for i := range homes {
		b.add(&homes[i])
	}
	return b.done(m)
}

// recordsBuilder makes records one home at a time.
type recordsBuilder struct {
	r       records
	code    map[string]uint32
	setCode map[[nShared]uint32]uint32
	text    strings.Builder
}

func (b *recordsBuilder) grow(n int) {
	b.r.set, b.r.start, b.r.ends = make([]uint32, 0, n), make([]uint32, 0, n), make([][nOwn]uint16, 0, n)
}

func (b *recordsBuilder) add(h *property.Home) {
	r := &b.r
	if b.code == nil {
		b.code, b.setCode = map[string]uint32{}, map[[nShared]uint32]uint32{}
	}
	of := func(s string) uint32 {
		c, ok := b.code[s]
		if !ok {
			c = uint32(len(r.table))
			b.code[s] = c
			r.table = append(r.table, s)
		}
		return c
	}
	i := int32(len(r.start))
	set := [nShared]uint32{sSource: of(h.Source), sUnitType: of(h.UnitType), sCity: of(h.City),
		sState: of(h.State), sZIP: of(h.ZIP), sCounty: of(h.County), sType: of(h.Type), sImage: of(h.ImageURL)}
	c, ok := b.setCode[set]
	if !ok {
		c = uint32(len(r.sets))
		b.setCode[set] = c
		r.sets = append(r.sets, set)
	}
	r.set = append(r.set, c)
	o := ownText{ExternalID: h.ExternalID, Street: h.Street, Unit: h.Unit, StreetKey: h.StreetKey,
		UnitKey: h.UnitKey, NameKey: h.NameKey}
	r.start = append(r.start, uint32(b.text.Len()))
	var ends [nOwn]uint16
	n := 0
	for f, v := range o.fields() {
		n += len(v)
		if n > math.MaxUint16 {
			break
		}
		ends[f] = uint16(n)
	}
	r.ends = append(r.ends, ends)
	if n > math.MaxUint16 {
		if r.long == nil {
			r.long = map[int32]ownText{}
		}
		r.long[i] = o
		return
	}
	for _, v := range o.fields() {
		b.text.WriteString(v)
	}
	if uint64(b.text.Len()) > math.MaxUint32 {
		panic("valuation: more than 4 GB of address text") // a market a thousand times the largest measured
	}
}

// done returns the records, whose numbers m holds.
func (b *recordsBuilder) done(m *avm.Market) records {
	r := b.r
	// A copy at its length: the builder's buffer grew by doubling and may be up to half unused.
	r.market, r.text = m, strings.Clone(b.text.String())
	return r
}

func (r *records) len() int { return len(r.start) }

// own is home p's own strings (slices of text, not copies).
func (r *records) own(p int32) ownText {
	if o, ok := r.long[p]; ok {
		return o
	}
	t := r.text[r.start[p]:]
	e := &r.ends[p]
	return ownText{ExternalID: t[:e[oExternalID]], Street: t[e[oExternalID]:e[oStreet]], Unit: t[e[oStreet]:e[oUnit]],
		StreetKey: t[e[oUnit]:e[oStreetKey]], UnitKey: t[e[oStreetKey]:e[oUnitKey]], NameKey: t[e[oUnitKey]:e[oNameKey]]}
}

// shared is home p's repeated strings, as indexes in table by their place (sZIP, ...).
func (r *records) shared(p int32) *[nShared]uint32 { return &r.sets[r.set[p]] }

// str is one of home p's repeated strings (sZIP, ...).
func (r *records) str(p int32, which int) string { return r.table[r.shared(p)[which]] }

// fill writes home p's record into h. Its NbrSqft and NbrLot are the engine's: filled from the neighbours where
// the record had none (nothing in an answer reads them).
func (r *records) fill(p int32, h *property.Home) {
	e := r.market.Property(p)
	o := r.own(p)
	c := r.shared(p)
	*h = property.Home{ID: e.ID, Source: r.table[c[sSource]], ExternalID: o.ExternalID, Street: o.Street,
		UnitType: r.table[c[sUnitType]], Unit: o.Unit, City: r.table[c[sCity]], State: r.table[c[sState]],
		ZIP: r.table[c[sZIP]], StreetKey: o.StreetKey, UnitKey: o.UnitKey, NameKey: o.NameKey, Lat: e.Lat,
		Lon: e.Lon, County: r.table[c[sCounty]], Type: r.table[c[sType]], Beds: e.Beds, Baths: e.Baths,
		Sqft: e.Sqft, LotSqft: e.LotSqft, Floors: e.Floors, YearBuilt: e.YearBuilt, YearRenov: e.YearRenovated,
		Grade: e.Grade, Condition: e.Condition, View: e.View, Water: e.Waterfront, SqftAbove: e.SqftAbove,
		SqftBase: e.SqftBasement, NbrSqft: e.NbrSqft, NbrLot: e.NbrLot, ImageURL: r.table[c[sImage]]}
}

// home is home p's record.
func (r *records) home(p int32) *property.Home {
	var h property.Home
	r.fill(p, &h)
	return &h
}
