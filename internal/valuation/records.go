package valuation

import (
	"valuator/internal/avm"
	"valuator/internal/property"
)

// records are the homes' records as the answers show them, kept compactly (issue 39): as property.Home they took
// 336 bytes a home beside the engine's copy of the same numbers. Their numbers are read from the engine's market
// (market.Properties, converted from the records by engineHome, so the same values); the strings that repeat
// across homes (source, unit type, city, state, ZIP code, county, type, image) are codes into one table; the
// strings of each home's own are kept as read.
type records struct {
	market *avm.Market
	table  []string          // the repeated strings, each once
	shared [][nShared]uint32 // per home, its repeated strings as indexes in table
	own    []ownText         // per home
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

// newRecords keeps homes, whose numbers m holds (toMarket(homes), in the same order).
func newRecords(homes []property.Home, m *avm.Market) records {
	r := records{market: m, shared: make([][nShared]uint32, len(homes)), own: make([]ownText, len(homes))}
	code := map[string]uint32{}
	of := func(s string) uint32 {
		c, ok := code[s]
		if !ok {
			c = uint32(len(r.table))
			code[s] = c
			r.table = append(r.table, s)
		}
		return c
	}
	for i := range homes {
		h := &homes[i]
		r.shared[i] = [nShared]uint32{sSource: of(h.Source), sUnitType: of(h.UnitType), sCity: of(h.City),
			sState: of(h.State), sZIP: of(h.ZIP), sCounty: of(h.County), sType: of(h.Type), sImage: of(h.ImageURL)}
		r.own[i] = ownText{ExternalID: h.ExternalID, Street: h.Street, Unit: h.Unit, StreetKey: h.StreetKey,
			UnitKey: h.UnitKey, NameKey: h.NameKey}
	}
	return r
}

func (r *records) len() int { return len(r.own) }

// str is one of home p's repeated strings (sZIP, ...).
func (r *records) str(p int32, which int) string { return r.table[r.shared[p][which]] }

// fill writes home p's record into h. Its NbrSqft and NbrLot are the engine's: filled from the neighbours where
// the record had none (nothing in an answer reads them).
func (r *records) fill(p int32, h *property.Home) {
	e := &r.market.Properties[p]
	o := &r.own[p]
	c := &r.shared[p]
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
