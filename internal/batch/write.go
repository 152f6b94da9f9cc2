package batch

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"iter"
	"strconv"

	"github.com/xuri/excelize/v2"

	"valuator/internal/sheet"
)

// Result is one row of a job's results (spec section 3, "Batch job" results, plus the value range, confidence,
// match code and the row's line in the uploaded file). Status is RowSuccess, RowFailed or RowPending; for a failed
// row Reason is one of the Reason constants (job.go) and Error says why, in the words of the single lookup (what to
// add, which field is wrong, or which place the markets loaded do not reach). Numbers are nil when unknown.
type Result struct {
	Line           int      `json:"line"`
	Address        string   `json:"address"`
	FullAddress    string   `json:"fullAddress"`
	Status         string   `json:"status"`
	EstimatedValue *int64   `json:"estimatedValue"`
	ValueLow       *int64   `json:"valueLow"`
	ValueHigh      *int64   `json:"valueHigh"`
	Confidence     *float64 `json:"confidence"`
	// ConfidenceLevel is the API's level for Confidence (valuation.ConfidenceLevel), nil when not valued.
	ConfidenceLevel *string `json:"confidenceLevel"`
	// FSD, WithinTenPercent, ValuationDate and Warning are the single valuation's (valuation.ResultValue), nil when
	// not valued; the warnings are joined into one cell.
	FSD              *float64 `json:"fsd"`
	WithinTenPercent *float64 `json:"withinTenPercent"`
	ValuationDate    *string  `json:"valuationDate"`
	Warning          *string  `json:"warning"`
	// IsDemo is the valuation's property.isDemo: the value comes from the demo market's records.
	IsDemo       *bool    `json:"isDemo"`
	PricePerSqFt *int64   `json:"pricePerSqFt"`
	RentEstimate *int64   `json:"rentEstimate"`
	Bedrooms     *float64 `json:"bedrooms"`
	Bathrooms    *float64 `json:"bathrooms"`
	SquareFeet   *int64   `json:"squareFeet"`
	YearBuilt    *int64   `json:"yearBuilt"`
	LotSize      *int64   `json:"lotSize"`
	PropertyType string   `json:"propertyType"`
	ImageURL     string   `json:"imageUrl"`
	MatchCode    string   `json:"matchCode"`
	Reason       *string  `json:"reason"`
	Error        string   `json:"error"`
}

// cellKind says how a results column is written: text (through sheet.SafeCell), a whole number, a number with
// decimals, or dollars.
type cellKind int

const (
	kindText cellKind = iota
	kindInt
	kindFloat
	kindMoney
)

// resultColumn is one column of the results files: its heading, width in an XLSX, and its value.
type resultColumn struct {
	name  string
	width float64
	kind  cellKind
	text  func(*Result) string
	int   func(*Result) *int64
	float func(*Result) *float64
}

// resultColumns are the columns of both results files, in order. The line comes first, so that a person can
// find the row of the uploaded file; the money columns follow the address and status.
var resultColumns = []resultColumn{
	{name: "Line", width: 8, kind: kindInt, int: func(r *Result) *int64 { v := int64(r.Line); return &v }},
	{name: "Address", width: 32, text: func(r *Result) string { return r.Address }},
	{name: "Full Address", width: 44, text: func(r *Result) string { return r.FullAddress }},
	{name: "Status", width: 10, text: func(r *Result) string { return r.Status }},
	{name: "Estimated Value", width: 16, kind: kindMoney, int: func(r *Result) *int64 { return r.EstimatedValue }},
	{name: "Value Low", width: 14, kind: kindMoney, int: func(r *Result) *int64 { return r.ValueLow }},
	{name: "Value High", width: 14, kind: kindMoney, int: func(r *Result) *int64 { return r.ValueHigh }},
	{name: "Confidence", width: 12, kind: kindFloat, float: func(r *Result) *float64 { return r.Confidence }},
	{name: "Confidence Level", width: 12, kind: kindText, text: func(r *Result) string { return deref(r.ConfidenceLevel) }},
	{name: "FSD", width: 8, kind: kindFloat, float: func(r *Result) *float64 { return r.FSD }},
	{name: "Within 10%", width: 11, kind: kindFloat, float: func(r *Result) *float64 { return r.WithinTenPercent }},
	{name: "Valuation Date", width: 14, text: func(r *Result) string { return deref(r.ValuationDate) }},
	{name: "Price Per Sq Ft", width: 15, kind: kindMoney, int: func(r *Result) *int64 { return r.PricePerSqFt }},
	{name: "Rent Estimate", width: 14, kind: kindMoney, int: func(r *Result) *int64 { return r.RentEstimate }},
	{name: "Bedrooms", width: 10, kind: kindFloat, float: func(r *Result) *float64 { return r.Bedrooms }},
	{name: "Bathrooms", width: 10, kind: kindFloat, float: func(r *Result) *float64 { return r.Bathrooms }},
	{name: "Square Feet", width: 12, kind: kindInt, int: func(r *Result) *int64 { return r.SquareFeet }},
	{name: "Year Built", width: 10, kind: kindInt, int: func(r *Result) *int64 { return r.YearBuilt }},
	{name: "Lot Size (sq ft)", width: 15, kind: kindInt, int: func(r *Result) *int64 { return r.LotSize }},
	{name: "Property Type", width: 16, text: func(r *Result) string { return r.PropertyType }},
	{name: "Match Code", width: 12, text: func(r *Result) string { return r.MatchCode }},
	{name: "Demo Data", width: 10, text: func(r *Result) string {
		if r.IsDemo == nil {
			return ""
		}
		if *r.IsDemo {
			return "Yes"
		}
		return "No"
	}},
	{name: "Warning", width: 50, text: func(r *Result) string { return deref(r.Warning) }},
	{name: "Image URL", width: 40, text: func(r *Result) string { return r.ImageURL }},
	{name: "Reason", width: 10, text: func(r *Result) string {
		if r.Reason == nil {
			return ""
		}
		return *r.Reason
	}},
	{name: "Error", width: 50, text: func(r *Result) string { return r.Error }},
}

// Slice yields the results of a slice, for WriteCSV and WriteXLSX.
func Slice(results []Result) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		for _, r := range results {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// WriteCSV writes results as CSV: a header row, then one row per result; an unknown number is an empty cell.
// Results come from an iterator and each row is written as it comes, so that a job of 50,000 rows is never held
// in memory: the caller reads them page by page from the store. The first error the iterator yields stops the
// file and is returned. Every text cell goes through sheet.SafeCell, since an address or an error message can
// come from the uploaded file and a spreadsheet would run it as a formula. Lines end in CRLF (RFC 4180, and what
// Excel writes); there is no byte order mark, which programs reading the file through the API would take for
// part of the first heading.
func WriteCSV(w io.Writer, results iter.Seq2[Result, error]) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	rec := make([]string, len(resultColumns))
	for i, c := range resultColumns {
		rec[i] = c.name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for r, err := range results {
		if err != nil {
			return err
		}
		for j, c := range resultColumns {
			rec[j] = csvCell(c, &r)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvCell(c resultColumn, r *Result) string {
	switch c.kind {
	case kindText:
		return sheet.SafeCell(c.text(r))
	case kindFloat:
		if v := c.float(r); v != nil {
			return strconv.FormatFloat(*v, 'f', -1, 64)
		}
	default:
		if v := c.int(r); v != nil {
			return strconv.FormatInt(*v, 10)
		}
	}
	return ""
}

// WriteXLSX writes results as an Excel workbook with the columns of WriteCSV: a bold, frozen header row,
// numbers as numeric cells (dollar amounts formatted $#,##0), unknown numbers as empty cells, and text through
// sheet.SafeCell, which also keeps the text safe when the sheet is saved as CSV again. Results come from an
// iterator, as for WriteCSV, and go through excelize's stream writer, so a job of 50,000 rows is never held as
// results or cell structures: excelize keeps the sheet's XML in memory up to 16 MB and in a temporary file past
// that, which the deferred Close removes whether or not the workbook was written. The workbook's zip is written
// straight to w, not built in memory first.
func WriteXLSX(w io.Writer, results iter.Seq2[Result, error]) error {
	f := excelize.NewFile()
	defer f.Close()
	// excelize's Write builds the whole zip in a buffer and then copies it; a zip writer of our own on w makes it
	// write there directly (the buffer it hands over stays empty).
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(w) })
	const name = "Results"
	if err := f.SetSheetName("Sheet1", name); err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E7ECF3"}}})
	if err != nil {
		return err
	}
	moneyFmt := "$#,##0"
	money, err := f.NewStyle(&excelize.Style{CustomNumFmt: &moneyFmt})
	if err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	for i, c := range resultColumns {
		if err := sw.SetColWidth(i+1, i+1, c.width); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	row := make([]any, len(resultColumns))
	for i, c := range resultColumns {
		row[i] = excelize.Cell{StyleID: bold, Value: c.name}
	}
	if err := sw.SetRow("A1", row); err != nil {
		return err
	}
	next := 2
	for r, err := range results {
		if err != nil {
			return err
		}
		for j, c := range resultColumns {
			row[j] = xlsxCell(c, &r, money)
		}
		cell, err := excelize.CoordinatesToCellName(1, next)
		if err != nil {
			return err
		}
		if err := sw.SetRow(cell, row); err != nil {
			return err
		}
		next++
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(io.Discard)
}

func xlsxCell(c resultColumn, r *Result, money int) any {
	switch c.kind {
	case kindText:
		if s := c.text(r); s != "" {
			return sheet.SafeCell(s)
		}
	case kindFloat:
		if v := c.float(r); v != nil {
			return *v
		}
	case kindMoney:
		if v := c.int(r); v != nil {
			return excelize.Cell{StyleID: money, Value: *v}
		}
	default:
		if v := c.int(r); v != nil {
			return *v
		}
	}
	return nil
}

// exampleRows is the 'Download Examples' template (spec section 2, Batch Upload): five rows whose addresses are
// written in the different ways the upload understands, full address in one column or split into columns. They
// are homes of the demo market, so the example values offline.
var exampleRows = [][]string{
	{"Full Address", "Street Address", "City", "State", "ZIP Code"},
	{"7006 Maple Rd, Seattle, WA 98103", "", "", "", ""},
	{"", "7203 N Spring St", "Seattle", "WA", "98103"},
	{"1679 15th Ave Apt 1A, Austin, TX 78701", "", "", "", ""},
	{"", "1525 47th Ave", "Denver", "CO", "80202"},
	{"8244 Kensington Dr, Atlanta, GA 30308", "", "", "", ""},
}

// ExampleCSV is the sample CSV the Batch Upload screen offers for download.
func ExampleCSV() []byte {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.UseCRLF = true
	for _, r := range exampleRows {
		rec := make([]string, len(r))
		for i, c := range r {
			rec[i] = sheet.SafeCell(c)
		}
		_ = cw.Write(rec) // a bytes.Buffer does not fail
	}
	cw.Flush()
	return b.Bytes()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
