package batch

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"valuator/internal/apperr"
	"valuator/internal/text"
)

// rowsCSV is a CSV of an Address header and n data rows.
func rowsCSV(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Address,City\n")
	for i := range n {
		fmt.Fprintf(&b, "%d Main St,Springfield\n", i+1)
	}
	return b.Bytes()
}

// rowsXLSX is a workbook of an Address header and n data rows, with shared strings.
func rowsXLSX(t testing.TB, n int) []byte {
	rows := [][]any{{"Address", "City"}}
	for i := range n {
		rows = append(rows, []any{fmt.Sprintf("%d Main St", i+1), "Springfield"})
	}
	return xlsxOf(t, rows)
}

// rowsXLS is an .xls workbook of an Address header and n data rows.
func rowsXLS(n int) []byte {
	var w biff
	w.rec(recBOF, u16(0x0600), u16(0x0005), make([]byte, 12))
	sheetAt := w.rec(recBoundSheet, u32(0), []byte{0, 0}, []byte{6, 0}, []byte("Sheet1"))
	w.rec(recEOF)
	putU32(w.b[sheetAt+4:], uint32(len(w.b)))
	w.rec(recBOF, u16(0x0600), u16(0x0010), make([]byte, 12))
	w.rec(recLabel, cell(0, 0, 0), xlString("Address", false))
	for r := 1; r <= n; r++ {
		w.rec(recLabel, cell(uint16(r), 0, 0), xlString(fmt.Sprintf("%d Main St", r), false))
	}
	w.rec(recEOF)
	return cfbOf(w.b)
}

func putU32(b []byte, v uint32) { copy(b, u32(v)) }

// Reading stops at the first data row past the plan's limit, with CheckSize's message; a file at the limit is
// read whole. Blank rows do not count.
func TestReadFilePlanLimit(t *testing.T) {
	formats := []struct {
		name string
		file string
		data func(n int) []byte
	}{
		{"csv", "p.csv", rowsCSV},
		{"xlsx", "p.xlsx", func(n int) []byte { return rowsXLSX(t, n) }},
		{"xls", "p.xls", rowsXLS},
	}
	plans := []struct {
		plan  string
		limit int
		msg   string
	}{
		{"free", 100, "Your Free plan allows up to 100 properties per upload; this file has more than 100 rows. Split the file or upgrade your plan."},
		{"", 100, "Your Free plan allows up to 100 properties per upload; this file has more than 100 rows. Split the file or upgrade your plan."},
		{"basic", 1000, "Your Basic plan allows up to 1,000 properties per upload; this file has more than 1,000 rows. Split the file or upgrade your plan."},
	}
	for _, f := range formats {
		for _, p := range plans {
			t.Run(f.name+" "+p.plan, func(t *testing.T) {
				tbl, err := ReadFile(f.file, f.data(p.limit), p.plan)
				if err != nil {
					t.Fatalf("%d rows on %q: %v", p.limit, p.plan, err)
				}
				if len(tbl.Rows) != p.limit {
					t.Errorf("rows = %d, want %d", len(tbl.Rows), p.limit)
				}
				_, err = ReadFile(f.file, f.data(p.limit+1), p.plan)
				wantFileError(t, err, apperr.KindInvalid, "batch_too_large", "Too Many Properties", p.msg)
				if e, _ := apperr.As(err); e != nil && (e.Message != p.msg || e.Extra["limit"] != p.limit) {
					t.Errorf("error = %q limit %v, want %q limit %d", e.Message, e.Extra["limit"], p.msg, p.limit)
				}
			})
		}
	}
	// The largest plan is not offered an upgrade.
	_, err := ReadFile("big.csv", rowsCSV(50_001), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "batch_too_large", "Too Many Properties",
		"Your Enterprise plan allows up to 50,000 properties per upload; this file has more than 50,000 rows. Split the file.")
	// Blank rows are not properties.
	data := append(rowsCSV(100), []byte(strings.Repeat(" , \n\n", 50))...)
	tbl, err := ReadFile("blank.csv", data, "free")
	if err != nil || len(tbl.Rows) != 100 || tbl.BlankRows != 100 {
		t.Errorf("100 rows and 100 blank rows on free: %v", err)
	}
}

// A legitimate sheet of 50,000 rows, at ~40 bytes a cell, is far within maxTextBytes.
func TestReadXLSX50kRowsWithinBudget(t *testing.T) {
	var sst, sheet strings.Builder
	sst.WriteString(`<si><t>Address</t></si><si><t>City</t></si><si><t>Owner</t></si><si><t>Notes</t></si>`)
	sheet.WriteString(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c>` +
		`<c r="D1" t="s"><v>3</v></c></row>`)
	n := 4
	for r := 2; r <= 50_001; r++ {
		fmt.Fprintf(&sst, `<si><t>%d Long Street Name Avenue Apt %d</t></si><si><t>Owner Name Number %d LLC</t></si>`+
			`<si><t>Note about the property in row %d, checked</t></si>`, r, r%97, r, r)
		fmt.Fprintf(&sheet, `<row r="%d"><c r="A%d" t="s"><v>%d</v></c><c r="B%d" t="s"><v>1</v></c>`+
			`<c r="C%d" t="s"><v>%d</v></c><c r="D%d" t="s"><v>%d</v></c></row>`, r, r, n, r, r, n+1, r, n+2)
		n += 3
	}
	parts := minimalXLSX(sheet.String())
	parts["xl/sharedStrings.xml"] = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
		sst.String() + `</sst>`
	tbl, err := ReadFile("big.xlsx", zipOf(t, parts), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, r := range tbl.Rows {
		for _, c := range r {
			size += len(c)
		}
	}
	if len(tbl.Rows) != 50_000 || size > maxTextBytes/8 {
		t.Errorf("rows = %d with %d MB of text", len(tbl.Rows), size>>20)
	}
	if got := tbl.Rows[49_999]; got[1] != "City" || !strings.HasPrefix(got[0], "50001 Long Street") {
		t.Errorf("last row = %q", got)
	}
}

func TestCleanCell(t *testing.T) {
	for in, want := range map[string]string{
		"1 Main St":              "1 Main St",
		"  1 Main St\u00a0":      "1 Main St",
		"1 Main\x00 St":          "1 Main St",
		"\x001 Main St\x00":      "1 Main St",
		"1 Main St\r\nApt 2":     "1 Main St\nApt 2",
		"1 Main St\rApt 2":       "1 Main St\nApt 2",
		"1 Main St\vApt 2":       "1 Main St\nApt 2",
		"a\tb":                   "a\tb",
		"bell\x07 and esc\x1b":   "bell and esc",
		"caf\xe9":                "caf\uFFFD",
		"\x00":                   "",
		" \x00\x01 ":             "",
		"\x00 1 Main St":         "1 Main St",
		"Zoë\x00 O'Brien-Łukasz": "Zoë O'Brien-Łukasz",
	} {
		got := cleanCell(in)
		if got != want {
			t.Errorf("cleanCell(%q) = %q, want %q", in, got, want)
		}
		if !text.Storable(got) {
			t.Errorf("cleanCell(%q) = %q is not storable", in, got)
		}
		if isBlank(in) != (got == "") {
			t.Errorf("isBlank(%q) = %v, but cleanCell gives %q", in, isBlank(in), got)
		}
	}
	if got := headerName("Prop\x00erty\x01 \vAddress"); got != "Property Address" {
		t.Errorf("headerName = %q", got)
	}
}

// NUL and other control characters never reach a Table, whichever format brings them.
func TestReadFileStorableText(t *testing.T) {
	x := zipOf(t, func() map[string]string {
		p := minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Addr_x0000_ess</t></is></c>` +
			`<c r="B1" t="s"><v>0</v></c></row>` +
			`<row r="2"><c r="A2" t="inlineStr"><is><t>1 Main_x0000_ St_x0001_</t></is></c><c r="B2" t="s"><v>1</v></c></row>` +
			`<row r="3"><c r="A3" t="inlineStr"><is><t>_x0000_</t></is></c><c r="B3" t="s"><v>2</v></c></row>`)
		p["xl/sharedStrings.xml"] = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
			`<si><t>City</t></si><si><t>Spring_x0000_field_x000D_</t></si><si><t>_x0000_</t></si></sst>`
		return p
	}())
	var w biff
	w.rec(recBOF, u16(0x0600), u16(0x0005), make([]byte, 12))
	sheetAt := w.rec(recBoundSheet, u32(0), []byte{0, 0}, []byte{6, 0}, []byte("Sheet1"))
	w.rec(recEOF)
	putU32(w.b[sheetAt+4:], uint32(len(w.b)))
	w.rec(recBOF, u16(0x0600), u16(0x0010), make([]byte, 12))
	w.rec(recLabel, cell(0, 0, 0), xlString("Addr\x00ess", false))
	w.rec(recLabel, cell(0, 1, 0), xlString("City", true))
	w.rec(recLabel, cell(1, 0, 0), xlString("1 Main\x00 St\x01", false))
	w.rec(recLabel, cell(1, 1, 0), xlString("Spring\x00field\r", true))
	w.rec(recLabel, cell(2, 0, 0), xlString("\x00", false))
	w.rec(recLabel, cell(2, 1, 0), xlString("\x00", true))
	w.rec(recEOF)
	csv := []byte("Addr\x01ess,City\n1 Main\x02 St,Spring\x03field\r\n" + strings.Repeat("x,y\n", 200))
	for _, tt := range []struct {
		file string
		data []byte
	}{{"nul.xlsx", x}, {"nul.xls", cfbOf(w.b)}, {"ctl.csv", csv}} {
		t.Run(tt.file, func(t *testing.T) {
			tbl, err := ReadFile(tt.file, tt.data, "enterprise")
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, tbl)
			want := [][]string{{"1 Main St", "Springfield"}}
			if !reflect.DeepEqual(tbl.Headers, []string{"Address", "City"}) || !reflect.DeepEqual(tbl.Rows[:1], want) {
				t.Errorf("table = %q %q, want headers Address, City and rows %q", tbl.Headers, tbl.Rows[:1], want)
			}
			if strings.HasSuffix(tt.file, "x") && (len(tbl.Rows) != 1 || tbl.BlankRows != 1) {
				t.Errorf("rows %q, %d blank; want the row of NULs blank", tbl.Rows, tbl.BlankRows)
			}
		})
	}
}

// stylesXLSX is a workbook whose cells A2:A(n+1) have the number format code (numFmtId 164) and value v (a
// number, or inline text when text is true).
func stylesXLSX(t testing.TB, code string, n int, v string, text bool) []byte {
	t.Helper()
	var sheet strings.Builder
	sheet.WriteString(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row>`)
	for i := range n {
		if text {
			fmt.Fprintf(&sheet, `<row r="%d"><c s="1" t="inlineStr"><is><t>%s</t></is></c></row>`, i+2, v)
		} else {
			fmt.Fprintf(&sheet, `<row r="%d"><c s="1"><v>%s</v></c></row>`, i+2, v)
		}
	}
	parts := minimalXLSX(sheet.String())
	parts["xl/styles.xml"] = `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
		`<numFmts count="1"><numFmt numFmtId="164" formatCode="` + strings.ReplaceAll(code, `"`, "&quot;") + `"/></numFmts>` +
		`<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>`
	return zipOf(t, parts)
}

// A number format Excel could not have written is ignored: one longer than 255 characters (excelize spent a
// second on each cell of one of 200,000), or whose text section repeats the text (";;;@@@@").
func TestReadXLSXNumberFormatBombs(t *testing.T) {
	tests := []struct {
		name, code, value string
		text              bool
		want              string
	}{
		{"zip code format kept", "00000", "2134", false, "02134"},
		{"text format kept", `"Unit "@`, "4B", true, "Unit 4B"},
		{"a long format", strings.Repeat(`\a`, 100_000), "1", false, "1"},
		{"the text four times", ";;;@@@@", "1 Main St", true, "1 Main St"},
		{"the text for each zero of the text section", "0;0;0;0000", "1 Main St", true, "1 Main St"},
		{"a text section of many parts", `;;;@` + strings.Repeat(`\a`, 40), "1 Main St", true, "1 Main St"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, err := ReadFile("f.xlsx", stylesXLSX(t, tt.code, 2, tt.value, tt.text), "enterprise")
			if err != nil {
				t.Fatal(err)
			}
			if got := tbl.Rows[0][0]; got != tt.want {
				t.Errorf("cell = %.80q (%d bytes), want %q", got, len(got), tt.want)
			}
		})
	}
	// More custom formats than Excel allows.
	var fmts strings.Builder
	for i := range xlsxMaxNumFmts + 1 {
		fmt.Fprintf(&fmts, `<numFmt numFmtId="%d" formatCode="0.%s"/>`, 164+i, strings.Repeat("0", i%20))
	}
	parts := minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row>`)
	parts["xl/styles.xml"] = `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts>` +
		fmts.String() + `</numFmts></styleSheet>`
	_, err := ReadFile("fmts.xlsx", zipOf(t, parts), "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "more than 1,000 number formats")
}

// The work excelize does for the cells is bounded before it starts: a row of more cells than Excel has
// columns, cells whose format makes each cost many times a plain one, and text of many _xHHHH_ escapes (which
// excelize decodes in time that grows with their square) are refused.
func TestReadXLSXWorkLimits(t *testing.T) {
	hdr := `<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row>`
	tests := []struct {
		name string
		data []byte
		msg  string
	}{
		{"a row of 16,385 cells", zipOf(t, minimalXLSX(hdr+`<row r="2">`+strings.Repeat(`<c><v>1</v></c>`, 16_385)+`</row>`)),
			"A row of this workbook has more than 16,384 cells"},
		{"cells with a 255-character format", stylesXLSX(t, strings.Repeat(`mmmm`, 63)+"yyy", 95_000, "1", false),
			"too many cells to read (more than 4,000,000"},
		{"a million empty rows", zipOf(t, minimalXLSX(hdr+strings.Repeat(`<row/>`, xlsxMaxWork))),
			"too many cells to read"},
		{"an inline text of 100,000 escapes", zipOf(t, minimalXLSX(hdr+`<row r="2"><c t="inlineStr"><is><t>`+
			strings.Repeat("_x0041_", 100_000)+`</t></is></c></row>`)), "too many _xHHHH_ escapes"},
		{"escapes in CDATA", zipOf(t, minimalXLSX(hdr+`<row r="2"><c t="inlineStr"><is><t><![CDATA[`+
			strings.Repeat("_x0041_", 100_000)+`]]></t></is></c></row>`)), "too many _xHHHH_ escapes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFile("w.xlsx", tt.data, "enterprise")
			wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", tt.msg)
		})
	}
	// Cells placed far to the right by their reference are not many cells.
	tbl, err := ReadFile("xfd.xlsx", zipOf(t, minimalXLSX(hdr+`<row r="2"><c r="A2" t="inlineStr"><is><t>1 Main St</t></is></c>`+
		`<c r="XFD2" s="0"/></row>`)), "enterprise")
	if err != nil || tbl.Rows[0][0] != "1 Main St" {
		t.Errorf("a cell in XFD: %v", err)
	}
	// A shared string of many escapes is decoded once, in linear time.
	parts := minimalXLSX(hdr + `<row r="2"><c t="s"><v>0</v></c></row>`)
	parts["xl/sharedStrings.xml"] = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>` +
		strings.Repeat("_x0041_", 9_000) + `_x005F_x0041_</t></si></sst>`
	tbl, err = ReadFile("esc.xlsx", zipOf(t, parts), "enterprise")
	if err != nil || tbl.Rows[0][0] != strings.Repeat("A", 9_000)+"_x0041_" {
		t.Errorf("shared string of escapes: %v", err)
	}
}

// The parts excelize decodes whole are refused past their element caps, before excelize decodes them: each
// element of them costs hundreds of bytes once decoded.
func TestReadXLSXPartLimits(t *testing.T) {
	ns := `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	with := func(extra map[string]string) []byte {
		p := minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row>` +
			`<row r="2"><c r="A2" t="inlineStr"><is><t>1 Main St</t></is></c></row>`)
		for k, v := range extra {
			p[k] = v
		}
		return zipOf(t, p)
	}
	// A workbook whose package relationships put the workbook part elsewhere.
	moved := minimalXLSX(`<row r="1"><c r="A1" t="inlineStr"><is><t>Address</t></is></c></row>`)
	moved["_rels/.rels"] = strings.Replace(moved["_rels/.rels"], `Target="xl/workbook.xml"`, `Target="/xl/book2.xml"`, 1)
	moved["xl/book2.xml"] = strings.Replace(moved["xl/workbook.xml"], "<sheets>",
		"<definedNames>"+strings.Repeat(`<definedName name="x">A</definedName>`, xlsxMaxOtherTags)+"</definedNames><sheets>", 1)
	moved["xl/_rels/book2.xml.rels"] = moved["xl/_rels/workbook.xml.rels"]
	tests := []struct {
		name string
		data []byte
		msg  string
	}{
		{"styles", with(map[string]string{"xl/styles.xml": `<styleSheet ` + ns + `><cellXfs>` +
			strings.Repeat(`<xf/>`, xlsxMaxStyleTags) + `</cellXfs></styleSheet>`}), "xl/styles.xml holds more than 150,000 elements"},
		{"calc chain", with(map[string]string{"xl/calcChain.xml": `<calcChain ` + ns + `>` +
			strings.Repeat(`<c r="A1"/>`, xlsxMaxCalcChainTags) + `</calcChain>`}), "xl/calcChain.xml holds more than 300,000 elements"},
		{"theme", with(map[string]string{"xl/theme/theme1.xml": `<a:theme xmlns:a="x">` +
			strings.Repeat(`<a:font/>`, xlsxMaxOtherTags) + `</a:theme>`}), "xl/theme/theme1.xml holds more than 50,000 elements"},
		{"workbook elsewhere", zipOf(t, moved), "xl/book2.xml holds more than 50,000 elements"},
		{"shared strings", with(map[string]string{"xl/sharedStrings.xml": `<sst ` + ns + `>` +
			strings.Repeat(`<si/>`, xlsxMaxStringItems+1) + `</sst>`}), "more than 400,000 different texts"},
		{"shared strings size", with(map[string]string{"xl/sharedStrings.xml": `<sst ` + ns + `><si><t>` +
			strings.Repeat("a", xlsxMaxStrings) + `</t></si></sst>`}), "xl/sharedStrings.xml is over 32 MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFile("p.xlsx", tt.data, "enterprise")
			wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", tt.msg)
		})
	}
	// Just under the caps is read.
	tbl, err := ReadFile("ok.xlsx", with(map[string]string{"xl/styles.xml": `<styleSheet ` + ns + `><cellXfs>` +
		strings.Repeat(`<xf/>`, xlsxMaxStyleTags-3) + `</cellXfs></styleSheet>`}), "enterprise")
	if err != nil || tbl.Rows[0][0] != "1 Main St" {
		t.Errorf("styles under the cap: %v", err)
	}
}

func TestCountStartTags(t *testing.T) {
	doc := []byte(`<?xml version="1.0"?><!-- c --><a x="1"><b/><c>t</c><![CDATA[x]]></a>`)
	for chunk := 1; chunk <= len(doc); chunk++ {
		n, after := 0, false
		for i := 0; i < len(doc); i += chunk {
			n += countStartTags(doc[i:min(i+chunk, len(doc))], &after)
		}
		if n != 3 {
			t.Errorf("chunks of %d: %d start tags, want 3", chunk, n)
		}
	}
}

// A CSV that converts to more than maxDecodedBytes of UTF-8 (all bytes 0x80, "€" each) is refused before the
// text is built.
func TestReadCSVDecodedTooLarge(t *testing.T) {
	line := append(bytes.Repeat([]byte{0x80}, 99), '\n')
	data := bytes.Repeat(line, 44<<20/len(line)) // 44 MB that convert to 131 MB
	_, err := ReadFile("euro.csv", data, "enterprise")
	wantFileError(t, err, apperr.KindTooLarge, "file_too_large", "File Too Large", "expands to more than 64 MB")
	got, err := decodeText([]byte("Caf\xe9 \x80 \xff\xfe \xe2\x82\xac"))
	if err != nil || got != "Café € ÿþ €" {
		t.Errorf("decodeText = %q, %v", got, err)
	}
	got, err = decodeText([]byte{0xFF, 0xFE, 'A', 0, 0x3D, 0xD8, 0x00, 0xDE, 0x00, 0xD8, 'B', 0})
	if err != nil || got != "A😀\uFFFDB" {
		t.Errorf("decodeText(UTF-16) = %q, %v", got, err)
	}
}

func TestUnescapeXstring(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                "plain",
		"a_x000D_b":            "a\rb",
		"_x005F_x0041_":        "_x0041_",
		"_x0041__x0042_":       "AB",
		"_xD800_x":             "x",
		"_x00e9_":              "é",
		"_x004_ and _xZZZZ_":   "_x004_ and _xZZZZ_",
		"_x0000_":              "\x00",
		strings.Repeat("_", 3): "___",
	} {
		if got := unescapeXstring(in); got != want {
			t.Errorf("unescapeXstring(%q) = %q, want %q", in, got, want)
		}
	}
}

// A cell that is one key is its shared string, not a copy; a cell of keys and other text (a number format that
// adds text around the string) is built, and counted against maxTextBytes before it is built.
func TestStringTableResolve(t *testing.T) {
	long := strings.Repeat("a", 24<<20)
	st := &stringTable{s: []string{"1 Main St", long}}
	key := func(i int) string { return keyOpen + fmt.Sprint(i) + keyClose }
	for in, want := range map[string]string{
		"plain":                           "plain",
		key(0):                            "1 Main St",
		"Unit " + key(0) + "!":            "Unit 1 Main St!",
		key(0) + key(0):                   "1 Main St1 Main St",
		keyOpen + "x" + keyClose + key(0): keyOpen + "x" + keyClose + "1 Main St",
		key(7):                            key(7),
		keyOpen + "0":                     keyOpen + "0",
	} {
		if got, err := st.resolve(in); err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	if got, _ := st.resolve(key(1)); unsafeData(got) != unsafeData(long) {
		t.Error("a cell of one key is a copy of its string")
	}
	var err error
	for range 3 {
		if _, err = st.resolve(" " + key(1)); err != nil {
			break
		}
	}
	wantFileError(t, err, apperr.KindTooLarge, "file_too_large", "File Too Large", "expands to more than 64 MB")
}

// unsafeData is the address of a string's bytes, to tell a shared string from a copy.
func unsafeData(s string) *byte { return unsafe.StringData(s) }
