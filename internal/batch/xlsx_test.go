package batch

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"valuator/internal/apperr"
)

// zipOf builds a zip of the given files, deflated.
func zipOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// minimalXLSX is the parts of a workbook of one sheet whose XML is sheetData (the rows).
func minimalXLSX(sheetData string) map[string]string {
	return map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
		"_rels/.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + sheetData + `</sheetData></worksheet>`,
	}
}

// xlsxOf writes rows to the first sheet of a new workbook.
func xlsxOf(t testing.TB, rows [][]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadXLSX(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	// The first sheet is empty and the second hidden: the third, the first visible one with data, is read.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.NewSheet("Hidden")
	must(err)
	must(f.SetCellValue("Hidden", "A1", "not this one"))
	must(f.SetCellValue("Hidden", "A2", "nor this"))
	must(f.SetSheetVisible("Hidden", false))
	_, err = f.NewSheet("Properties")
	must(err)
	rows := [][]any{
		{"Address", "City", "State", "Zip", " ", "Zip", "Baths", "Price"},
		{"7006 Maple Rd", "Seattle", "WA", 98103, nil, 98103.0, 2.5, 350000},
		{},
		{"  12 Beacon St  ", "Boston", "MA", 2134, nil, "02134", 1.5, 0.1 + 0.2},
		{"=1+1 is text", "Springfield", "IL", "62704-1234", nil, nil, nil, nil},
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		must(f.SetSheetRow("Properties", cell, &r))
	}
	zip := "00000"
	style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &zip})
	must(err)
	must(f.SetCellStyle("Properties", "D4", "D4", style))
	var buf bytes.Buffer
	must(f.Write(&buf))

	tbl, err := ReadFile("book.XLSX", buf.Bytes(), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	wantHeaders := []string{"Address", "City", "State", "Zip", "Column 5", "Zip (2)", "Baths", "Price"}
	if !reflect.DeepEqual(tbl.Headers, wantHeaders) {
		t.Errorf("headers = %q, want %q", tbl.Headers, wantHeaders)
	}
	wantRows := [][]string{
		{"7006 Maple Rd", "Seattle", "WA", "98103", "", "98103", "2.5", "350000"},
		{"12 Beacon St", "Boston", "MA", "02134", "", "02134", "1.5", "0.3"},
		{"=1+1 is text", "Springfield", "IL", "62704-1234", "", "", "", ""},
	}
	if !reflect.DeepEqual(tbl.Rows, wantRows) {
		t.Errorf("rows = %q, want %q", tbl.Rows, wantRows)
	}
	if !reflect.DeepEqual(tbl.Line, []int{2, 4, 5}) || tbl.BlankRows != 1 {
		t.Errorf("lines = %v, blank rows = %d, want [2 4 5] and 1", tbl.Line, tbl.BlankRows)
	}
}

func TestReadXLSXOnlyHiddenSheetHasData(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	if _, err := f.NewSheet("Data"); err != nil {
		t.Fatal(err)
	}
	_ = f.SetSheetRow("Data", "A1", &[]any{"Address"})
	_ = f.SetSheetRow("Data", "A2", &[]any{"1 Main St"})
	if err := f.SetSheetVisible("Data", false); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_ = f.Write(&buf)
	tbl, err := ReadFile("b.xlsx", buf.Bytes(), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Rows[0][0] != "1 Main St" {
		t.Errorf("rows = %q", tbl.Rows)
	}
}

func TestReadXLSXEmptyWorkbook(t *testing.T) {
	_, err := ReadFile("e.xlsx", xlsxOf(t, nil), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "empty_file", "Empty File", "Excel file is empty")
	_, err = ReadFile("h.xlsx", xlsxOf(t, [][]any{{"Address", "City"}}), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "no_data_rows", "Empty File", "The uploaded file contains no data rows")
}

// Whole numbers some writers store with a decimal part ("98103.0") read as the whole number.
func TestReadXLSXStoredDecimalZeros(t *testing.T) {
	data := zipOf(t, minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Zip</t></is></c></row>`+
		`<row r="2"><c r="A2"><v>98103.0</v></c></row><row r="3"><c r="A3"><v>-5.000</v></c></row>`))
	tbl, err := ReadFile("z.xlsx", data, "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"98103"}, {"-5"}}; !reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("rows = %q, want %q", tbl.Rows, want)
	}
}

func TestReadXLSXTooWide(t *testing.T) {
	// A value past the column limit is an error; blank cells there are not.
	data := zipOf(t, minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c><c r="XFD1" s="0"/></row>`+
		`<row r="2"><c r="A2" t="inlineStr"><is><t>1 Main St</t></is></c></row>`))
	tbl, err := ReadFile("w.xlsx", data, "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tbl.Headers, []string{"Address"}) {
		t.Errorf("headers = %q", tbl.Headers)
	}
	data = zipOf(t, minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c>`+
		`<c r="ZZ1" t="inlineStr"><is><t>far</t></is></c></row>`))
	_, err = ReadFile("w.xlsx", data, "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "Line 1 has more than 500 columns")
}

func TestReadXLSXDamaged(t *testing.T) {
	good := xlsxOf(t, [][]any{{"Address", "City"}, {"1 Main St", "Springfield"}, {"2 Oak Ave", "Salem"}})
	for _, n := range []int{0, 4, 30, len(good) / 3, len(good) / 2, len(good) - 30, len(good) - 1} {
		_, err := ReadFile("t.xlsx", good[:n], "enterprise")
		if err == nil {
			t.Errorf("truncated to %d bytes: no error", n)
			continue
		}
		e, ok := apperr.As(err)
		if !ok || e.Kind != apperr.KindInvalid || e.Field != "file" {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
	// Bad XML inside a sound zip.
	for _, sheet := range []string{`<row r="1"><c r="A1" t="s"><v>7</v></c></row>`, // no shared strings
		`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row><row r="2"><c r="A2"`,
		`<row r="1"><c r="!!" t="inlineStr"><is><t>Address</t></is></c></row>`} {
		tbl, err := ReadFile("bad.xlsx", zipOf(t, minimalXLSX(sheet)), "enterprise")
		if err == nil {
			t.Logf("sheet %q read as %+v", sheet, tbl) // excelize is lenient with some damage; not crashing is the point
			continue
		}
		if _, ok := apperr.As(err); !ok {
			t.Errorf("sheet %q: %v", sheet, err)
		}
	}
}

// rawEntry is a zip entry whose declared sizes and compressed data are given as they are, true or not.
type rawEntry struct {
	name         string
	declaredSize uint64
	data         []byte // deflated
	crc          uint32
}

func zipRaw(t testing.TB, files map[string]string, raw ...rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(files[name]))
	}
	for _, r := range raw {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: r.name, Method: zip.Deflate, CRC32: r.crc,
			CompressedSize64: uint64(len(r.data)), UncompressedSize64: r.declaredSize})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(r.data)
	}
	_ = zw.Close()
	return buf.Bytes()
}

func deflate(t testing.TB, chunk []byte, times int) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestSpeed)
	for range times {
		_, _ = fw.Write(chunk)
	}
	_ = fw.Close()
	return buf.Bytes()
}

func TestReadXLSXZipBomb(t *testing.T) {
	parts := minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row>`)
	sheet := parts["xl/worksheets/sheet1.xml"]
	delete(parts, "xl/worksheets/sheet1.xml")
	small := deflate(t, []byte(sheet), 1)

	// Sizes that are declared honestly are refused before anything is inflated.
	for _, tt := range []struct {
		name string
		size uint64
	}{
		{"xl/worksheets/sheet1.xml", 1 << 30},
		{"xl/worksheets/sheet1.xml", xlsxMaxSheet + 1},
		{"xl/sharedStrings.xml", xlsxMaxStrings + 1},
		{"xl/styles.xml", xlsxMaxPart + 1},
		{"xl/media/image1.png", xlsxMaxTotal + 1},
	} {
		raw := []rawEntry{{name: tt.name, declaredSize: tt.size, data: small}}
		if tt.name != "xl/worksheets/sheet1.xml" {
			raw = append(raw, rawEntry{name: "xl/worksheets/sheet1.xml", declaredSize: uint64(len(sheet)),
				data: small, crc: crc32.ChecksumIEEE([]byte(sheet))})
		}
		var err error
		n := allocated(func() { _, err = ReadFile("bomb.xlsx", zipRaw(t, parts, raw...), "enterprise") })
		wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "too large to read once unzipped")
		if n > 8<<20 {
			t.Errorf("%s of %d bytes: allocated %d MB", tt.name, tt.size, n>>20)
		}
	}

	// A sheet that inflates to 48 MB but declares 1 KB: archive/zip stops at the declared size, so the bomb
	// never inflates; what is read is a damaged sheet.
	bomb := deflate(t, bytes.Repeat([]byte("<row/>"), 1<<20), 8) // 48 MB of XML
	data := zipRaw(t, parts, rawEntry{name: "xl/worksheets/sheet1.xml", declaredSize: 1024, data: bomb})
	var err error
	n := allocated(func() { _, err = ReadFile("bomb.xlsx", data, "enterprise") })
	t.Logf("bomb: %d KB of zip, %d KB allocated reading it", len(data)>>10, n>>10)
	if _, ok := apperr.As(err); !ok {
		t.Errorf("bomb: error = %v, want a file error", err)
	}
	if n > 16<<20 {
		t.Errorf("bomb: allocated %d MB", n>>20)
	}
}

func TestReadXLSXPasswordProtected(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	_ = f.SetSheetRow("Sheet1", "A1", &[]any{"Address"})
	_ = f.SetSheetRow("Sheet1", "A2", &[]any{"1 Main St"})
	var buf bytes.Buffer
	if err := f.Write(&buf, excelize.Options{Password: "secret"}); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile("locked.xlsx", buf.Bytes(), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "protected with a password")
}

func TestWholeNumber(t *testing.T) {
	for in, want := range map[string]string{"98103.0": "98103", "98103.000": "98103", "-5.0": "-5", "2.5": "2.5",
		"98103": "98103", "1.0.0": "1.0.0", ".0": ".0", "abc.0": "abc.0", "": ""} {
		if got := wholeNumber(in); got != want {
			t.Errorf("wholeNumber(%q) = %q, want %q", in, got, want)
		}
	}
	if got := wholeNumber(strings.Repeat("9", 50) + ".0"); got != strings.Repeat("9", 50)+".0" {
		t.Errorf("a 50-digit number changed: %q", got)
	}
}

// A sheet past the limits is an error even when a later sheet would do.
func TestReadXLSXLimitsStopAtTheFirstSheet(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= PlanLimit("enterprise")+2; i++ {
		cell, _ := excelize.CoordinatesToCellName(1, i)
		if err := sw.SetRow(cell, []any{"1 Main St"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewSheet("Small"); err != nil {
		t.Fatal(err)
	}
	_ = f.SetSheetRow("Small", "A1", &[]any{"Address"})
	_ = f.SetSheetRow("Small", "A2", &[]any{"1 Main St"})
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile("big.xlsx", buf.Bytes(), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "batch_too_large", "Too Many Properties", "more than 50,000 rows")
}
