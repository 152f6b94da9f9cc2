package valuation

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"valuator/internal/apperr"
	"valuator/internal/property"
)

// Facts outside the records (DESIGN.md section 5): a home that is not on record is valued from the facts its caller
// gives, and a fact far beyond what the records of its area and type hold (a 100,000 sq ft house among homes of at
// most 5,000) is refused, free, with the range the records hold, rather than valued as the largest home on record:
// the model's trees stop growing at the edge of their data, so every size past it gets the same price.

// minRangeHomes is the fewest homes a range is read from: fewer, and the next wider area is used.
const minRangeHomes = 20

// factRule is how far past the records one fact may go: a share of the largest and smallest (living area, lot) or
// a number of units (bedrooms, bathrooms, years).
type factRule struct {
	field, noun, unit string
	get               func(h *property.Home) float64
	given             func(in Input) *float64
	overMax, underMin float64 // allowed: max*overMax (or max+overMax when additive) ... min*underMin (or min-underMin)
	additive          bool
}

var factRules = []factRule{
	{field: "squareFeet", noun: "living area", unit: "sq ft", get: func(h *property.Home) float64 { return h.Sqft },
		given: func(in Input) *float64 { return in.SquareFeet }, overMax: 1.25, underMin: 0.8},
	{field: "lotSize", noun: "lot", unit: "sq ft", get: func(h *property.Home) float64 { return h.LotSqft },
		given: func(in Input) *float64 { return in.LotSize }, overMax: 1.5, underMin: 0.5},
	{field: "bedrooms", noun: "bedrooms", get: func(h *property.Home) float64 { return h.Beds },
		given: func(in Input) *float64 { return in.Bedrooms }, overMax: 1, underMin: 1, additive: true},
	{field: "bathrooms", noun: "bathrooms", get: func(h *property.Home) float64 { return h.Baths },
		given: func(in Input) *float64 { return in.Bathrooms }, overMax: 1, underMin: 1, additive: true},
	{field: "yearBuilt", noun: "year built", get: func(h *property.Home) float64 { return h.YearBuilt },
		given: func(in Input) *float64 { return in.YearBuilt }, overMax: 5, underMin: 25, additive: true},
}

// recordRange is the smallest and largest value of one fact among the homes of an area and type.
type recordRange struct {
	min, max float64
	n        int
}

// allows reports whether v lies within what rule lets the range speak for.
func (r recordRange) allows(rule factRule, v float64) bool {
	if r.n == 0 || r.max == r.min {
		// The records do not know this fact, or hold one value for every home (a default an importer filled in,
		// not a measurement): they say nothing of its range.
		return true
	}
	lo, hi := r.min*rule.underMin, r.max*rule.overMax
	if rule.additive {
		lo, hi = r.min-rule.underMin, r.max+rule.overMax
	}
	return v >= math.Floor(lo) && v <= math.Ceil(hi)
}

// recordRanges are the ranges of every fact among the homes of one area and type, and the words for that group.
type recordRanges struct {
	homes string // "single-family homes", "homes"
	where string // "near 98103", "in our records"
	facts map[string]recordRange
}

// rangesOf reads the ranges of homes.
func rangesOf(homes []*property.Home) map[string]recordRange {
	out := map[string]recordRange{}
	for _, rule := range factRules {
		r := recordRange{min: math.Inf(1), max: math.Inf(-1)}
		for _, h := range homes {
			v := rule.get(h)
			if math.IsNaN(v) || v <= 0 {
				continue // unknown in this record
			}
			r.min, r.max, r.n = math.Min(r.min, v), math.Max(r.max, v), r.n+1
		}
		if r.n > 0 {
			out[rule.field] = r
		}
	}
	return out
}

// checkFacts refuses the first fact the caller gave that lies outside what rs can speak for: a free 422
// outside_records naming the field and the range the records hold.
func checkFacts(in Input, rs recordRanges) error {
	for _, rule := range factRules {
		p := rule.given(in)
		if p == nil {
			continue
		}
		r := rs.facts[rule.field]
		if r.allows(rule, *p) {
			continue
		}
		above := *p > r.max
		bound := r.min
		if above {
			bound = r.max
		}
		msg := fmt.Sprintf("Outside our records: %s, and %s %s given (the records hold %s to %s). A value this far "+
			"past them would be a guess. Not charged.", rule.edge(above, strings.TrimSuffix(rs.homes, "s"), rs.where,
			amount(rule, bound)), amount(rule, *p), wereOrWas(rule, *p), amount(rule, r.min), amount(rule, r.max))
		// The field's own message is short: a form shows it under the field, beside the whole sentence.
		short := fmt.Sprintf("Outside our records: %s %s hold %s to %s", rs.homes, rs.where, amount(rule, r.min),
			amount(rule, r.max))
		e := &apperr.Error{Kind: apperr.KindUnprocessable, Code: "outside_records", Message: msg, Field: rule.field,
			Fields: map[string]string{rule.field: short}}
		e.Extra = map[string]any{"recordRange": map[string]any{"field": rule.field, "min": r.min, "max": r.max,
			"homes": r.n, "area": strings.TrimPrefix(strings.TrimPrefix(rs.where, "near "), "in ")}}
		return e
	}
	return nil
}

// edge says where the records end on one side: "the largest single-family home on record near 98103 has 3,960 sq
// ft", "the oldest condo on record in our records was built in 1900".
func (rule factRule) edge(above bool, home, where, bound string) string {
	pick := func(hi, lo string) string {
		if above {
			return hi
		}
		return lo
	}
	switch rule.field {
	case "squareFeet":
		return fmt.Sprintf("the %s %s on record %s has %s", pick("largest", "smallest"), home, where, bound)
	case "lotSize":
		return fmt.Sprintf("the %s lot of a %s on record %s has %s", pick("largest", "smallest"), home, where, bound)
	case "yearBuilt":
		return fmt.Sprintf("the %s %s on record %s was built in %s", pick("newest", "oldest"), home, where, bound)
	}
	return fmt.Sprintf("the %s %s on record %s has %s", home, pick("with the most "+rule.noun, "with the fewest "+rule.noun),
		where, bound)
}

// wereOrWas agrees with the amount given: "100,000 sq ft were given", "1 bedroom was given", "1750 was given".
func wereOrWas(rule factRule, v float64) string {
	if rule.field == "yearBuilt" || v == 1 {
		return "was"
	}
	return "were"
}

// amount writes a fact's amount as a person reads it: "5,240 sq ft", "6 bedrooms", "1900".
func amount(rule factRule, v float64) string {
	switch rule.field {
	case "yearBuilt":
		return fmt.Sprintf("%.0f", v)
	case "bedrooms", "bathrooms":
		noun := rule.noun
		if v == 1 {
			noun = strings.TrimSuffix(noun, "s")
		}
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + noun
	}
	return thousands(math.Round(v)) + " " + rule.unit
}

// thousands writes a whole number with thousands separators.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", math.Abs(v))
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if v < 0 {
		return "-" + b.String()
	}
	return b.String()
}

// typeWords is how a sentence names the homes of a type.
func typeWords(t string) string {
	switch t {
	case "Single Family":
		return "single-family homes"
	case "Condo":
		return "condos"
	case "Townhouse":
		return "townhouses"
	case "Multi-Family":
		return "multi-family homes"
	case "Manufactured":
		return "manufactured homes"
	}
	return "homes"
}

// factRanges holds the ranges of a snapshot's groups, computed on first use.
type factRanges struct {
	mu sync.Mutex
	m  map[string]recordRanges
}

// rangesFor are the ranges of the homes of type t in zip's area: its ZIP code when that has minRangeHomes of them,
// else its 3-digit ZIP area, else the whole market's homes of that type, else every home of the ZIP code.
func (snap *snapshot) rangesFor(zip, t string) recordRanges {
	key := zip + "|" + t
	fr := &snap.facts
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if rs, ok := fr.m[key]; ok {
		return rs
	}
	if fr.m == nil {
		fr.m = map[string]recordRanges{}
	}
	snap.zip("") // groups the homes by ZIP code once
	pick := func(in func(z string) bool, anyType bool) []*property.Home {
		var out []*property.Home
		for code, z := range snap.stats.zips {
			if !in(code) {
				continue
			}
			for _, ref := range z.Homes {
				if anyType || snap.homes.str(ref.Index, sType) == t {
					out = append(out, snap.homes.home(ref.Index))
				}
			}
		}
		return out
	}
	rs := recordRanges{homes: typeWords(t), where: "near " + zip}
	homes := pick(func(z string) bool { return z == zip }, false)
	if len(homes) < minRangeHomes && len(zip) >= 3 {
		rs.where = "near " + zip[:3] + "xx"
		homes = pick(func(z string) bool { return strings.HasPrefix(z, zip[:3]) }, false)
	}
	if len(homes) < minRangeHomes {
		rs.where = "in our records"
		homes = pick(func(string) bool { return true }, false)
	}
	if len(homes) < minRangeHomes {
		rs.homes, rs.where = "homes", "near "+zip
		homes = pick(func(z string) bool { return z == zip }, true)
	}
	rs.facts = rangesOf(homes)
	fr.m[key] = rs
	return rs
}
