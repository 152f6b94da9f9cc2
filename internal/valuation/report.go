package valuation

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"valuator/internal/apperr"
	"valuator/internal/sheet"
)

// ReportData is what the report is made of: a valuation as the lookup returned it (the spec's propertyData).
type ReportData struct {
	Address         *string         `json:"address"`
	City            *string         `json:"city"`
	State           *string         `json:"state"`
	ZIPCode         *string         `json:"zipCode"`
	PropertyType    *string         `json:"propertyType"`
	Valuation       *float64        `json:"valuation"`
	Low             *float64        `json:"low"`
	High            *float64        `json:"high"`
	Confidence      *float64        `json:"confidence"`
	ConfidenceLevel *string         `json:"confidenceLevel"`
	RentEstimate    *float64        `json:"rentEstimate"`
	Bedrooms        *float64        `json:"bedrooms"`
	Bathrooms       *float64        `json:"bathrooms"`
	SquareFeet      *float64        `json:"squareFeet"`
	YearBuilt       *float64        `json:"yearBuilt"`
	Comparables     []ComparableOut `json:"comparables"`
}

// MsgNoData is the spec's answer to an empty report.
const MsgNoData = "No data in report"

// Report bounds (api/openapi.yaml ReportRequest and ReportComparable). A report is made of a valuation the lookup
// answered, so each bound admits every value a lookup gives (a street line is at most 300 characters, a value is
// in dollars, a similarity is 0 to 1) and refuses what no valuation holds: a report of megabytes, a negative
// price, a confidence of 7.
const (
	MaxReportComparables = 50
	maxReportMoney       = 1e12
	maxReportRooms       = 1000
	maxReportSquareFeet  = 10_000_000
	maxReportYear        = 3000
	maxReportMiles       = 25_000
)

// Validate checks a report's fields against the bounds the contract gives them, naming the first bad field by its
// JSON path ("propertyData.address"); a bad comparable is named by its list ("propertyData.comparables"), with
// its place in the message, as the API names the elements of a list.
func (d ReportData) Validate() error {
	var v apperr.Validation
	text := func(field string, p *string, max int) {
		if p != nil {
			v.Check(utf8.RuneCountInString(*p) <= max, field, fmt.Sprintf("%s must be at most %d characters", field, max))
		}
	}
	num := func(field string, p *float64, lo, hi float64) {
		if p != nil {
			v.Check(*p >= lo && *p <= hi, field, fmt.Sprintf("%s must be between %s and %s", field, trimFloat(lo), trimFloat(hi)))
		}
	}
	const pd = "propertyData."
	text(pd+"address", d.Address, 300)
	text(pd+"city", d.City, 100)
	text(pd+"state", d.State, 50)
	text(pd+"zipCode", d.ZIPCode, 10)
	text(pd+"propertyType", d.PropertyType, 50)
	text(pd+"confidenceLevel", d.ConfidenceLevel, 20)
	num(pd+"valuation", d.Valuation, 0, maxReportMoney)
	num(pd+"low", d.Low, 0, maxReportMoney)
	num(pd+"high", d.High, 0, maxReportMoney)
	num(pd+"confidence", d.Confidence, 0, 1)
	num(pd+"rentEstimate", d.RentEstimate, 0, maxReportMoney)
	num(pd+"bedrooms", d.Bedrooms, 0, maxReportRooms)
	num(pd+"bathrooms", d.Bathrooms, 0, maxReportRooms)
	num(pd+"squareFeet", d.SquareFeet, 0, maxReportSquareFeet)
	num(pd+"yearBuilt", d.YearBuilt, 0, maxReportYear)
	const comps = pd + "comparables"
	v.Check(len(d.Comparables) <= MaxReportComparables, comps,
		fmt.Sprintf("%s may hold at most %d sales", comps, MaxReportComparables))
	for i, c := range d.Comparables {
		if err := c.check(); err != "" {
			v.Add(comps, fmt.Sprintf("%s[%d].%s", comps, i, err))
			break
		}
	}
	return v.Err()
}

// check is what is wrong with a comparable of a report ("salePrice must be ..."), or "".
func (c ComparableOut) check() string {
	texts := []struct {
		name string
		val  string
		max  int
	}{{"address", c.Address, 300}, {"city", strOf(c.City), 100}, {"state", strOf(c.State), 50}, {"zip", strOf(c.ZIP), 10},
		{"saleDate", c.SaleDate, 10}}
	for _, t := range texts {
		if utf8.RuneCountInString(t.val) > t.max {
			return fmt.Sprintf("%s must be at most %d characters", t.name, t.max)
		}
	}
	nums := []struct {
		name   string
		val    *float64
		lo, hi float64
	}{
		{"distanceMiles", &c.DistanceMiles, 0, maxReportMiles},
		{"salePrice", ptrF(float64(c.SalePrice)), 0, maxReportMoney},
		{"bedrooms", c.Bedrooms, 0, maxReportRooms},
		{"bathrooms", c.Bathrooms, 0, maxReportRooms},
		{"squareFeet", ptrI(c.SquareFeet), 0, maxReportSquareFeet},
		{"yearBuilt", ptrI(c.YearBuilt), 0, maxReportYear},
		{"similarity", &c.Similarity, 0, 1},
		{"adjustedPrice", ptrF(float64(c.AdjustedPrice)), 0, maxReportMoney},
	}
	for _, n := range nums {
		if n.val != nil && !(*n.val >= n.lo && *n.val <= n.hi) {
			return fmt.Sprintf("%s must be between %s and %s", n.name, trimFloat(n.lo), trimFloat(n.hi))
		}
	}
	return ""
}

func strOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ptrF(f float64) *float64 { return &f }

func ptrI(p *int64) *float64 {
	if p == nil {
		return nil
	}
	f := float64(*p)
	return &f
}

// Report renders the CSV report. It refuses a report with neither an address nor a value.
func Report(d ReportData) ([]byte, error) {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	num := func(p *float64, decimals int) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', decimals, 64)
	}
	if str(d.Address) == "" && d.Valuation == nil {
		return nil, apperr.Invalid("propertyData", MsgNoData)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	// Every row has the width of the widest section, so tools that insist on rectangular CSV read it too.
	const width = 13
	write := func(cells ...string) {
		row := make([]string, width)
		for i, c := range cells {
			row[i] = sheet.SafeCell(c)
		}
		_ = w.Write(row)
	}
	write("Valuator property report")
	write("Field", "Value")
	write("Address", str(d.Address))
	write("City", str(d.City))
	write("State", str(d.State))
	write("ZIP Code", str(d.ZIPCode))
	write("Property Type", str(d.PropertyType))
	write("Estimated Value (USD)", num(d.Valuation, 0))
	write("Value Range Low (USD)", num(d.Low, 0))
	write("Value Range High (USD)", num(d.High, 0))
	write("Confidence", num(d.Confidence, 3))
	// The level follows from the confidence by the one mapping every surface uses (ConfidenceLevel); a level sent
	// without a confidence is written as sent.
	level := d.ConfidenceLevel
	if d.Confidence != nil {
		l := ConfidenceLevel(*d.Confidence)
		level = &l
	}
	write("Confidence Level", str(level))
	write("Rent Estimate (USD per month)", num(d.RentEstimate, 0))
	write("Bedrooms", num(d.Bedrooms, -1))
	write("Bathrooms", num(d.Bathrooms, -1))
	write("Square Feet", num(d.SquareFeet, 0))
	write("Year Built", num(d.YearBuilt, 0))
	if len(d.Comparables) > 0 {
		write()
		write("Comparable sales")
		write("Address", "City", "State", "ZIP", "Distance (mi)", "Sale Date", "Sale Price (USD)", "Bedrooms",
			"Bathrooms", "Square Feet", "Year Built", "Similarity", "Adjusted Price (USD)")
		for _, c := range d.Comparables {
			sq := func(p *int64) string {
				if p == nil {
					return ""
				}
				return strconv.FormatInt(*p, 10)
			}
			write(c.Address, str(c.City), str(c.State), str(c.ZIP), strconv.FormatFloat(c.DistanceMiles, 'f', 2, 64),
				c.SaleDate, strconv.FormatInt(c.SalePrice, 10), num(c.Bedrooms, -1), num(c.Bathrooms, -1),
				sq(c.SquareFeet), sq(c.YearBuilt), strconv.FormatFloat(c.Similarity, 'f', 3, 64),
				strconv.FormatInt(c.AdjustedPrice, 10))
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
