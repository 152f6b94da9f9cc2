package batch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"valuator/internal/address"
	"valuator/internal/apperr"
)

// Row is one property to value: the address as the file gives it once mapped, not yet normalized (the valuation
// normalizes and checks it, and reports a bad one on its row of the results).
type Row struct {
	Line    int    `json:"line"`    // the row's line (CSV) or row number (Excel) in the file
	Address string `json:"address"` // the street line, with its unit
	City    string `json:"city"`
	State   string `json:"state"`
	ZIP     string `json:"zip"`
	// The facts of the home as the file writes them (see Facts), for a home that is not on record.
	PropertyType string `json:"propertyType,omitempty"`
	SquareFeet   string `json:"squareFeet,omitempty"`
	Bedrooms     string `json:"bedrooms,omitempty"`
	Bathrooms    string `json:"bathrooms,omitempty"`
	YearBuilt    string `json:"yearBuilt,omitempty"`
	LotSize      string `json:"lotSize,omitempty"`
}

// Facts are the facts a row gives for a home that is not on record, nil where its cell is empty.
type Facts struct {
	PropertyType                                        *string
	SquareFeet, Bedrooms, Bathrooms, YearBuilt, LotSize *float64
}

// Facts reads the row's facts. A number may be written with thousands separators and a unit of area ("1,850 sq
// ft"); a cell that is still not a number is an error naming the fact, reported on the row like a bad address.
// The ranges are the lookup's to check.
func (r Row) Facts() (Facts, error) {
	var f Facts
	var v apperr.Validation
	num := func(cell, field string, dst **float64) {
		if cell == "" {
			return
		}
		n, ok := parseNumber(cell)
		if !ok {
			v.Add(field, fmt.Sprintf("%s must be a number, not %q", field, cell))
			return
		}
		*dst = &n
	}
	num(r.SquareFeet, "squareFeet", &f.SquareFeet)
	num(r.Bedrooms, "bedrooms", &f.Bedrooms)
	num(r.Bathrooms, "bathrooms", &f.Bathrooms)
	num(r.YearBuilt, "yearBuilt", &f.YearBuilt)
	num(r.LotSize, "lotSize", &f.LotSize)
	if r.PropertyType != "" {
		t := r.PropertyType
		f.PropertyType = &t
	}
	return f, v.Err()
}

// areaUnits are the units a cell of square feet may end in.
var areaUnits = []string{"square feet", "sq. ft.", "sq ft", "sq.ft.", "sqft", "sf", "ft2", "ft²"}

// parseNumber reads "1850", "1,850", "2.5" or "1,850 sq ft".
func parseNumber(s string) (float64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, u := range areaUnits {
		if strings.HasSuffix(s, u) {
			s = strings.TrimSpace(strings.TrimSuffix(s, u))
			break
		}
	}
	s = strings.ReplaceAll(s, ",", "")
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, false
	}
	return n, true
}

// Apply reads the rows of t through mapping m, with the facts of the home where columns are mapped to them. A
// full-address column is split into street, city, state and ZIP
// code (see splitFullAddress); where the mapping also has street, city, state or ZIP columns, their values come
// first and the full address fills in only what they leave empty. A row left without a street (no address and
// no street, spec section 5) is dropped and counted in dropped. Columns mapped to ignore, or to a type already
// given to an earlier column, are not read; Validate reports the latter.
func Apply(t *Table, m Mapping) (rows []Row, dropped int) {
	cols := map[ColumnType]int{}
	for i, h := range t.Headers {
		typ := m[h]
		if _, taken := cols[typ]; taken || typ == TypeIgnore || typ == "" {
			continue
		}
		cols[typ] = i
	}
	get := func(r []string, typ ColumnType) string {
		if i, ok := cols[typ]; ok && i < len(r) {
			return r[i]
		}
		return ""
	}
	rows = make([]Row, 0, len(t.Rows))
	for k, r := range t.Rows {
		row := Row{Line: k + 1, Address: oneSpace(get(r, TypeAddress)), City: oneSpace(get(r, TypeCity)),
			State: oneSpace(get(r, TypeState)), ZIP: oneSpace(get(r, TypeZIP)),
			PropertyType: oneSpace(get(r, TypePropertyType)), SquareFeet: oneSpace(get(r, TypeSquareFeet)),
			Bedrooms: oneSpace(get(r, TypeBedrooms)), Bathrooms: oneSpace(get(r, TypeBathrooms)),
			YearBuilt: oneSpace(get(r, TypeYearBuilt)), LotSize: oneSpace(get(r, TypeLotSize))}
		if k < len(t.Line) {
			row.Line = t.Line[k]
		}
		if row.Address == "" {
			row.Address = oneSpace(get(r, TypeStreet))
		}
		if full := get(r, TypeFullAddress); full != "" &&
			(row.Address == "" || row.City == "" || row.State == "" || row.ZIP == "") {
			street, city, state, zip := splitFullAddress(full)
			fill(&row.Address, street)
			fill(&row.City, city)
			fill(&row.State, state)
			fill(&row.ZIP, zip)
		}
		if row.Address == "" {
			dropped++
			continue
		}
		rows = append(rows, row)
	}
	return rows, dropped
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// splitFullAddress splits an address written in one value into street (with unit), city, state and ZIP code.
// The address parser reads it first, with or without commas ("7006 Maple Rd Seattle WA 98103"); when it finds a
// street, a city and a state, its parts are taken, normalized. Otherwise (a misspelt state, a PO box, a line the
// parser reads some other way) the value is split by the spec's comma rule (address.SplitFullAddress: the state is
// two capital letters, otherwise the second-to-last part; the ZIP code is 5 or 5+4 digits), as written, so that
// the valuation reports on that row what is wrong.
func splitFullAddress(s string) (street, city, state, zip string) {
	s = oneLine(s)
	if a, err := address.Parse(s); err == nil && a.Street() != "" && a.City != "" && a.State != "" {
		zip = a.ZIP
		if a.ZIP4 != "" {
			zip += "-" + a.ZIP4
		}
		return strings.TrimSpace(a.Street() + " " + a.Unit()), a.City, a.State, zip
	}
	return address.SplitFullAddress(s)
}

// oneLine writes an address typed on several lines of a cell (Alt+Enter in Excel) on one line, the lines
// separated by commas as the parts of an address are.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return oneSpace(s)
	}
	var parts []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.Trim(oneSpace(l), ", "); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, ", ")
}

// oneSpace trims s and writes every run of white space in it as one space.
func oneSpace(s string) string {
	if singleSpaced(s) {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, isSpace), " ")
}

// singleSpaced reports whether s is ASCII with single spaces between words and none at its ends, the common
// case that oneSpace returns as it is.
func singleSpaced(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c < ' ' || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}
