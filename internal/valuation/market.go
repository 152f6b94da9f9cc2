// Package valuation answers property lookups: it matches an address to the records, values the home with the
// engine (internal/avm) and shapes the answer of the API. It keeps the trained engine and an address index in
// memory, so a lookup reads nothing from the database; the market is reloaded when records change.
package valuation

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"valuator/internal/address"
	"valuator/internal/avm"
	"valuator/internal/property"
	"valuator/internal/store"
)

// snapshot is one loaded market with its engine and indexes; lookups read it without locks and a reload swaps in
// a new one.
type snapshot struct {
	// homes are the records of the market's homes (records); their sales and rents are the engine's market's
	// (market.Sales, whose Property is the index in homes), not kept twice (issue 39).
	homes   records
	market  *avm.Market
	engine  *avm.Engine // nil when the market has too few sales to learn from
	version string
	// part is the partition of the market the snapshot holds (marketSet): a state, or the whole market.
	part Part
	// byBuilding: zip|street key -> the properties there (byAddress picks a unit among them); byName: zip|name
	// key (no suffix) -> properties; byCity: city key|state|street key -> properties, for addresses given without
	// a ZIP code. Records without a street are in none.
	byBuilding, byName, byCity *keyIndex
	// The sales of property p, oldest first, are market.Sales[i] for i in saleIdx[saleStart[p]:saleStart[p+1]]
	// (salesOf): two arrays rather than a map of slices (issue 39).
	saleStart, saleIdx []int32
	// stats are the market statistics' records by ZIP and the engine's values of their homes (markets.go),
	// made on first use.
	stats marketStats
	// warming is set when this snapshot's market statistics are computed in the background (WarmMarkets), and
	// warmed is closed once that has ended (WaitMarkets).
	warming     bool
	warmStarted atomic.Bool
	warmed      chan struct{}
	// facts are the ranges of the records' facts by area and type, which a home not on record must stay near
	// (outside.go), made on first use.
	facts factRanges
}

// marketBuilder makes what a snapshot keeps of the records, from the records as they are read one at a time
// (store.EachMarket: the records as read are never all held, issue 39) or from MarketData: the engine's market
// (property index = position in the records), the compact records, and the fingerprint.
type marketBuilder struct {
	m     *avm.Market
	recs  recordsBuilder
	idx   map[int64]int32
	fp    hash.Hash
	buf   [8]byte
	sales int // sales read, for the log
}

func newMarketBuilder() *marketBuilder {
	return &marketBuilder{m: &avm.Market{}, idx: map[int64]int32{}, fp: sha256.New()}
}

func (b *marketBuilder) counts(homes, sales, rents int) {
	b.m.GrowProperties(homes)
	b.m.Sales, b.m.Rentals = make([]avm.Sale, 0, sales), make([]avm.Rental, 0, rents)
	b.idx = make(map[int64]int32, homes)
	b.recs.grow(homes)
}

func (b *marketBuilder) float(v float64) { b.int(int64(math.Float64bits(v))) }

func (b *marketBuilder) int(v int64) {
	binary.LittleEndian.PutUint64(b.buf[:], uint64(v))
	b.fp.Write(b.buf[:])
}

// The fingerprint identifies the market data an engine learned from: every sale and every property attribute the
// engine reads. A saved engine is reused only for the same fingerprint.
func (b *marketBuilder) home(h *property.Home) {
	b.int(h.ID)
	for _, v := range []float64{h.Lat, h.Lon, h.Beds, h.Baths, h.Sqft, h.LotSqft, h.Floors, h.YearBuilt,
		h.YearRenov, h.Grade, h.Condition, h.View, h.Water, h.SqftAbove, h.SqftBase, h.NbrSqft, h.NbrLot} {
		b.float(v)
	}
	b.fp.Write([]byte(h.Type + "|" + h.ZIP + "|"))
	b.idx[h.ID] = int32(b.m.NumProperties())
	b.m.AddProperty(avm.Property{ID: h.ID, Home: engineHome(h)})
	b.recs.add(h)
}

func (b *marketBuilder) sale(s property.Sale) {
	b.int(s.ID)
	b.int(s.PropertyID)
	b.int(s.Date.Unix())
	b.int(s.Price)
	b.sales++
	if p, ok := b.idx[s.PropertyID]; ok {
		b.m.Sales = append(b.m.Sales, avm.Sale{ID: s.ID, Property: p, Day: avm.DayOf(s.Date), Price: float64(s.Price)})
	}
}

func (b *marketBuilder) rent(r property.Rental) {
	b.int(r.ID)
	b.int(r.PropertyID)
	b.int(r.Date.Unix())
	b.int(r.Rent)
	if p, ok := b.idx[r.PropertyID]; ok {
		b.m.Rentals = append(b.m.Rentals, avm.Rental{Property: p, Day: avm.DayOf(r.Date), Rent: float64(r.Rent)})
	}
}

func (b *marketBuilder) fingerprint() string { return hex.EncodeToString(b.fp.Sum(nil)) }

// records are the compact records of the homes read (their numbers are the market's).
func (b *marketBuilder) records() records { return b.recs.done(b.m) }

// buildMarket feeds md to a marketBuilder.
func buildMarket(md store.MarketData) *marketBuilder {
	b := newMarketBuilder()
	b.counts(len(md.Homes), len(md.Sales), len(md.Rentals))
	for i := range md.Homes {
		b.home(&md.Homes[i])
	}
	for _, s := range md.Sales {
		b.sale(s)
	}
	for _, r := range md.Rentals {
		b.rent(r)
	}
	return b
}

// toMarket converts the records to the engine's market, in the same order (property index = position).
func toMarket(md store.MarketData) *avm.Market { return buildMarket(md).m }

func engineHome(h *property.Home) avm.Home {
	return avm.Home{Lat: h.Lat, Lon: h.Lon, ZIP: h.ZIP, Type: avm.PropertyType(h.Type), Beds: h.Beds, Baths: h.Baths,
		Sqft: h.Sqft, LotSqft: h.LotSqft, Floors: h.Floors, YearBuilt: h.YearBuilt, YearRenovated: h.YearRenov,
		Grade: h.Grade, Condition: h.Condition, View: h.View, Waterfront: h.Water, SqftAbove: h.SqftAbove,
		SqftBasement: h.SqftBase, NbrSqft: h.NbrSqft, NbrLot: h.NbrLot}
}

// Fingerprint is fingerprint for tools that prepare a saved engine (the load benchmark).
func Fingerprint(md store.MarketData) string { return fingerprint(md) }

// fingerprint identifies the market data an engine learned from (marketBuilder).
func fingerprint(md store.MarketData) string { return buildMarket(md).fingerprint() }

func newSnapshot(recs records, engine *avm.Engine, market *avm.Market, version string) *snapshot {
	s := &snapshot{homes: recs, market: market, engine: engine, version: version,
		warmed: make(chan struct{})}
	homes := &s.homes
	s.byBuilding = newKeyIndex(homes.len(), func(p int32) string {
		if o := homes.own(p); o.StreetKey != "" {
			return homes.str(p, sZIP) + "|" + o.StreetKey
		}
		return ""
	})
	s.byName = newKeyIndex(homes.len(), func(p int32) string {
		if o := homes.own(p); o.StreetKey != "" && o.NameKey != "" {
			return homes.str(p, sZIP) + "|" + o.NameKey
		}
		return ""
	})
	// The city keys are folded once per spelling, not once per home.
	cities := map[[2]uint32]string{}
	for p := range int32(homes.len()) {
		c := [2]uint32{homes.shared(p)[sCity], homes.shared(p)[sState]}
		if _, ok := cities[c]; !ok {
			cities[c] = cityKey(homes.table[c[0]], homes.table[c[1]])
		}
	}
	s.byCity = newKeyIndex(homes.len(), func(p int32) string {
		if o := homes.own(p); o.StreetKey != "" {
			return cities[[2]uint32{homes.shared(p)[sCity], homes.shared(p)[sState]}] + "|" + o.StreetKey
		}
		return ""
	})
	// Counted, then placed in the order of the sales (a stable counting sort).
	s.saleStart = make([]int32, homes.len()+1)
	for _, sale := range market.Sales {
		s.saleStart[sale.Property+1]++
	}
	for p := range homes.len() {
		s.saleStart[p+1] += s.saleStart[p]
	}
	s.saleIdx = make([]int32, len(market.Sales))
	next := slices.Clone(s.saleStart[:homes.len()])
	for i, sale := range market.Sales {
		s.saleIdx[next[sale.Property]] = int32(i)
		next[sale.Property]++
	}
	return s
}

// unitOf is the property with unit key uk among a building's (the last such record, should there be two).
func (s *snapshot) unitOf(units []int32, uk string) (int32, bool) {
	for i := len(units) - 1; i >= 0; i-- {
		if s.homes.own(units[i]).UnitKey == uk {
			return units[i], true
		}
	}
	return 0, false
}

// salesOf lists property p's sales, oldest first, as indexes into market.Sales.
func (s *snapshot) salesOf(p int32) []int32 { return s.saleIdx[s.saleStart[p]:s.saleStart[p+1]] }

// cityKey folds a city's spelling (Saint/St, Fort/Ft) as the address package does.
func cityKey(city, state string) string {
	a := address.Address{City: strings.ToUpper(city), State: strings.ToUpper(state)}
	return a.CityKey() + "|" + a.State
}
