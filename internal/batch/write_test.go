package batch

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

func p[T any](v T) *T { return &v }

var sampleResults = []Result{
	{Line: 2, Address: "7006 MAPLE RD", FullAddress: "7006 MAPLE RD, SEATTLE, WA 98103", Status: RowSuccess,
		EstimatedValue: p[int64](812000), ValueLow: p[int64](760000), ValueHigh: p[int64](870000),
		Confidence: p(0.87), ConfidenceLevel: p("High"), FSD: p(0.13), WithinTenPercent: p(0.62),
		ValuationDate: p("2026-03-01"), IsDemo: p(true), PricePerSqFt: p[int64](540), RentEstimate: p[int64](3400), Bedrooms: p(3.0),
		Bathrooms: p(2.5), SquareFeet: p[int64](1504), YearBuilt: p[int64](1925), LotSize: p[int64](4000),
		PropertyType: "Townhouse", ImageURL: "https://example.com/a.jpg", MatchCode: "exact"},
	// Text from the uploaded file that a spreadsheet would run as a formula.
	{Line: 3, Address: `=HYPERLINK("http://evil","x")`, FullAddress: "+1 Main St", Status: RowFailed,
		Reason: p(ReasonInvalid), Error: "@SUM(A1) is not an address", PropertyType: "-cmd", MatchCode: "\tx"},
	{Line: 4, Address: "-5", Status: RowPending},
}

var wantHeader = []string{"Line", "Address", "Full Address", "Status", "Estimated Value", "Value Low", "Value High",
	"Confidence", "Confidence Level", "FSD", "Within 10%", "Valuation Date", "Price Per Sq Ft", "Rent Estimate", "Bedrooms",
	"Bathrooms", "Square Feet", "Year Built", "Lot Size (sq ft)", "Property Type", "Match Code", "Demo Data", "Warning",
	"Image URL", "Reason", "Error"}

func TestWriteCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, Slice(sampleResults)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\r\n") {
		t.Error("lines do not end in CRLF")
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || !reflect.DeepEqual(recs[0], wantHeader) {
		t.Fatalf("header = %q (%d records)", recs[0], len(recs))
	}
	want := []string{"2", "7006 MAPLE RD", "7006 MAPLE RD, SEATTLE, WA 98103", "success", "812000", "760000",
		"870000", "0.87", "High", "0.13", "0.62", "2026-03-01", "540", "3400", "3", "2.5", "1504", "1925", "4000",
		"Townhouse", "exact", "Yes", "", "https://example.com/a.jpg", "", ""}
	if !reflect.DeepEqual(recs[1], want) {
		t.Errorf("row = %q, want %q", recs[1], want)
	}
	bad := recs[2]
	if bad[24] != "invalid" || bad[21] != "" {
		t.Errorf("reason = %q, demo %q; want invalid and nothing (not valued)", bad[24], bad[21])
	}
	for _, c := range []string{bad[1], bad[2], bad[19], bad[20], bad[25]} {
		if !strings.HasPrefix(c, "'") {
			t.Errorf("cell %q is not protected against formula injection", c)
		}
	}
	if bad[4] != "" || bad[7] != "" {
		t.Errorf("unknown numbers = %q, %q, want empty", bad[4], bad[7])
	}
	if recs[3][1] != "-5" {
		t.Errorf("a negative number as text = %q, want it as written", recs[3][1])
	}
}

func TestWriteXLSX(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, Slice(sampleResults)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{"Results"}) {
		t.Fatalf("sheets = %q", got)
	}
	rows, err := f.GetRows("Results", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || !reflect.DeepEqual(rows[0], wantHeader) {
		t.Fatalf("header = %q (%d rows)", rows[0], len(rows))
	}
	if rows[1][4] != "812000" || rows[1][15] != "2.5" || rows[1][7] != "0.87" || rows[1][9] != "0.13" || rows[1][21] != "Yes" {
		t.Errorf("row = %q", rows[1])
	}
	// Numbers are numeric cells, money formatted; unknown numbers are empty cells.
	for _, c := range []string{"A2", "E2", "H2", "M2", "O2"} {
		if typ, _ := f.GetCellType("Results", c); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
			t.Errorf("%s is of type %v, want a number", c, typ)
		}
		if v, _ := f.GetCellValue("Results", c, excelize.Options{RawCellValue: true}); v == "" {
			t.Errorf("%s is empty", c)
		}
	}
	if v, _ := f.GetCellValue("Results", "E2"); v != "$812,000" {
		t.Errorf("E2 shows %q, want $812,000", v)
	}
	if v, _ := f.GetCellValue("Results", "E3"); v != "" {
		t.Errorf("E3 = %q, want empty", v)
	}
	// Text that looks like a formula is text, protected, and no cell has a formula.
	for _, c := range []string{"B3", "C3", "T3", "U3", "Z3"} {
		v, _ := f.GetCellValue("Results", c)
		if !strings.HasPrefix(v, "'") {
			t.Errorf("%s = %q, not protected against formula injection", c, v)
		}
		if formula, _ := f.GetCellFormula("Results", c); formula != "" {
			t.Errorf("%s has formula %q", c, formula)
		}
	}
	// A bold header, frozen, and columns wide enough for addresses.
	style, _ := f.GetCellStyle("Results", "A1")
	if s, err := f.GetStyle(style); err != nil || s.Font == nil || !s.Font.Bold {
		t.Errorf("header style = %+v, %v", s, err)
	}
	if w, _ := f.GetColWidth("Results", "C"); w < 40 {
		t.Errorf("Full Address width = %v", w)
	}
	if panes, err := f.GetPanes("Results"); err != nil || !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("panes = %+v, %v", panes, err)
	}
	// Our own reader reads the results file back.
	buf.Reset()
	_ = WriteXLSX(&buf, Slice(sampleResults))
	tbl, err := ReadFile("results.xlsx", buf.Bytes(), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Rows) != 3 || tbl.Rows[0][2] != "7006 MAPLE RD, SEATTLE, WA 98103" {
		t.Errorf("read back = %q", tbl.Rows)
	}
}

func TestWriteEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, Slice(nil)); err != nil || strings.Count(buf.String(), "\r\n") != 1 {
		t.Errorf("WriteCSV(nil) = %q, %v", buf.String(), err)
	}
	buf.Reset()
	if err := WriteXLSX(&buf, Slice(nil)); err != nil || buf.Len() == 0 {
		t.Errorf("WriteXLSX(nil) = %d bytes, %v", buf.Len(), err)
	}
}

func TestResultJSON(t *testing.T) {
	b, err := json.Marshal(sampleResults[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	want := []string{"address", "bathrooms", "bedrooms", "confidence", "confidenceLevel", "error", "estimatedValue", "fsd",
		"fullAddress", "imageUrl", "isDemo", "line", "lotSize", "matchCode", "pricePerSqFt", "propertyType", "reason",
		"rentEstimate", "squareFeet", "status", "valuationDate", "valueHigh", "valueLow", "warning", "withinTenPercent",
		"yearBuilt"}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON keys = %q, want %q", got, want)
	}
	b, _ = json.Marshal(Row{Line: 2, Address: "1 Main St", City: "Springfield", State: "IL", ZIP: "62704"})
	if string(b) != `{"line":2,"address":"1 Main St","city":"Springfield","state":"IL","zip":"62704"}` {
		t.Errorf("Row JSON = %s", b)
	}
}

// The template reads back, maps itself and gives its five addresses.
func TestExampleCSV(t *testing.T) {
	tbl, err := ReadFile("valuator-batch-example.csv", ExampleCSV(), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := Detect(tbl)
	if err := m.Validate(tbl.Headers); err != nil {
		t.Fatalf("mapping %v: %v", m, err)
	}
	rows, dropped := Apply(tbl, m)
	if len(rows) != 5 || dropped != 0 {
		t.Fatalf("rows = %+v, dropped %d", rows, dropped)
	}
	if rows[0] != (Row{Line: 2, Address: "7006 MAPLE RD", City: "SEATTLE", State: "WA", ZIP: "98103"}) {
		t.Errorf("first row = %+v", rows[0])
	}
	for _, r := range rows {
		if r.Address == "" || r.City == "" || r.State == "" || len(r.ZIP) != 5 {
			t.Errorf("incomplete row %+v", r)
		}
	}
}

// generated yields n results made on the fly, failing with fail after failAt rows when failAt > 0: a job's rows as
// the server reads them page by page, never held all at once.
func generated(n, failAt int, fail error) iter.Seq2[Result, error] {
	return func(yield func(Result, error) bool) {
		for i := 0; i < n; i++ {
			if failAt > 0 && i == failAt {
				yield(Result{}, fail)
				return
			}
			r := sampleResults[i%len(sampleResults)]
			r.Line = i + 2
			if !yield(r, nil) {
				return
			}
		}
	}
}

// excelizeTemps lists the temporary files excelize has in dir.
func excelizeTemps(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "excelize-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// onFirstWrite calls f before its first write.
type onFirstWrite struct {
	bytes.Buffer
	f    func()
	done bool
}

func (w *onFirstWrite) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		w.f()
	}
	return w.Buffer.Write(p)
}

// TestWriteXLSXRemovesItsTemporaryFile: a sheet of 50,000 rows is past excelize's 16 MB in memory, so it is spilled
// to a temporary file while the workbook is written; the file is gone once WriteXLSX returns, written or failed.
func TestWriteXLSXRemovesItsTemporaryFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var spilled []string
	out := &onFirstWrite{f: func() { spilled = excelizeTemps(t, tmp) }}
	if err := WriteXLSX(out, generated(50000, 0, nil)); err != nil {
		t.Fatal(err)
	}
	if len(spilled) == 0 {
		t.Error("the sheet of 50,000 rows was not spilled to a temporary file: this test no longer checks its removal")
	}
	if left := excelizeTemps(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	f, err := excelize.OpenReader(&out.Buffer)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.GetCellValue("Results", "A50001"); v != "50001" {
		t.Errorf("last row's line = %q, want 50001", v)
	}
	f.Close() // reading a large sheet makes temporary files of its own

	// The rows fail part way, after the spill: the error comes back, and the temporary file is still removed.
	failed := errors.New("the database went away")
	out.Reset()
	if err := WriteXLSX(&out.Buffer, generated(50000, 45000, failed)); !errors.Is(err, failed) {
		t.Errorf("WriteXLSX = %v, want the rows' error", err)
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes of a workbook written for rows that failed", out.Len())
	}
	if left := excelizeTemps(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left behind after a failure: %v", left)
	}
}

// TestWriteCSVStreams: CSV rows are written as they come from the iterator, and its error stops the file.
func TestWriteCSVStreams(t *testing.T) {
	pulled := 0
	var writtenAt []int // rows pulled when each write reached the writer
	rows := func(yield func(Result, error) bool) {
		for r := range generated(20000, 0, nil) {
			pulled++
			if !yield(r, nil) {
				return
			}
		}
	}
	w := writerFunc(func(p []byte) (int, error) {
		writtenAt = append(writtenAt, pulled)
		return len(p), nil
	})
	if err := WriteCSV(w, rows); err != nil {
		t.Fatal(err)
	}
	if len(writtenAt) < 10 || writtenAt[0] >= 1000 {
		t.Errorf("the first bytes were written after %v rows were pulled, want them written as rows come", writtenAt[:min(3, len(writtenAt))])
	}
	failed := errors.New("the database went away")
	var buf bytes.Buffer
	if err := WriteCSV(&buf, generated(100, 50, failed)); !errors.Is(err, failed) {
		t.Errorf("WriteCSV = %v, want the rows' error", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
