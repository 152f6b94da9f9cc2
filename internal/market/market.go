// Package market computes a ZIP code's market statistics (issue 28, api/openapi.yaml Market) from records already
// in memory: the sales and rents on record, the engine's value of each home and its monthly price index. It does
// no I/O; internal/valuation feeds it the loaded market and caches its answers per snapshot.
package market

import (
	"encoding/json"
	"math"
	"sort"
	"time"

	"valuator/internal/day"
	"valuator/internal/property"
)

// MinRecords is the fewest records a figure is computed from: a block, a group or a month with fewer is omitted
// with a reason, because the median of two sales says nothing about a market.
const MinRecords = 5

// WindowMonths is the span of the sales and rents blocks, ending at the newest record.
const WindowMonths = 12

// Bounds and default of historyMonths (the length of the price index and of the monthly history).
const (
	DefaultHistoryMonths = 24
	MaxHistoryMonths     = 120
)

// Types are the engine's property types, in the order groups are shown (avm.PropertyType values).
var Types = typesArray[:]

// Record is one sale or rent of a home. What the groups and the per-square-foot figure need of the home is read
// from its HomeRef in the ZIP (16 bytes a record, not 64 with a time.Time and the home's facts: issue 39).
type Record struct {
	Amount int64   // sale price or monthly rent, dollars
	day    day.Day // the date (the records' dates are days: the store's)
	home   int32   // the home, in ZIP.Homes
}

// Date is the record's day, at midnight UTC.
func (r Record) Date() time.Time { return r.day.Time() }

// HomeRef is a home on record in a ZIP: its position in the market's homes, its type for the filter, and what
// the groups and the per-square-foot figure need of it. 16 bytes a home, not 32 with its type as a string (issue
// 39): a type is only ever compared with Types.
type HomeRef struct {
	Index int32
	beds  uint8 // bedsGroup's group, as bedsCode
	typ   uint8 // typeCode of its type
	Sqft  float64
}

// The type of a HomeRef: its index in Types when it is one of them; typeNone when it has none (grouped with
// "Other" in the blocks' groups, but not what a filter on "Other" asks for, as the strings were); typeElse for
// any other text (in no group, matched by no filter, since a filter is always one of Types).
const (
	typeNone = uint8(len(typesArray))
	typeElse = typeNone + 1
)

var typesArray = [...]string{"Single Family", "Condo", "Townhouse", "Multi-Family", "Manufactured", "Other"}

// typeOther is the group a home with no type is counted in.
var typeOther = typeCode("Other")

func typeCode(t string) uint8 {
	if t == "" {
		return typeNone
	}
	for i, k := range Types {
		if k == t {
			return uint8(i)
		}
	}
	return typeElse
}

// ZIP is every record of one ZIP code, grouped once per loaded market.
type ZIP struct {
	ZIP, City, State string
	Sales, Rents     []Record
	Homes            []HomeRef
	// IsDemo is true when the ZIP's homes come from the generated demo market (property.SourceDemo), so the
	// Markets screen labels its figures as demo data, as the lookup does.
	IsDemo bool
}

// ByZIP groups a market's records by the ZIP code of their home. Records of homes not on record are skipped.
func ByZIP(homes []property.Home, sales []property.Sale, rents []property.Rental) map[string]*ZIP {
	return ByZIPOf(len(homes), func(i int32, h *property.Home) { *h = homes[i] }, sales, rents)
}

// ByZIPOf is ByZIP over n homes that home writes into h one at a time (i from 0 to n-1), for a caller that keeps
// its records in another form (valuation's compact records, issue 39).
func ByZIPOf(n int, home func(i int32, h *property.Home), sales []property.Sale, rents []property.Rental) map[string]*ZIP {
	out := map[string]*ZIP{}
	at := make(map[int64]int32, n)
	// Each home's ZIP code, type, bedrooms and living area, for its sales and rents.
	type facts struct {
		zip        *ZIP
		at         int32 // in zip.Homes
		typ        string
		beds, sqft float64
	}
	fs := make([]facts, n)
	var h property.Home
	for i := range int32(n) {
		home(i, &h)
		at[h.ID] = i
		if h.ZIP == "" {
			continue
		}
		z := out[h.ZIP]
		if z == nil {
			z = &ZIP{ZIP: h.ZIP, City: h.City, State: h.State}
			out[h.ZIP] = z
		}
		fs[i] = facts{zip: z, typ: h.Type, beds: h.Beds, sqft: h.Sqft}
		z.IsDemo = z.IsDemo || h.Source == property.SourceDemo
	}
	// Each list is counted first and allocated at its size: grown by appending, a million homes' lists would keep
	// a quarter or more of their room unused (issue 39).
	type count struct{ homes, sales, rents int }
	counts := map[*ZIP]*count{}
	for _, z := range out {
		counts[z] = &count{}
	}
	for i := range fs {
		if z := fs[i].zip; z != nil {
			counts[z].homes++
		}
	}
	of := func(pid int64, amount int64) *facts {
		i, ok := at[pid]
		if !ok || amount <= 0 || fs[i].zip == nil {
			return nil
		}
		return &fs[i]
	}
	for _, s := range sales {
		if f := of(s.PropertyID, s.Price); f != nil {
			counts[f.zip].sales++
		}
	}
	for _, s := range rents {
		if f := of(s.PropertyID, s.Rent); f != nil {
			counts[f.zip].rents++
		}
	}
	for z, c := range counts {
		z.Homes, z.Sales, z.Rents = make([]HomeRef, 0, c.homes), make([]Record, 0, c.sales), make([]Record, 0, c.rents)
	}
	for i := range fs {
		if f := &fs[i]; f.zip != nil {
			f.at = int32(len(f.zip.Homes))
			f.zip.Homes = append(f.zip.Homes, HomeRef{Index: int32(i), beds: bedsCode(f.beds), typ: typeCode(f.typ), Sqft: f.sqft})
		}
	}
	for _, s := range sales {
		if f := of(s.PropertyID, s.Price); f != nil {
			f.zip.Sales = append(f.zip.Sales, Record{Amount: s.Price, day: day.Of(s.Date), home: f.at})
		}
	}
	for _, s := range rents {
		if f := of(s.PropertyID, s.Rent); f != nil {
			f.zip.Rents = append(f.zip.Rents, Record{Amount: s.Rent, day: day.Of(s.Date), home: f.at})
		}
	}
	return out
}

// Index is the engine's monthly price index in log units (avm.Index.Month): ok is false for a month before the
// index's data, which has no level of its own.
type Index interface {
	Month(month time.Time) (level float64, ok bool)
}

// Options select what is computed.
type Options struct {
	PropertyType  string // "" for every type
	HistoryMonths int    // 1..MaxHistoryMonths
}

// Market is a ZIP code's statistics (api/openapi.yaml Market).
type Market struct {
	ZIP          string       `json:"zip"`
	City         string       `json:"city"`
	State        string       `json:"state"`
	AsOf         string       `json:"asOf"`
	IsDemo       bool         `json:"isDemo"`
	PropertyType *string      `json:"propertyType"`
	Sales        Block        `json:"sales"`
	Rents        Block        `json:"rents"`
	Values       Values       `json:"values"`
	PriceIndex   []IndexMonth `json:"priceIndex"`
	// IndexArea names the price index PriceIndex is: the ZIP code's own, its area's, its metro's or the whole
	// market's (the most specific its records support); nil without an index.
	IndexArea *IndexArea `json:"priceIndexArea"`
	History   []Month    `json:"history"`
	// HistoryWindow is the number of months each monthly median of History is taken over: 1 (the month's own
	// records) or RollingMonths (the month and the two before) for a thin ZIP.
	HistoryWindow HistoryWindow `json:"historyWindow"`
}

// HistoryWindow is the span, in months, of the monthly medians of sales and of rents.
type HistoryWindow struct {
	Sales int `json:"sales"`
	Rents int `json:"rents"`
}

// RollingMonths is the window of a thin ZIP's monthly medians: the month and the two before.
const RollingMonths = 3

// IndexArea names a price index by its level ("zip", "area", "metro", "market") and the area it covers (nil for the
// whole market).
type IndexArea struct {
	Level string  `json:"level"`
	Area  *string `json:"area"`
}

// Block is the figures of the sales or rents of the window. When the whole block is too thin, only Count and
// Thin are set and it is written as {"count", "omitted": reason}.
type Block struct {
	Count   int
	Thin    string
	Figures                // the whole block's figures
	ByType  []Group        // groups with at least MinRecords
	ByBeds  []Group        // "1".."4", "5+"
	Omit    []OmittedGroup // the groups left out
	rent    bool           // names the per-square-foot figure medianRentPerSqft
}

// Figures are the statistics of a set of records, in whole dollars, but for PerSqft: the median amount per square
// foot, unrounded (a sale's is written in whole dollars, a rent's, a couple of dollars a month, in cents). PerSqft is
// nil when fewer than MinRecords of them have a floor area.
type Figures struct {
	Median, Mean, Min, Max int64
	PerSqft                *float64
}

// Group is the figures of one property type or bedroom count.
type Group struct {
	PropertyType string
	Bedrooms     string
	Count        int
	Figures
	rent bool
}

// OmittedGroup is a group left out of a block, and why.
type OmittedGroup struct {
	Group  string `json:"group"`
	Reason string `json:"reason"`
}

func (f Figures) fields(m map[string]any, rent bool) {
	m["median"], m["mean"], m["min"], m["max"] = f.Median, f.Mean, f.Min, f.Max
	if rent {
		var v *float64
		if f.PerSqft != nil {
			c := cents(*f.PerSqft)
			v = &c
		}
		m["medianRentPerSqft"] = v
		return
	}
	var v *int64
	if f.PerSqft != nil {
		d := dollars(*f.PerSqft)
		v = &d
	}
	m["medianPricePerSqft"] = v
}

// cents rounds dollars to cents.
func cents(v float64) float64 { return math.Round(v*100) / 100 }

// MarshalJSON writes the block as the contract has it: the figures, or the count and the reason it is omitted.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.Thin != "" {
		return json.Marshal(map[string]any{"count": b.Count, "omitted": b.Thin})
	}
	m := map[string]any{"count": b.Count, "byPropertyType": nonNil(b.ByType), "byBedrooms": nonNil(b.ByBeds),
		"omitted": b.Omit}
	if b.Omit == nil {
		m["omitted"] = []OmittedGroup{}
	}
	b.Figures.fields(m, b.rent)
	return json.Marshal(m)
}

// MarshalJSON writes a group with the name of its kind (propertyType or bedrooms).
func (g Group) MarshalJSON() ([]byte, error) {
	m := map[string]any{"count": g.Count}
	if g.PropertyType != "" {
		m["propertyType"] = g.PropertyType
	} else {
		m["bedrooms"] = g.Bedrooms
	}
	g.Figures.fields(m, g.rent)
	return json.Marshal(m)
}

func nonNil(g []Group) []Group {
	if g == nil {
		return []Group{}
	}
	return g
}

// Values is the distribution of the engine's values of the homes on record; Thin, when set, omits it.
type Values struct {
	Count                      int
	Median, P25, P75, Min, Max int64
	Thin                       string
}

// MarshalJSON writes the distribution, or the reason it is omitted.
func (v Values) MarshalJSON() ([]byte, error) {
	if v.Thin != "" {
		return json.Marshal(map[string]any{"count": v.Count, "omitted": v.Thin})
	}
	return json.Marshal(map[string]any{"count": v.Count, "median": v.Median, "p25": v.P25, "p75": v.P75,
		"min": v.Min, "max": v.Max})
}

// IndexMonth is one month of the price index: its level relative to the first month shown, and its changes.
type IndexMonth struct {
	Month     string   `json:"month"`
	Index     float64  `json:"index"`
	Change1m  *float64 `json:"change1m"`
	Change12m *float64 `json:"change12m"`
}

// Month is one month of history: the month's own counts, and the medians over the window of Market.HistoryWindow
// ending with the month; a median is nil when its window has fewer than MinRecords records.
type Month struct {
	Month           string `json:"month"`
	SalesCount      int    `json:"salesCount"`
	MedianSalePrice *int64 `json:"medianSalePrice"`
	RentsCount      int    `json:"rentsCount"`
	MedianRent      *int64 `json:"medianRent"`
}

// Compute is the market of z as opt selects. values are the engine's values of z.Homes (same order; NaN or 0 for
// a home it could not value); ix is the engine's index (nil when there is no engine).
func Compute(z *ZIP, opt Options, values []float64, ix Index) Market {
	sales, rents := filter(z.Homes, z.Sales, opt.PropertyType), filter(z.Homes, z.Rents, opt.PropertyType)
	asOf := newest(sales, rents)
	if asOf.IsZero() {
		// No record of the type asked: the blocks are empty, dated by the ZIP's newest record.
		asOf = newest(z.Sales, z.Rents)
	}
	m := Market{ZIP: z.ZIP, City: z.City, State: z.State, AsOf: asOf.Format("2006-01-02"), IsDemo: z.IsDemo}
	if opt.PropertyType != "" {
		t := opt.PropertyType
		m.PropertyType = &t
	}
	from := asOf.AddDate(0, -WindowMonths, 0)
	m.Sales = block(z.Homes, window(sales, from, asOf), "sales", false)
	m.Rents = block(z.Homes, window(rents, from, asOf), "rents", true)
	m.Values = distribution(z.Homes, values, opt.PropertyType)
	months := opt.HistoryMonths
	if months <= 0 {
		months = DefaultHistoryMonths
	}
	first := monthStart(asOf).AddDate(0, 1-months, 0)
	m.History, m.HistoryWindow = history(sales, rents, first, months)
	m.PriceIndex = priceIndex(ix, first, months)
	return m
}

func filter(homes []HomeRef, rs []Record, typ string) []Record {
	if typ == "" {
		return rs
	}
	code := typeCode(typ)
	var out []Record
	for _, r := range rs {
		if homes[r.home].typ == code {
			out = append(out, r)
		}
	}
	return out
}

func newest(lists ...[]Record) time.Time {
	var t time.Time
	for _, l := range lists {
		for _, r := range l {
			if d := r.Date(); d.After(t) {
				t = d
			}
		}
	}
	return t
}

// window keeps the records after from up to and including to (the 12 months up to asOf).
func window(rs []Record, from, to time.Time) []Record {
	var out []Record
	for _, r := range rs {
		if d := r.Date(); d.After(from) && !d.After(to) {
			out = append(out, r)
		}
	}
	return out
}

func thinReason(what string) string {
	return "Fewer than 5 " + what + " in the last 12 months."
}

func block(homes []HomeRef, rs []Record, what string, rent bool) Block {
	b := Block{Count: len(rs), rent: rent}
	if len(rs) < MinRecords {
		b.Thin = thinReason(what)
		return b
	}
	b.Figures = figures(homes, rs)
	var byType [len(typesArray)][]Record
	byBeds := map[string][]Record{}
	for _, r := range rs {
		h := &homes[r.home]
		switch t := h.typ; {
		case t == typeNone: // no type: counted as "Other"
			byType[typeOther] = append(byType[typeOther], r)
		case t < typeNone:
			byType[t] = append(byType[t], r)
		}
		if k := bedsGroups[h.beds]; k != "" {
			byBeds[k] = append(byBeds[k], r)
		}
	}
	add := func(name string, list []Record, g Group, to *[]Group) {
		if len(list) == 0 {
			return
		}
		if len(list) < MinRecords {
			b.Omit = append(b.Omit, OmittedGroup{Group: name, Reason: thinReason(what)})
			return
		}
		g.Count, g.Figures, g.rent = len(list), figures(homes, list), rent
		*to = append(*to, g)
	}
	for i, t := range Types {
		add(t, byType[i], Group{PropertyType: t}, &b.ByType)
	}
	for _, k := range []string{"1", "2", "3", "4", "5+"} {
		add(k+" bedrooms", byBeds[k], Group{Bedrooms: k}, &b.ByBeds)
	}
	return b
}

// bedsCode is the bedroom group of a home, as its index in bedsGroups; 0 ("") when its bedrooms are unknown or
// none (studios are not a group of the contract).
func bedsCode(beds float64) uint8 {
	n := int(math.Round(beds))
	switch {
	case !(beds >= 0.5):
		return 0
	case n >= 5:
		return 5
	case n < 1: // too large for an int: no group, as before
		return 0
	default:
		return uint8(n)
	}
}

// bedsGroups are the bedroom groups by bedsCode.
var bedsGroups = [...]string{"", "1", "2", "3", "4", "5+"}

func figures(homes []HomeRef, rs []Record) Figures {
	amounts := make([]float64, len(rs))
	var per []float64
	sum := 0.0
	for i, r := range rs {
		amounts[i] = float64(r.Amount)
		sum += amounts[i]
		if sqft := homes[r.home].Sqft; sqft > 0 {
			per = append(per, float64(r.Amount)/sqft)
		}
	}
	sort.Float64s(amounts)
	f := Figures{Median: dollars(median(amounts)), Mean: dollars(sum / float64(len(rs))),
		Min: dollars(amounts[0]), Max: dollars(amounts[len(amounts)-1])}
	if len(per) >= MinRecords {
		sort.Float64s(per)
		v := median(per)
		f.PerSqft = &v
	}
	return f
}

func distribution(homes []HomeRef, values []float64, typ string) Values {
	var vs []float64
	code := typeCode(typ)
	for i, h := range homes {
		if typ != "" && h.typ != code {
			continue
		}
		if i < len(values) && values[i] > 0 && !math.IsInf(values[i], 0) {
			vs = append(vs, values[i])
		}
	}
	v := Values{Count: len(vs)}
	if len(vs) < MinRecords {
		v.Thin = "Fewer than 5 homes on record."
		return v
	}
	sort.Float64s(vs)
	v.Median, v.P25, v.P75 = dollars(quantile(vs, 0.5)), dollars(quantile(vs, 0.25)), dollars(quantile(vs, 0.75))
	v.Min, v.Max = dollars(vs[0]), dollars(vs[len(vs)-1])
	return v
}

// history is the months from first: each month's own counts, and the median sale price and rent. A series (sales,
// rents) where fewer than half the months shown have MinRecords records of their own is thin: each of its medians is
// then taken over the month and the two before (RollingMonths), the window sites such as Zillow and Redfin use for
// small places, so that most months have a figure; the window is said in the answer.
func history(sales, rents []Record, first time.Time, months int) ([]Month, HistoryWindow) {
	out := make([]Month, months)
	// by[i] holds the records of month i-(RollingMonths-1): the first months' windows reach before first.
	start := first.AddDate(0, 1-RollingMonths, 0)
	n := months + RollingMonths - 1
	bucket := func(rs []Record) [][]float64 {
		by := make([][]float64, n)
		for _, r := range rs {
			if i := monthsBetween(start, r.Date()); i >= 0 && i < n {
				by[i] = append(by[i], float64(r.Amount))
			}
		}
		return by
	}
	salesBy, rentsBy := bucket(sales), bucket(rents)
	win := HistoryWindow{Sales: historyWindow(salesBy[RollingMonths-1:]), Rents: historyWindow(rentsBy[RollingMonths-1:])}
	for i := range out {
		at := i + RollingMonths - 1
		out[i] = Month{Month: first.AddDate(0, i, 0).Format("2006-01"),
			SalesCount: len(salesBy[at]), MedianSalePrice: windowMedian(salesBy, at, win.Sales),
			RentsCount: len(rentsBy[at]), MedianRent: windowMedian(rentsBy, at, win.Rents)}
	}
	return out, win
}

// historyWindow is 1 when at least half the months shown have MinRecords records, else RollingMonths.
func historyWindow(shown [][]float64) int {
	full := 0
	for _, v := range shown {
		if len(v) >= MinRecords {
			full++
		}
	}
	if 2*full >= len(shown) {
		return 1
	}
	return RollingMonths
}

// windowMedian is the median of the span months ending with by[at]; nil with fewer than MinRecords records.
func windowMedian(by [][]float64, at, span int) *int64 {
	var v []float64
	for k := at - span + 1; k <= at; k++ {
		v = append(v, by[k]...)
	}
	if len(v) < MinRecords {
		return nil
	}
	sort.Float64s(v)
	d := dollars(median(v))
	return &d
}

// priceIndex is the index's months from first, relative to the first: exp(level - level(first)), with the changes
// over one and twelve months where the index has the earlier month.
func priceIndex(ix Index, first time.Time, months int) []IndexMonth {
	out := make([]IndexMonth, 0, months)
	if ix == nil {
		return out
	}
	base, _ := ix.Month(first)
	change := func(level float64, m time.Time, back int) *float64 {
		prev, ok := ix.Month(m.AddDate(0, -back, 0))
		if !ok {
			return nil
		}
		c := round4(math.Exp(level-prev) - 1)
		return &c
	}
	for i := 0; i < months; i++ {
		m := first.AddDate(0, i, 0)
		level, _ := ix.Month(m)
		out = append(out, IndexMonth{Month: m.Format("2006-01"), Index: round4(math.Exp(level - base)),
			Change1m: change(level, m, 1), Change12m: change(level, m, 12)})
	}
	return out
}

func round4(v float64) float64 { return math.Round(v*10000) / 10000 }

func dollars(v float64) int64 { return int64(math.Round(v)) }

func monthStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func monthsBetween(first, t time.Time) int {
	return (t.Year()-first.Year())*12 + int(t.Month()) - int(first.Month())
}

// median of sorted values; the mean of the middle two for an even count.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// quantile of sorted values, interpolated linearly between the nearest ranks (the usual definition, R's type 7).
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i]*(1-f) + sorted[i+1]*f
}
