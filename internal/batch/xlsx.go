package batch

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Limits on the parts of an .xlsx once unzipped. A 50 MB upload can hold gigabytes of highly compressible XML (a
// zip bomb); the sizes the zip declares are checked before anything is inflated, and archive/zip refuses to
// inflate an entry past its declared size, so a lying header gains nothing. The limits are far above what a sheet
// of 60,000 rows needs. excelize is given the same total and sheet limits (its UnzipSizeLimit and
// UnzipXMLSizeLimit) as a second line; since no sheet passes the first, excelize never spills a sheet to a
// temporary file and the package does no I/O.
const (
	xlsxMaxTotal   = 200 << 20 // all parts together
	xlsxMaxSheet   = 100 << 20 // one worksheet's XML
	xlsxMaxStrings = 64 << 20  // the shared string table, which excelize decodes whole
	xlsxMaxPart    = 16 << 20  // any other XML part (styles, workbook, relationships), decoded whole
	xlsxMaxEntries = 10000     // parts in the zip
)

const msgBadWorkbook = "This file is not a valid Excel workbook; it may be damaged or only partly uploaded. " +
	"Open it in Excel and save it again, or save it as CSV."

// readXLSX reads the first visible sheet that holds data (else the first hidden one) as displayed values: a
// number shows as Excel shows it with its format ("02134" for a ZIP code formatted 00000), and a whole number
// stored with a decimal part ("98103.0") as the whole number.
func readXLSX(data []byte) (t *Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, errParse(msgBadWorkbook)
		}
	}()
	if err := checkZip(data); err != nil {
		return nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit: xlsxMaxTotal, UnzipXMLSizeLimit: xlsxMaxSheet})
	if err != nil {
		return nil, xlsxError(err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, errParse(msgBadWorkbook)
	}
	var hidden []string
	var visible []string
	for _, name := range sheets {
		if v, err := f.GetSheetVisible(name); err == nil && !v {
			hidden = append(hidden, name)
		} else {
			visible = append(visible, name)
		}
	}
	var firstErr error
	budget := 4 * maxCells // cells looked at, shared by the sheets tried (see builder.cellLimit)
	for _, name := range append(visible, hidden...) {
		b, err := readSheet(f, name, budget)
		if err != nil && b != nil && b.sawCells > 0 {
			return nil, err // a sheet with data past the limits, or damaged in the middle
		}
		if err != nil {
			// A sheet that cannot be read at all (a chart sheet): the next may hold the data.
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		budget -= b.sawCells
		if !b.empty() {
			return b.finish()
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, errEmpty(msgEmptyExcel)
}

// readSheet reads one sheet into a builder. It stops at the first record past the limits.
func readSheet(f *excelize.File, sheet string, budget int) (*builder, error) {
	rows, err := f.Rows(sheet)
	if err != nil {
		return nil, xlsxError(err)
	}
	defer rows.Close()
	b := newBuilder(msgEmptyExcel)
	b.cellLimit = budget
	for line := 1; rows.Next(); line++ {
		cells, err := rows.Columns()
		if err != nil {
			return b, xlsxError(err)
		}
		for i, c := range cells {
			cells[i] = wholeNumber(c)
		}
		if err := b.add(line, cells); err != nil {
			return b, err
		}
	}
	if err := rows.Error(); err != nil {
		return b, xlsxError(err)
	}
	return b, nil
}

var decimalZeros = regexp.MustCompile(`^-?[0-9]+\.0+$`)

// wholeNumber writes "98103.0" as "98103". Some writers store whole numbers with a decimal part, and a General
// format shows them without it.
func wholeNumber(s string) string {
	if len(s) < 3 || len(s) > 40 || !decimalZeros.MatchString(s) {
		return s
	}
	return s[:strings.IndexByte(s, '.')]
}

// checkZip refuses a zip whose parts would inflate past the limits (see xlsxMaxTotal), before excelize inflates
// any of them.
func checkZip(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return errParse(msgBadWorkbook)
	}
	if len(zr.File) > xlsxMaxEntries {
		return errParse(msgBadWorkbook)
	}
	var total uint64
	hasWorkbook := false
	for _, zf := range zr.File {
		size := zf.UncompressedSize64
		total += size
		name := strings.ToLower(strings.ReplaceAll(zf.Name, `\`, "/"))
		limit := uint64(0)
		switch {
		case strings.HasPrefix(name, "xl/worksheets/"):
			limit = xlsxMaxSheet
		case name == "xl/sharedstrings.xml":
			limit = xlsxMaxStrings
		case strings.HasSuffix(name, ".xml") || strings.HasSuffix(name, ".rels") || strings.HasSuffix(name, ".vml"):
			limit = xlsxMaxPart
		}
		if name == "xl/workbook.xml" {
			hasWorkbook = true
		}
		if limit > 0 && size > limit || total > xlsxMaxTotal {
			return errParsef("This workbook is too large to read once unzipped (over %d MB). Save the sheet with "+
				"the addresses as CSV, or split the file.", xlsxMaxTotal>>20)
		}
	}
	if !hasWorkbook {
		return errParse("This file is a zip archive, not an Excel workbook. Please upload a CSV or Excel file.")
	}
	return nil
}

// xlsxError turns an excelize error into a Parse Error. Its messages are written for programmers, so only the
// cases a person can act on are told apart.
func xlsxError(err error) error {
	if strings.Contains(err.Error(), "unzip size") {
		return errParsef("This workbook is too large to read once unzipped (over %d MB). Save the sheet with the "+
			"addresses as CSV, or split the file.", xlsxMaxTotal>>20)
	}
	if errors.Is(err, excelize.ErrWorkbookFileFormat) {
		return errParse(msgBadWorkbook)
	}
	if errors.Is(err, excelize.ErrMaxRows) {
		return errParse(msgBadWorkbook)
	}
	return errParse(fmt.Sprintf("%s Details: %s.", msgBadWorkbook, shortCause(err)))
}

// shortCause is the first line of an error, at most 120 bytes, for a message that helps support without
// flooding the screen.
func shortCause(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return strings.ToValidUTF8(s, "")
}
