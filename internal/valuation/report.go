package valuation

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

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
