package property

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"valuator/internal/address"
	"valuator/internal/apperr"
	"valuator/internal/geo"
)

// Formats of import files.
const (
	FormatKingCounty = "kingcounty"
	FormatSacramento = "sacramento"
	FormatCSV        = "csv"
)

// Fields a generic CSV can map columns to (`--map field=Column,...`).
var Fields = []string{"id", "address", "street", "unit", "city", "state", "zip", "lat", "lon", "type", "beds",
	"baths", "sqft", "lot_sqft", "year_built", "sale_date", "price", "rent"}

// headerGuesses maps lower-cased, underscore-joined column names to fields, for CSVs without an explicit mapping.
var headerGuesses = map[string]string{
	"id": "id", "parcel": "id", "parcel_id": "id", "apn": "id",
	"address": "address", "full_address": "address", "property_address": "address",
	"street": "street", "street_address": "street", "address1": "street", "address_line_1": "street",
	"unit": "unit", "apt": "unit", "address2": "unit", "address_line_2": "unit",
	"city": "city", "town": "city", "state": "state", "st": "state", "state_code": "state",
	"zip": "zip", "zipcode": "zip", "zip_code": "zip", "postal_code": "zip", "postcode": "zip",
	"lat": "lat", "latitude": "lat", "lon": "lon", "lng": "lon", "long": "lon", "longitude": "lon",
	"type": "type", "property_type": "type", "home_type": "type",
	"beds": "beds", "bedrooms": "beds", "baths": "baths", "bathrooms": "baths",
	"sqft": "sqft", "sq_ft": "sqft", "square_feet": "sqft", "living_area": "sqft", "sqft_living": "sqft",
	"lot": "lot_sqft", "lot_sqft": "lot_sqft", "lot_size": "lot_sqft", "sqft_lot": "lot_sqft",
	"year_built": "year_built", "yr_built": "year_built", "built": "year_built",
	"sale_date": "sale_date", "date": "sale_date", "sold_date": "sale_date", "close_date": "sale_date",
	"price": "price", "sale_price": "price", "sold_price": "price", "close_price": "price",
	"rent": "rent", "monthly_rent": "rent",
}

// Options describe one import.
type Options struct {
	Format string
	// Mapping is field -> column header, for FormatCSV; missing fields are guessed from the headers.
	Mapping map[string]string
}

// RowError is a row that could not be imported, with its line number (the header is line 1).
type RowError struct {
	Line int
	Err  string
}

func (e RowError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Err) }

// Read parses an import file, calling emit for every good row and bad for every rejected one. It stops with an
// error only when the file itself is unusable (not CSV, missing required columns) or emit fails.
func Read(r io.Reader, opt Options, emit func(Record) error, bad func(RowError)) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the file is empty")
		}
		return fmt.Errorf("reading the header: %w", err)
	}
	header = append([]string(nil), header...)
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	var parse func(row []string) (Record, error)
	switch opt.Format {
	case FormatKingCounty:
		col, err := columns(header, map[string]string{"id": "id", "date": "date", "price": "price",
			"bedrooms": "bedrooms", "bathrooms": "bathrooms", "sqft_living": "sqft_living", "sqft_lot": "sqft_lot",
			"floors": "floors", "waterfront": "waterfront", "view": "view", "condition": "condition",
			"grade": "grade", "sqft_above": "sqft_above", "sqft_basement": "sqft_basement", "yr_built": "yr_built",
			"yr_renovated": "yr_renovated", "zipcode": "zipcode", "lat": "lat", "long": "long",
			"sqft_living15": "sqft_living15", "sqft_lot15": "sqft_lot15"})
		if err != nil {
			return err
		}
		parse = func(row []string) (Record, error) { return parseKingCounty(col, row) }
	case FormatSacramento:
		col, err := columns(header, map[string]string{"street": "street", "city": "city", "zip": "zip",
			"state": "state", "bedrooms": "bedrooms", "bathrooms": "bathrooms", "sq_ft": "sq_ft", "type": "type",
			"sale_date": "sale_date", "price": "price", "latitude": "latitude", "longitude": "longitude"})
		if err != nil {
			return err
		}
		parse = func(row []string) (Record, error) { return parseSacramento(col, row) }
	case FormatCSV:
		col, err := genericColumns(header, opt.Mapping)
		if err != nil {
			return err
		}
		parse = func(row []string) (Record, error) { return parseGeneric(col, row) }
	default:
		return fmt.Errorf("unknown format %q (want %s, %s or %s)", opt.Format, FormatKingCounty, FormatSacramento, FormatCSV)
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				bad(RowError{Line: pe.StartLine, Err: pe.Err.Error()})
				continue
			}
			return err
		}
		// The reader skips blank lines, so count lines by where the record starts.
		line, _ := cr.FieldPos(0)
		if blank(row) {
			continue
		}
		rec, err := parse(row)
		if err != nil {
			bad(RowError{Line: line, Err: err.Error()})
			continue
		}
		rec.Line = line
		if err := emit(rec); err != nil {
			return err
		}
	}
}

func blank(row []string) bool {
	for _, v := range row {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

// columns finds each wanted header (case-insensitive) and says which are missing.
func columns(header []string, want map[string]string) (map[string]int, error) {
	idx := map[string]int{}
	for i, h := range header {
		idx[strings.ToLower(strings.TrimSpace(h))] = i
	}
	col := map[string]int{}
	var missing []string
	for key, name := range want {
		i, ok := idx[strings.ToLower(name)]
		if !ok {
			missing = append(missing, name)
			continue
		}
		col[key] = i
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("the file lacks the column(s) %s", strings.Join(missing, ", "))
	}
	return col, nil
}

func genericColumns(header []string, mapping map[string]string) (map[string]int, error) {
	col := map[string]int{}
	for field, name := range mapping {
		if !validField(field) {
			return nil, fmt.Errorf("unknown field %q in the mapping (fields: %s)", field, strings.Join(Fields, ", "))
		}
		found := false
		for i, h := range header {
			if strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(name)) {
				col[field], found = i, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("the mapping names column %q for %s, but the file has no such column", name, field)
		}
	}
	for i, h := range header {
		key := strings.ToLower(strings.Join(strings.Fields(strings.NewReplacer("-", " ", ".", " ").Replace(h)), "_"))
		if f, ok := headerGuesses[key]; ok {
			if _, taken := col[f]; !taken {
				col[f] = i
			}
		}
	}
	if _, ok := col["price"]; !ok {
		if _, ok := col["rent"]; !ok {
			return nil, errors.New("no price or rent column: map one with --map price=COLUMN")
		}
	}
	if _, ok := col["sale_date"]; !ok {
		return nil, errors.New("no sale date column: map one with --map sale_date=COLUMN")
	}
	_, hasAddr := col["address"]
	_, hasStreet := col["street"]
	_, hasID := col["id"]
	if !hasAddr && !hasStreet && !hasID {
		return nil, errors.New("no address, street or id column: map one with --map street=COLUMN")
	}
	return col, nil
}

func validField(f string) bool {
	for _, x := range Fields {
		if x == f {
			return true
		}
	}
	return false
}

// get returns the trimmed cell of field, or "" when the field has no column or the row is short.
func get(col map[string]int, row []string, field string) string {
	i, ok := col[field]
	if !ok || i >= len(row) {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// number parses a cell; empty is unknown (NaN), anything else unparseable is an error naming the field.
func number(col map[string]int, row []string, field string) (float64, error) {
	s := strings.ReplaceAll(strings.TrimPrefix(get(col, row, field), "$"), ",", "")
	if s == "" {
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s %q is not a number", field, get(col, row, field))
	}
	return v, nil
}

// positive treats zero and negative as unknown: sources write 0 for "not recorded".
func positive(v float64) float64 {
	if v > 0 {
		return v
	}
	return math.NaN()
}

func price(v float64, field string) (int64, error) {
	if v != v || v <= 0 {
		return 0, fmt.Errorf("%s must be a positive amount", field)
	}
	if v > 1e10 {
		return 0, fmt.Errorf("%s %.0f is not plausible", field, v)
	}
	return int64(math.Round(v)), nil
}

func checkLocation(h *Home) error {
	if !known(h.Lat) && !known(h.Lon) {
		return nil
	}
	// The United States and its territories lie between these bounds.
	if !(h.Lat >= 13 && h.Lat <= 72 && h.Lon >= -180 && h.Lon <= -64) {
		return fmt.Errorf("coordinates %.5f, %.5f are not in the United States", h.Lat, h.Lon)
	}
	return nil
}

func known(v float64) bool { return v == v }

func parseKingCounty(col map[string]int, row []string) (Record, error) {
	h := NewHome()
	h.ExternalID = get(col, row, "id")
	if h.ExternalID == "" {
		return Record{}, errors.New("id is empty")
	}
	ds := get(col, row, "date")
	d, err := time.Parse("20060102", strings.SplitN(ds, "T", 2)[0])
	if err != nil {
		return Record{}, fmt.Errorf("date %q is not a date like 20141013T000000", ds)
	}
	vals := map[string]*float64{"bedrooms": &h.Beds, "bathrooms": &h.Baths, "sqft_living": &h.Sqft,
		"sqft_lot": &h.LotSqft, "floors": &h.Floors, "waterfront": &h.Water, "view": &h.View,
		"condition": &h.Condition, "grade": &h.Grade, "sqft_above": &h.SqftAbove, "sqft_basement": &h.SqftBase,
		"yr_built": &h.YearBuilt, "yr_renovated": &h.YearRenov, "lat": &h.Lat, "long": &h.Lon,
		"sqft_living15": &h.NbrSqft, "sqft_lot15": &h.NbrLot}
	for f, dst := range vals {
		if *dst, err = number(col, row, f); err != nil {
			return Record{}, err
		}
	}
	if !(h.Sqft > 0) {
		return Record{}, errors.New("sqft_living must be positive")
	}
	if h.YearRenov == 0 {
		h.YearRenov = math.NaN()
	}
	p, err := number(col, row, "price")
	if err != nil {
		return Record{}, err
	}
	pr, err := price(p, "price")
	if err != nil {
		return Record{}, err
	}
	h.ZIP = get(col, row, "zipcode")
	if z, ok := geo.LookupZIP(h.ZIP); ok {
		h.City, h.State, h.County = strings.ToUpper(z.City), z.State, z.County
	} else {
		return Record{}, fmt.Errorf("zipcode %q is not a US ZIP code", h.ZIP)
	}
	if err := checkLocation(&h); err != nil {
		return Record{}, err
	}
	h.Type = "Single Family"
	return Record{Home: h, SaleDate: d, Price: pr}, nil
}

func parseSacramento(col map[string]int, row []string) (Record, error) {
	a, err := address.FromParts(get(col, row, "street"), get(col, row, "city"), get(col, row, "state"),
		get(col, row, "zip"))
	if err != nil {
		return Record{}, fmt.Errorf("address: %s", message(err))
	}
	h := homeAt(a)
	for f, dst := range map[string]*float64{"bedrooms": &h.Beds, "bathrooms": &h.Baths, "sq_ft": &h.Sqft,
		"latitude": &h.Lat, "longitude": &h.Lon} {
		if *dst, err = number(col, row, f); err != nil {
			return Record{}, err
		}
	}
	h.Beds, h.Baths, h.Sqft = positive(h.Beds), positive(h.Baths), positive(h.Sqft)
	if err := checkLocation(&h); err != nil {
		return Record{}, err
	}
	h.Type = NormalizeType(get(col, row, "type"))
	if h.Type == "Other" {
		h.Type = "" // the file's "Unkown"
	}
	ds := get(col, row, "sale_date")
	d, err := time.Parse("Mon Jan 2 15:04:05 MST 2006", ds)
	if err != nil {
		return Record{}, fmt.Errorf("sale_date %q is not a date like Wed May 21 00:00:00 EDT 2008", ds)
	}
	p, err := number(col, row, "price")
	if err != nil {
		return Record{}, err
	}
	pr, err := price(p, "price")
	if err != nil {
		return Record{}, err
	}
	return Record{Home: h, SaleDate: time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC), Price: pr}, nil
}

func parseGeneric(col map[string]int, row []string) (Record, error) {
	h := NewHome()
	h.ExternalID = get(col, row, "id")
	var a address.Address
	var err error
	if line := get(col, row, "address"); line != "" && get(col, row, "street") == "" {
		a, err = address.Parse(line)
	} else if street := get(col, row, "street"); street != "" {
		if u := get(col, row, "unit"); u != "" {
			street += " " + u
		}
		a, err = address.FromParts(street, get(col, row, "city"), get(col, row, "state"), get(col, row, "zip"))
	} else if h.ExternalID == "" {
		return Record{}, errors.New("no address and no id")
	}
	if err != nil {
		return Record{}, fmt.Errorf("address: %s", message(err))
	}
	if a.StreetKey() != "" {
		if a.ZIP == "" {
			return Record{}, errors.New("address has no ZIP code")
		}
		ext := h.ExternalID
		h = homeAt(a)
		h.ExternalID = ext
	} else if z := get(col, row, "zip"); z != "" {
		zz, ok := geo.LookupZIP(z)
		if !ok {
			return Record{}, fmt.Errorf("zip %q is not a US ZIP code", z)
		}
		h.ZIP, h.City, h.State, h.County = zz.Code, strings.ToUpper(zz.City), zz.State, zz.County
	}
	for f, dst := range map[string]*float64{"lat": &h.Lat, "lon": &h.Lon, "beds": &h.Beds, "baths": &h.Baths,
		"sqft": &h.Sqft, "lot_sqft": &h.LotSqft, "year_built": &h.YearBuilt} {
		if *dst, err = number(col, row, f); err != nil {
			return Record{}, err
		}
	}
	h.Beds, h.Baths, h.Sqft, h.LotSqft, h.YearBuilt = positive(h.Beds), positive(h.Baths), positive(h.Sqft),
		positive(h.LotSqft), positive(h.YearBuilt)
	if !known(h.Lat) || !known(h.Lon) {
		// Without coordinates the home is placed at its ZIP code's centre.
		if z, ok := geo.LookupZIP(h.ZIP); ok {
			h.Lat, h.Lon = z.Lat, z.Lon
		}
	}
	if err := checkLocation(&h); err != nil {
		return Record{}, err
	}
	h.Type = NormalizeType(get(col, row, "type"))
	rec := Record{Home: h}
	ds := get(col, row, "sale_date")
	if rec.SaleDate, err = parseDate(ds); err != nil {
		return Record{}, fmt.Errorf("sale_date %q is not a date (use 2024-03-31, 03/31/2024 or 20240331)", ds)
	}
	if p, err := number(col, row, "price"); err != nil {
		return Record{}, err
	} else if known(p) {
		if rec.Price, err = price(p, "price"); err != nil {
			return Record{}, err
		}
	}
	if v, err := number(col, row, "rent"); err != nil {
		return Record{}, err
	} else if known(v) {
		if rec.Rent, err = price(v, "rent"); err != nil {
			return Record{}, err
		}
	}
	if rec.Price == 0 && rec.Rent == 0 {
		return Record{}, errors.New("no price and no rent")
	}
	return rec, nil
}

var dateLayouts = []string{"2006-01-02", "01/02/2006", "1/2/2006", "20060102", "2006-01-02T15:04:05Z07:00",
	"2006-01-02 15:04:05", "2006/01/02", "Jan 2, 2006", "2 Jan 2006", "Mon Jan 2 15:04:05 MST 2006"}

func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 15 && s[8] == 'T' {
		s = s[:8] // 20141013T000000
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1900 || t.Year() > 2100 {
				break
			}
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
		}
	}
	return time.Time{}, errors.New("not a date")
}

// homeAt starts a home at a parsed address, with its keys and county.
func homeAt(a address.Address) Home {
	h := NewHome()
	h.Street, h.UnitType, h.Unit = a.Street(), a.UnitType, a.UnitNumber
	h.City, h.State, h.ZIP = a.City, a.State, a.ZIP
	h.StreetKey, h.UnitKey, h.NameKey = a.StreetKey(), a.UnitKey(), a.NameKey()
	if z, ok := geo.LookupZIP(a.ZIP); ok {
		h.County = z.County
		if h.City == "" {
			h.City = strings.ToUpper(z.City)
		}
	}
	return h
}

func message(err error) string {
	if e, ok := apperr.As(err); ok {
		return e.Message
	}
	return err.Error()
}
