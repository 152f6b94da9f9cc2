package batch

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"

	"valuator/internal/apperr"
)

// wantFileError checks that err is the file error with this kind, code, title, and a message containing msg.
func wantFileError(t *testing.T, err error, kind apperr.Kind, code, title, msg string) {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok {
		t.Fatalf("error = %v (%T), want *apperr.Error", err, err)
	}
	if e.Kind != kind || e.Code != code || e.Field != "file" || e.Extra["title"] != title {
		t.Errorf("error = kind %v code %q field %q title %v, want kind %v code %q field file title %q",
			e.Kind, e.Code, e.Field, e.Extra["title"], kind, code, title)
	}
	if !strings.Contains(e.Message, msg) {
		t.Errorf("message = %q, want it to contain %q", e.Message, msg)
	}
	if e.Fields["file"] != e.Message {
		t.Errorf("Fields[file] = %q, want the message", e.Fields["file"])
	}
}

func TestReadFileErrors(t *testing.T) {
	big := bytes.Repeat([]byte("a"), MaxFileBytes+1)
	rows := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("Address,City,State,Zip\n")
		for i := range n {
			b.WriteString("1 Main St,Springfield,IL,62704")
			if i%2 == 0 {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
		}
		return b.Bytes()
	}
	tests := []struct {
		name, file string
		data       []byte
		kind       apperr.Kind
		code       string
		title      string
		msg        string
	}{
		{"text file", "props.txt", []byte("a,b\n1,2\n"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "Please upload a CSV or Excel file"},
		{"no extension", "props", []byte("a,b\n1,2\n"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "Please upload a CSV or Excel file"},
		{"pdf", "C:\\Users\\me\\props.PDF", []byte("%PDF"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "Please upload a CSV or Excel file"},
		{"csv in a path is still csv but .csv.txt is not", "x.csv.txt", []byte("a"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "Please upload a CSV or Excel file"},
		{"too large", "big.csv", big, apperr.KindTooLarge, "file_too_large", "File Too Large", "Please upload a file smaller than 50MB"},
		{"too large xlsx", "big.xlsx", big, apperr.KindTooLarge, "file_too_large", "File Too Large", "Please upload a file smaller than 50MB"},
		{"zero bytes", "empty.csv", nil, apperr.KindInvalid, "empty_file", "Empty File", "CSV file is empty"},
		{"only a BOM", "bom.csv", []byte("\xEF\xBB\xBF"), apperr.KindInvalid, "empty_file", "Empty File", "CSV file is empty"},
		{"only white space", "ws.csv", []byte(" \r\n\t\n  \n"), apperr.KindInvalid, "empty_file", "Empty File", "CSV file is empty"},
		{"only separators", "seps.csv", []byte(",,,\n,,\n"), apperr.KindInvalid, "empty_file", "Empty File", "CSV file is empty"},
		{"empty excel", "empty.xlsx", nil, apperr.KindInvalid, "empty_file", "Empty File", "Excel file is empty"},
		{"empty xls", "empty.XLS", []byte{}, apperr.KindInvalid, "empty_file", "Empty File", "Excel file is empty"},
		{"header only", "h.csv", []byte("Address,City,State,Zip\n"), apperr.KindInvalid, "no_data_rows", "Empty File", "The uploaded file contains no data rows"},
		{"header and blank rows", "h.csv", []byte("Address,City\r\n\r\n , \r\n,\r\n"), apperr.KindInvalid, "no_data_rows", "Empty File", "The uploaded file contains no data rows"},
		{"binary junk", "junk.csv", []byte("\x00\x01\x02\x03PK\x00\x00junk"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "This file does not look like a CSV text file. Please upload a CSV or Excel file."},
		{"image named .csv", "junk.csv", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "This file is an image, not a CSV or Excel file. Please upload a CSV or Excel file."},
		{"text-only PDF named .csv", "homes.csv", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "This file is a PDF document"},
		{"RTF named .csv", "homes.csv", []byte(`{\rtf1\ansi Address, City}`), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "a Word (RTF) document"},
		{"program named .xlsx", "homes.xlsx", append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00"), bytes.Repeat([]byte("This program cannot be run in DOS mode.\n"), 4)...), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "does not look like a CSV text file"},
		{"NUL bytes in an otherwise readable CSV", "homes.csv", []byte("Address,City\n1 Main St\x00,Springfield\n"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "does not look like a CSV text file"},
		{"control characters", "junk.csv", []byte("a\x01b\x02c\x03d\x04,e\x05\n"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "This file does not look like a CSV text file"},
		{"UTF-16 with NULs inside", "u.csv", append([]byte{0xFF, 0xFE}, 'a', 0, 0, 0, 'b', 0), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "This file does not look like a CSV text file"},
		{"unclosed quote", "q.csv", []byte("Address,City\n1 Main St,Springfield\n\"2 Oak Ave,Springfield\n"), apperr.KindInvalid, "parse_error", "Parse Error", "Line 3: a quoted value is not closed"},
		{"html saved as xls", "export.xls", []byte("\n<html><body><table><tr><td>Address</td></tr></table></body></html>"), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "web page"},
		{"xml spreadsheet", "export.xls", []byte(`<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>`), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "web page or XML file"},
		{"too many rows", "many.csv", rows(PlanLimit("enterprise") + 1), apperr.KindInvalid, "batch_too_large", "Too Many Properties", "more than 50,000 rows"},
		{"too many columns", "wide.csv", []byte(strings.Repeat("a,", maxColumns) + "a\n1\n"), apperr.KindInvalid, "parse_error", "Parse Error", "Line 1 has more than 500 columns"},
		{"not a workbook zip", "x.xlsx", zipOf(t, map[string]string{"word/document.xml": "<w/>"}), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "zip archive, not an Excel workbook"},
		{"a zip renamed .csv", "homes.csv", zipOf(t, map[string]string{"photos/1.jpg": "x"}), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "zip archive, not an Excel workbook"},
		{"another Office document renamed .xls", "homes.xls", otherCompoundFile(), apperr.KindUnsupportedMediaType, "invalid_file_type", "Invalid File Type", "not an Excel workbook"},
		// Files of the right kind that cannot be read stay 400: the person must fix the file, not pick another.
		{"damaged workbook zip", "x.xlsx", zipOf(t, map[string]string{"xl/workbook.xml": "<workbook"}), apperr.KindInvalid, "parse_error", "Parse Error", "not a valid Excel workbook"},
		{"truncated zip", "x.xlsx", zipOf(t, map[string]string{"xl/workbook.xml": "<workbook/>"})[:30], apperr.KindInvalid, "parse_error", "Parse Error", "not a valid Excel workbook"},
		{"not an OLE workbook", "x.xls", oleMagic, apperr.KindInvalid, "parse_error", "Parse Error", "could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, err := ReadFile(tt.file, tt.data, "enterprise")
			if err == nil {
				t.Fatalf("ReadFile = %+v, want an error", tbl)
			}
			wantFileError(t, err, tt.kind, tt.code, tt.title, tt.msg)
		})
	}
}

// otherCompoundFile is an OLE compound file without a workbook stream, as a Word .doc or an Outlook .msg is.
func otherCompoundFile() []byte {
	f := cfbOf([]byte("not a workbook"))
	utf16 := func(s string) []byte {
		var b []byte
		for _, c := range s {
			b = append(b, byte(c), 0)
		}
		return b
	}
	return bytes.Replace(f, utf16("Workbook"), utf16("Contents"), 1)
}

func TestReadFileRowLimitIsExact(t *testing.T) {
	var b strings.Builder
	b.WriteString("Address\n")
	for range PlanLimit("enterprise") {
		b.WriteString("1 Main St\n")
	}
	tbl, err := ReadFile("ok.csv", []byte(b.String()), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Rows) != PlanLimit("enterprise") {
		t.Errorf("rows = %d, want %d", len(tbl.Rows), PlanLimit("enterprise"))
	}
}

func TestReadCSVDialects(t *testing.T) {
	win1252 := []byte("Address;City\r\n12 Caf\xe9 Ln;Espa\xf1ola\r\n\x93Quoted\x94 St \x96 Rear;Town\r\n")
	tests := []struct {
		name    string
		in      string
		headers []string
		rows    [][]string
		lines   []int
		blank   int
	}{
		{"comma LF", "Address,City\n1 Main St,Springfield\n2 Oak Ave,Salem\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}, {"2 Oak Ave", "Salem"}}, []int{2, 3}, 0},
		{"CRLF without final newline", "Address,City\r\n1 Main St,Springfield\r\n2 Oak Ave,Salem",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}, {"2 Oak Ave", "Salem"}}, []int{2, 3}, 0},
		{"CR only (old Mac)", "Address,City\r1 Main St,Springfield\r2 Oak Ave,Salem\r",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}, {"2 Oak Ave", "Salem"}}, []int{2, 3}, 0},
		{"UTF-8 BOM", "\xEF\xBB\xBFAddress,City\n1 Main St,Springfield\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}}, []int{2}, 0},
		{"semicolon", "Address;City;Zip\n1 Main St, Apt 2;Springfield;62704\n",
			[]string{"Address", "City", "Zip"}, [][]string{{"1 Main St, Apt 2", "Springfield", "62704"}}, []int{2}, 0},
		{"tab", "Address\tCity\tZip\n1 Main St, Apt 2\tSpringfield\t62704\n",
			[]string{"Address", "City", "Zip"}, [][]string{{"1 Main St, Apt 2", "Springfield", "62704"}}, []int{2}, 0},
		{"pipe", "Address|City\n1 Main St|Springfield\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}}, []int{2}, 0},
		{"quoted separators and doubled quotes", "Address,Note\n\"1 Main St, Apt 2\",\"say \"\"hi\"\"\"\n",
			[]string{"Address", "Note"}, [][]string{{"1 Main St, Apt 2", `say "hi"`}}, []int{2}, 0},
		{"embedded newline keeps line numbers", "Address,City\n\"1 Main St\r\nApt 2\",Springfield\n2 Oak Ave,Salem\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St\nApt 2", "Springfield"}, {"2 Oak Ave", "Salem"}}, []int{2, 4}, 0},
		{"quoted header with newline", "\"Property\nAddress\",City\n1 Main St,Springfield\n",
			[]string{"Property Address", "City"}, [][]string{{"1 Main St", "Springfield"}}, []int{3}, 0},
		{"blank rows dropped and counted", "\n\nAddress,City\n\n1 Main St,Springfield\n , \n2 Oak Ave,Salem\n\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}, {"2 Oak Ave", "Salem"}}, []int{5, 7}, 3},
		{"cells trimmed, NBSP and zero-width space too", "Address , City\n  1 Main St\u00a0,\u200bSpringfield \n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}}, []int{2}, 0},
		{"blanks before an opening quote", "Address, City\n\"1 Main St\",  \"Springfield, Town\"\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield, Town"}}, []int{2}, 0},
		{"lazy quotes", "Address,Note\n\"12\" Pine St,5\" wide\n",
			[]string{"Address", "Note"}, [][]string{{"12 Pine St", `5" wide`}}, []int{2}, 0},
		{"short rows padded, long rows truncated", "A,B,C\n1\n1,2,3,4,5\n",
			[]string{"A", "B", "C"}, [][]string{{"1", "", ""}, {"1", "2", "3"}}, []int{2, 3}, 0},
		{"blank and duplicate headers", "Address,,address,City,Address\n1,2,3,4,5\n",
			[]string{"Address", "Column 2", "address (2)", "City", "Address (3)"}, [][]string{{"1", "2", "3", "4", "5"}}, []int{2}, 0},
		{"trailing unnamed empty columns dropped", "Address,City,,\n1 Main St,Springfield,,\n",
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}}, []int{2}, 0},
		{"trailing unnamed column with data kept", "Address,City,\n1 Main St,Springfield,note\n",
			[]string{"Address", "City", "Column 3"}, [][]string{{"1 Main St", "Springfield", "note"}}, []int{2}, 0},
		{"one column of unquoted full addresses", "Address\n7006 Maple Rd, Seattle, WA 98103\n\"1 Main St, Springfield, IL 62704\"\n",
			[]string{"Address"}, [][]string{{"7006 Maple Rd, Seattle, WA 98103"}, {"1 Main St, Springfield, IL 62704"}}, []int{2, 3}, 0},
		{"Windows-1252", string(win1252),
			[]string{"Address", "City"}, [][]string{{"12 Café Ln", "Española"}, {"\u201cQuoted\u201d St \u2013 Rear", "Town"}}, []int{2, 3}, 0},
		{"UTF-8 and Windows-1252 mixed", "Address,City\n1 Caf\u00e9 Ln,Espa\xf1ola\n",
			[]string{"Address", "City"}, [][]string{{"1 Café Ln", "Española"}}, []int{2}, 0},
		{"UTF-16LE with BOM (Excel Unicode Text)", utf16le("Address\tCity\r\n1 Café Ln\tSpringfield\r\n"),
			[]string{"Address", "City"}, [][]string{{"1 Café Ln", "Springfield"}}, []int{2}, 0},
		{"UTF-16BE with BOM", utf16be("Address,City\n1 Main St,Springfield\n"),
			[]string{"Address", "City"}, [][]string{{"1 Main St", "Springfield"}}, []int{2}, 0},
		{"separator chosen by consistency", "Name;Address, line;City\nA;1 Main St, Apt 2;Springfield\nB;2 Oak;Salem\n",
			[]string{"Name", "Address, line", "City"}, [][]string{{"A", "1 Main St, Apt 2", "Springfield"}, {"B", "2 Oak", "Salem"}}, []int{2, 3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, err := ReadFile("upload.csv", []byte(tt.in), "enterprise")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tbl.Headers, tt.headers) {
				t.Errorf("headers = %q, want %q", tbl.Headers, tt.headers)
			}
			if !reflect.DeepEqual(tbl.Rows, tt.rows) {
				t.Errorf("rows = %q, want %q", tbl.Rows, tt.rows)
			}
			if !reflect.DeepEqual(tbl.Line, tt.lines) {
				t.Errorf("lines = %v, want %v", tbl.Line, tt.lines)
			}
			if tbl.BlankRows != tt.blank {
				t.Errorf("blank rows = %d, want %d", tbl.BlankRows, tt.blank)
			}
		})
	}
}

func utf16le(s string) string { return utf16With(s, binary.LittleEndian, []byte{0xFF, 0xFE}) }
func utf16be(s string) string { return utf16With(s, binary.BigEndian, []byte{0xFE, 0xFF}) }

func utf16With(s string, order binary.AppendByteOrder, bom []byte) string {
	b := append([]byte{}, bom...)
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return string(b)
}

func TestReadFileSniffsContent(t *testing.T) {
	// Tab-separated text saved as .xls, as some web applications export it.
	tbl, err := ReadFile("export.xls", []byte("Address\tCity\n1 Main St\tSpringfield\n"), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if got := tbl.Rows[0][1]; got != "Springfield" {
		t.Errorf("city = %q", got)
	}
	// A workbook renamed to .csv.
	tbl, err = ReadFile("renamed.csv", xlsxOf(t, [][]any{{"Address", "Zip"}, {"1 Main St", 62704}}), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if got := tbl.Rows[0][1]; got != "62704" {
		t.Errorf("zip = %q", got)
	}
}

// allocated runs f and returns the bytes it allocated (all of them, whether or not they were freed since).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 10 MB file of one line must give a clear error and take little more memory than itself.
func TestReadCSVHugeSingleLine(t *testing.T) {
	const size = 10 << 20
	tests := []struct {
		name string
		data []byte
		msg  string
	}{
		{"one value", bytes.Repeat([]byte("a"), size), "Line 1: a value is longer than 64 KB"},
		{"many columns", bytes.Repeat([]byte("ab,"), size/3), "Line 1 has more than 500 columns"},
		{"an unclosed quote", append([]byte(`Address,"`), bytes.Repeat([]byte("a"), size)...), "Line 1: a quoted value is not closed"},
		{"a quote closed too late", append(append([]byte(`Address,"`), bytes.Repeat([]byte("a\n"), size/2)...), '"'), "Line 1: a value is longer than 64 KB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = ReadFile("line.csv", tt.data, "enterprise") })
			wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", tt.msg)
			if n > 3*size {
				t.Errorf("allocated %d MB reading a %d MB line", n>>20, size>>20)
			}
		})
	}
	// Only separators: trailing empty cells past the column limit are ignored, and the file is empty.
	_, err := ReadFile("commas.csv", bytes.Repeat([]byte(","), size), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "empty_file", "Empty File", "CSV file is empty")
}

func TestBuilderCellLimit(t *testing.T) {
	b := newBuilder(msgEmptyCSV, "enterprise")
	rec := make([]string, maxColumns)
	for i := range rec {
		rec[i] = "x"
	}
	var err error
	for line := 1; err == nil && line <= PlanLimit("enterprise"); line++ {
		err = b.add(line, rec)
	}
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "too much data")
}

func TestPlanLimitAndCheckSize(t *testing.T) {
	for plan, want := range map[string]int{"free": 100, "basic": 1000, "Professional": 10000, " enterprise ": 50000,
		"": 100, "platinum": 100} {
		if got := PlanLimit(plan); got != want {
			t.Errorf("PlanLimit(%q) = %d, want %d", plan, got, want)
		}
	}
	if err := CheckSize(100, "free"); err != nil {
		t.Errorf("CheckSize(100, free) = %v", err)
	}
	if err := CheckSize(50000, "enterprise"); err != nil {
		t.Errorf("CheckSize(50000, enterprise) = %v", err)
	}
	tests := []struct {
		rows int
		plan string
		msg  string
	}{
		{250, "free", "Your Free plan allows up to 100 properties per upload; this file has 250. Split the file or upgrade your plan."},
		{250, "", "Your Free plan allows up to 100 properties per upload; this file has 250. Split the file or upgrade your plan."},
		{1001, "basic", "Your Basic plan allows up to 1,000 properties per upload; this file has 1,001. Split the file or upgrade your plan."},
		{12000, "professional", "Your Professional plan allows up to 10,000 properties per upload; this file has 12,000. Split the file or upgrade your plan."},
		{55000, "enterprise", "Your Enterprise plan allows up to 50,000 properties per upload; this file has 55,000. Split the file."},
	}
	for _, tt := range tests {
		err := CheckSize(tt.rows, tt.plan)
		wantFileError(t, err, apperr.KindInvalid, "batch_too_large", "Too Many Properties", tt.msg)
		if e, _ := apperr.As(err); e.Message != tt.msg {
			t.Errorf("message = %q, want %q", e.Message, tt.msg)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -50000: "-50,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestExtension(t *testing.T) {
	for name, want := range map[string]string{"a.CSV": ".csv", `C:\x\y.Xlsx`: ".xlsx", "/tmp/a.b.xls": ".xls",
		"a.csv ": ".csv", "noext": "", ".csv": ".csv", "dir.csv/file": ""} {
		if got := extension(name); got != want {
			t.Errorf("extension(%q) = %q, want %q", name, got, want)
		}
	}
}
