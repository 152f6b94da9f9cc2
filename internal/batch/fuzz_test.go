package batch

import (
	"strings"
	"testing"

	"valuator/internal/apperr"
	"valuator/internal/text"
)

// isControlButTabOrLF reports the C0 control characters a cell must not keep (see cleanCell).
func isControlButTabOrLF(r rune) bool { return r < ' ' && r != '\t' && r != '\n' }

// checkTable checks the invariants of every Table ReadFile returns.
func checkTable(t *testing.T, tbl *Table) {
	t.Helper()
	if len(tbl.Headers) == 0 || len(tbl.Headers) > maxColumns {
		t.Fatalf("%d headers", len(tbl.Headers))
	}
	seen := map[string]bool{}
	for _, h := range tbl.Headers {
		k := strings.ToLower(h)
		if h == "" || seen[k] || strings.TrimFunc(h, isSpace) != h || !text.Storable(h) ||
			strings.ContainsFunc(h, func(r rune) bool { return r < ' ' }) {
			t.Fatalf("bad or repeated header %q in %q", h, tbl.Headers)
		}
		seen[k] = true
	}
	if len(tbl.Rows) == 0 || len(tbl.Rows) > PlanLimit("enterprise") || len(tbl.Line) != len(tbl.Rows) {
		t.Fatalf("%d rows, %d lines", len(tbl.Rows), len(tbl.Line))
	}
	for i, r := range tbl.Rows {
		if len(r) != len(tbl.Headers) {
			t.Fatalf("row %d has %d cells for %d headers", i, len(r), len(tbl.Headers))
		}
		blank := true
		for _, c := range r {
			if c != strings.TrimFunc(c, isSpace) || strings.Contains(c, "\r") || !text.Storable(c) ||
				strings.ContainsFunc(c, isControlButTabOrLF) {
				t.Fatalf("cell %q not clean", c)
			}
			blank = blank && c == ""
		}
		if blank {
			t.Fatalf("blank row %d kept", i)
		}
		if i > 0 && tbl.Line[i] <= tbl.Line[i-1] || tbl.Line[i] < 2 {
			t.Fatalf("lines %v", tbl.Line)
		}
	}
}

// checkDetect runs Detect, Validate and Apply on a table and checks their invariants.
func checkDetect(t *testing.T, tbl *Table) {
	t.Helper()
	m, dets := Detect(tbl)
	if len(m) != len(tbl.Headers) || len(dets) != len(tbl.Headers) {
		t.Fatalf("mapping %v and %d detections for %d headers", m, len(dets), len(tbl.Headers))
	}
	taken := map[ColumnType]bool{}
	for i, h := range tbl.Headers {
		typ, ok := m[h]
		if _, valid := typeLabels[typ]; !ok || !valid {
			t.Fatalf("column %q mapped to %q", h, typ)
		}
		if typ != TypeIgnore {
			if taken[typ] {
				t.Fatalf("type %s given twice in %v", typ, m)
			}
			taken[typ] = true
		}
		if d := dets[i]; d.Column != h || d.Confidence <= 0 || d.Confidence > 1 {
			t.Fatalf("detection %+v for %q", d, h)
		}
	}
	err := m.Validate(tbl.Headers)
	if err != nil {
		if e, ok := apperr.As(err); !ok || e.Field != "mapping" {
			t.Fatalf("Validate = %v", err)
		}
	}
	rows, dropped := Apply(tbl, m)
	if len(rows)+dropped != len(tbl.Rows) {
		t.Fatalf("%d rows + %d dropped != %d", len(rows), dropped, len(tbl.Rows))
	}
	for _, r := range rows {
		if r.Address == "" {
			t.Fatalf("row without address %+v", r)
		}
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"Address,City,State,Zip\n7006 Maple Rd,Seattle,WA,98103\n",
		"\xEF\xBB\xBFAddress;City\r\n\"1 Main St, Apt 2\";\"Spring\"\"field\"\r\n",
		"Full Address\n\"7006 Maple Rd\nSeattle, WA 98103\"\n\n",
		"a\tb\tc\r1\t2\r\r3",
		"Address,,address\n\"x\"y,\"\",\n",
		"Caf\xe9,\x93q\x94\n1,2\n",
		"\xFF\xFEA\x00,\x00B\x00\n\x001\x00,\x002\x00",
		"\"unclosed\n",
		"|||\n1|2|3|4\n",
		", , ,\n,,,x",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tbl, err := ReadFile("fuzz.csv", data, "enterprise")
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Field != "file" || e.Message == "" || e.Extra["title"] == nil {
				t.Fatalf("error %v is not a file error", err)
			}
			return
		}
		checkTable(t, tbl)
		checkDetect(t, tbl)
	})
}

// FuzzDetect builds a table from two strings: the headers separated by '|', and rows of cells separated by '|'
// on lines.
func FuzzDetect(f *testing.F) {
	f.Add("Address|City|State|Zip", "7006 Maple Rd|Seattle|WA|98103\n1 Main St|Springfield|IL|62704")
	f.Add("Full Address|Price", "7006 Maple Rd, Seattle, WA 98103|1\n|2")
	f.Add("Column 1|Code|Town|Town (2)", "12B Elm|98103-1234|St. Louis|x\n7006 Maple Rd Seattle WA 98103|02134|Coeur d'Alene|y")
	f.Add("PropertyID|e-mail|ST|zip_code", "1|a@b|wa|9810")
	f.Add("Address", "PO Box 12, Springfield, IL 62704\nApt 4, 12 Main St, Boston, Massachusetts 02134 USA")
	f.Fuzz(func(t *testing.T, headers, cells string) {
		if len(headers) > 4096 || len(cells) > 1<<16 {
			return
		}
		hs := uniqueHeaders(strings.Split(headers, "|"))
		for i, h := range hs {
			hs[i] = headerName(h)
			if hs[i] == "" {
				return
			}
		}
		if len(uniqueHeaders(hs)) != len(hs) || strings.Join(uniqueHeaders(hs), "\x00") != strings.Join(hs, "\x00") {
			return // names that headerName changed into duplicates
		}
		tbl := &Table{Headers: hs}
		for i, line := range strings.Split(cells, "\n") {
			row := make([]string, len(hs))
			for j, c := range strings.Split(line, "|") {
				if j < len(row) {
					row[j] = cleanCell(c)
				}
			}
			tbl.Rows = append(tbl.Rows, row)
			tbl.Line = append(tbl.Line, i+2)
		}
		checkDetect(t, tbl)
	})
}

// FuzzReadXLS mutates .xls workbooks (the fixtures and small ones built here) and a small .xlsx: whatever the
// bytes, a file error or a sound table.
func FuzzReadXLS(f *testing.F) {
	f.Add(readFixture(f, "extrame-table.xls"), false)
	f.Add(readFixture(f, "addresses.xls"), false)
	f.Add(xlsxOf(f, [][]any{{"Address", "Zip"}, {"1 Main St", 62704}}), true)
	// Small workbooks (a compound file of one sector-padded stream), which the mutations reach into faster.
	f.Add(rowsXLS(3), false)
	f.Add(sstXLS(24, 2, 2), false)
	f.Fuzz(func(t *testing.T, data []byte, x bool) {
		name := "fuzz.xls"
		if x {
			name = "fuzz.xlsx"
		}
		tbl, err := ReadFile(name, data, "enterprise")
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Field != "file" || e.Message == "" {
				t.Fatalf("error %v is not a file error", err)
			}
			return
		}
		checkTable(t, tbl)
	})
}

// FuzzReadXLSX builds a workbook from the XML of its sheet data, its shared strings and its styles, so that
// the mutations reach the XML rather than break the zip's checksums: whatever they hold, a file error or a
// sound table.
func FuzzReadXLSX(f *testing.F) {
	f.Add(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`+
		`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" s="1"><v>2134</v></c></row>`,
		`<si><t>Address</t></si><si><t>Zip</t></si><si><t xml:space="preserve"> 1 Main St_x000D_
Apt 2 </t></si>`,
		`<numFmts count="1"><numFmt numFmtId="164" formatCode="00000"/></numFmts>`+
			`<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs>`)
	f.Add(`<row r="1"><c r="A1" t="inlineStr"><is><t>Full Address</t></is></c></row>`+
		`<row r="3"><c r="A3" t="s" s="1"><v>0</v></c></row><row r="4"><c r="XFD4"/></row>`,
		`<si><r><t>7006 Maple Rd, </t></r><r><rPr><b/></rPr><t>Seattle, WA 98103</t></r><rPh><t>x</t></rPh></si>`,
		`<numFmts count="1"><numFmt numFmtId="164" formatCode="&quot;Unit &quot;@"/></numFmts>`+
			`<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs>`)
	f.Add(`<row><c><v>98103.0</v></c><c t="b"><v>1</v></c><c t="e"><v>#N/A</v></c><c t="str"><v>x</v></c></row>`+
		`<row><c s="1"><v>44362.5</v></c><c t="d"><v>2021-06-15T12:00:00</v></c><c t="inlineStr"><is><t>_x0000_a</t></is></c></row>`,
		``, `<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="22"/></cellXfs>`)
	f.Add(`<row r="1"><c r="A1" t="inlineStr"><is><t><![CDATA[Address]]></t></is></c><c r="B1" t="s"><v>0</v></c></row>`+
		`<row r="2"><c r="A2" t="inlineStr"><is><t>1 Main St</t></is></c><c r="B2" t="s"><v>0</v></c></row>`,
		`<si><t>`+"\uFFFE"+`0`+"\uFFFF"+`</t></si>`, `<numFmts><numFmt numFmtId="164" formatCode=";;;@@"/></numFmts>`)
	f.Fuzz(func(t *testing.T, sheet, sst, styles string) {
		parts := minimalXLSX(sheet)
		if sst != "" {
			parts["xl/sharedStrings.xml"] = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
				sst + `</sst>`
		}
		if styles != "" {
			parts["xl/styles.xml"] = `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
				styles + `</styleSheet>`
		}
		tbl, err := ReadFile("fuzz.xlsx", zipOf(t, parts), "enterprise")
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Field != "file" || e.Message == "" || e.Extra["title"] == nil {
				t.Fatalf("error %v is not a file error", err)
			}
			return
		}
		checkTable(t, tbl)
		checkDetect(t, tbl)
	})
}
