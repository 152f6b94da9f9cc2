package batch

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"unicode/utf16"

	"valuator/internal/apperr"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReadXLSFixtures(t *testing.T) {
	// Made with SheetJS (testdata/README.md): an empty first sheet, then the addresses.
	tbl, err := ReadFile("addresses.xls", readFixture(t, "addresses.xls"), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	wantHeaders := []string{"Property Address", "City", "State", "ZIP", "Bedrooms", "Bathrooms", "Last Sale", "Notes"}
	if !reflect.DeepEqual(tbl.Headers, wantHeaders) {
		t.Errorf("headers = %q, want %q", tbl.Headers, wantHeaders)
	}
	if len(tbl.Rows) != 154 {
		t.Errorf("rows = %d, want 154", len(tbl.Rows))
	}
	want := [][]string{
		{"7006 Maple Rd", "Seattle", "WA", "98103", "3", "2.5", "44362", "Corner lot"},
		{"1679 15th Ave Apt 1A", "Austin", "TX", "78701", "1", "1", "", "Überprüft – café"},
		{"12 Beacon St", "Boston", "MA", "02134", "2", "1.5", "", `=HYPERLINK("http://x")`}, // ZIP formatted 00000
		{"1525 47th Ave", "Denver", "CO", "80202-1234", "4", "3", "", ""},
	}
	if !reflect.DeepEqual(tbl.Rows[:4], want) {
		t.Errorf("rows = %q, want %q", tbl.Rows[:4], want)
	}
	// The last rows' strings are in the CONTINUE records of the shared string table.
	last := tbl.Rows[len(tbl.Rows)-1]
	if last[0] != "249 Long Street Name Number 149 Way" || last[7] != string(bytes.Repeat([]byte("x"), 60))+" row 149" {
		t.Errorf("last row = %q", last)
	}
	if tbl.Line[0] != 2 || tbl.Line[len(tbl.Line)-1] != 155 {
		t.Errorf("lines = %d..%d, want 2..155", tbl.Line[0], tbl.Line[len(tbl.Line)-1])
	}

	// Saved by Excel for Mac.
	tbl, err = ReadFile("Table.XLS", readFixture(t, "extrame-table.xls"), "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tbl.Headers, []string{"Code", "Name", "Description"}) || len(tbl.Rows) != 11 ||
		!reflect.DeepEqual(tbl.Rows[10], []string{"code11", "name11", "description11"}) {
		t.Errorf("table = %q %q", tbl.Headers, tbl.Rows)
	}
}

// Damaged .xls files give a file error or a table, never a panic, a hang or a huge allocation.
func TestReadXLSDamaged(t *testing.T) {
	for _, name := range []string{"addresses.xls", "extrame-table.xls"} {
		good := readFixture(t, name)
		check := func(what string, data []byte) {
			t.Helper()
			var err error
			n := allocated(func() { _, err = ReadFile("d.xls", data, "enterprise") })
			if err != nil {
				if e, ok := apperr.As(err); !ok || e.Field != "file" {
					t.Errorf("%s %s: %v", name, what, err)
				}
			}
			if n > 64<<20 {
				t.Errorf("%s %s: allocated %d MB", name, what, n>>20)
			}
		}
		for n := 0; n < len(good); n += 509 {
			check("truncated", good[:n])
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 150 {
			bad := bytes.Clone(good)
			for range 1 + i%8 {
				p := rng.IntN(len(bad))
				bad[p] = byte(rng.IntN(256))
			}
			check("with random bytes", bad)
		}
		// Every 32-bit field set to its maximum in turn, which is how counts and offsets become bombs.
		for p := 0; p+4 <= len(good); p += map[bool]int{true: 4, false: 52}[p < 2048] {
			bad := bytes.Clone(good)
			binary.LittleEndian.PutUint32(bad[p:], 0x7FFFFFFF)
			check("with a huge count", bad)
		}
	}
}

// The file that kills github.com/extrame/xls: a shared string table claiming 2^31 strings.
func TestReadXLSHugeStringCount(t *testing.T) {
	data := readFixture(t, "extrame-table.xls")
	i := bytes.Index(data, []byte{0xFC, 0x00}) // the SST record
	for i >= 0 && binary.LittleEndian.Uint16(data[i+2:]) < 8 {
		i = bytes.Index(data[i+1:], []byte{0xFC, 0x00}) + i + 1
	}
	binary.LittleEndian.PutUint32(data[i+8:], 0x7FFFFFFF)
	var tbl *Table
	var err error
	n := allocated(func() { tbl, err = ReadFile("bomb.xls", data, "enterprise") })
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Rows) != 11 || n > 8<<20 {
		t.Errorf("rows = %d, allocated %d bytes", len(tbl.Rows), n)
	}
}

func TestReadXLSRefused(t *testing.T) {
	patch := func(old, new []byte) []byte {
		data := readFixture(t, "extrame-table.xls")
		i := bytes.Index(data, old)
		if i < 0 {
			t.Fatalf("pattern %x not found", old)
		}
		copy(data[i:], new)
		return data
	}
	// The workbook globals' BOF record: version 0x0600 (BIFF8), then 0x0005 (globals).
	biff5 := patch([]byte{0x09, 0x08, 0x10, 0x00, 0x00, 0x06, 0x05, 0x00}, []byte{0x09, 0x08, 0x10, 0x00, 0x00, 0x05})
	_, err := ReadFile("old.xls", biff5, "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "old Excel 5.0/95 format")

	// A FILEPASS record in the globals: the workbook is encrypted. (The CODEPAGE record becomes one.)
	encrypted := patch([]byte{0x42, 0x00, 0x02, 0x00}, []byte{0x2F, 0x00})
	_, err = ReadFile("locked.xls", encrypted, "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "protected with a password")

	// A compound file whose header counts more sectors than the file has.
	bad := readFixture(t, "extrame-table.xls")
	binary.LittleEndian.PutUint32(bad[44:], 1<<30) // FAT sectors
	_, err = ReadFile("bad.xls", bad, "enterprise")
	wantFileError(t, err, apperr.KindInvalid, "parse_error", "Parse Error", "could not be read")
}

// biff builds a BIFF8 record stream for tests.
type biff struct{ b []byte }

func (w *biff) rec(id uint16, parts ...[]byte) int {
	at := len(w.b)
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	w.b = binary.LittleEndian.AppendUint16(w.b, id)
	w.b = binary.LittleEndian.AppendUint16(w.b, uint16(n))
	for _, p := range parts {
		w.b = append(w.b, p...)
	}
	return at
}

func u16(v uint16) []byte  { return binary.LittleEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte  { return binary.LittleEndian.AppendUint32(nil, v) }
func f64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// xlString is an XLUnicodeString: a 2-byte count, flags, and the characters, 8-bit or UTF-16.
func xlString(s string, wide bool) []byte {
	u := utf16.Encode([]rune(s))
	b := u16(uint16(len(u)))
	if !wide {
		b = append(b, 0)
		for _, c := range u {
			b = append(b, byte(c))
		}
		return b
	}
	b = append(b, 1)
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

func cell(row, col, xf uint16) []byte { return append(append(u16(row), u16(col)...), u16(xf)...) }

// The records a fixture does not have: the number formats, RK, MULRK, BOOLERR, LABEL, formulas with their
// cached results, an embedded chart, and a shared string split across CONTINUE records in every way.
func TestReadBIFFRecords(t *testing.T) {
	var w biff
	w.rec(recBOF, u16(0x0600), u16(0x0005), make([]byte, 12))
	w.rec(recDateMode, u16(0))
	w.rec(recFormat, u16(164), xlString("00000", false))
	w.rec(recFormat, u16(165), xlString(`[Red]"Due "yyyy-mm-dd`, false))
	for _, f := range []uint16{0, 164, 14, 165, 3} { // XF 0..4 with these number formats
		w.rec(recXF, u16(0), u16(f), make([]byte, 16))
	}
	sheetAt := w.rec(recBoundSheet, u32(0), []byte{0, 0}, []byte{6, 0}, []byte("Sheet1"))
	// SST: "Address"; "Springfield" split after "Sprin", going on in UTF-16; "Española" with a rich text run
	// and phonetic data, the runs split across records; "Zip".
	sst := append(u32(4), u32(4)...)
	sst = append(sst, xlString("Address", false)...)
	sst = append(sst, u16(11)...)
	sst = append(sst, 0, 'S', 'p', 'r', 'i', 'n')
	cont1 := []byte{1}
	for _, c := range "gfield" {
		cont1 = binary.LittleEndian.AppendUint16(cont1, uint16(c))
	}
	cont1 = append(cont1, u16(8)...)
	cont1 = append(cont1, 0x0C)                     // rich text and phonetic data follow
	cont1 = append(cont1, u16(1)...)                // one run
	cont1 = append(cont1, u32(3)...)                // three bytes of phonetic data
	cont1 = append(cont1, []byte("Espa\xf1ola")...) // 8-bit
	cont1 = append(cont1, 1, 0)                     // half of the run
	cont2 := append([]byte{2, 0}, 9, 9, 9)          // the rest of the run and the phonetic data
	cont2 = append(cont2, xlString("Zip", true)...)
	w.rec(recSST, sst)
	w.rec(recContinue, cont1)
	w.rec(recContinue, cont2)
	w.rec(recEOF)

	sheet := len(w.b)
	binary.LittleEndian.PutUint32(w.b[sheetAt+4:], uint32(sheet))
	w.rec(recBOF, u16(0x0600), u16(0x0010), make([]byte, 12))
	w.rec(recLabelSST, cell(0, 0, 0), u32(0))                      // Address
	w.rec(recLabel, cell(0, 1, 0), xlString("City", false))        // LABEL
	w.rec(recRString, cell(0, 2, 0), xlString("State", true))      // RSTRING
	w.rec(recLabelSST, cell(0, 3, 0), u32(3))                      // Zip
	w.rec(recLabel, cell(0, 4, 0), xlString("Due", false))         //
	w.rec(recLabel, cell(0, 5, 0), xlString("Flags", false))       //
	w.rec(recRK, cell(1, 0, 0), u32(1234<<2|2))                    // 1234, an RK integer
	w.rec(recLabelSST, cell(1, 1, 0), u32(1))                      // Springfield
	w.rec(recLabelSST, cell(1, 2, 0), u32(2))                      // Española
	w.rec(recNumber, cell(1, 3, 1), f64(2134))                     // 00000: 02134
	w.rec(recNumber, cell(1, 4, 2), f64(44362.5))                  // a date with a time
	w.rec(recBoolErr, cell(1, 5, 0), []byte{1, 0})                 // TRUE
	w.rec(recMulRK, u16(2), u16(0), u16(0), u32(250<<2|3), u16(0), // 2.50 (integer / 100)
		u32(uint32(math.Float64bits(98103)>>32)), u16(1)) // 98103 as the high bits of a double; MULRK ends at column 1
	w.rec(recFormula, cell(2, 2, 0), []byte{0, 0, 0, 0, 0, 0, 0xFF, 0xFF}, make([]byte, 6))
	w.rec(recString, xlString("IL", false))
	w.rec(recFormula, cell(2, 3, 4), f64(62704.0), make([]byte, 6)) // format 3 (#,##0) is written plainly
	w.rec(recFormula, cell(2, 4, 3), f64(44362), make([]byte, 6))   // custom date format
	w.rec(recFormula, cell(2, 5, 0), []byte{2, 0, 0x2A, 0, 0, 0, 0xFF, 0xFF}, make([]byte, 6))
	w.rec(recBOF, u16(0x0600), u16(0x0020), make([]byte, 12)) // an embedded chart, skipped
	w.rec(recLabel, cell(5, 0, 0), xlString("in the chart", false))
	w.rec(recEOF)
	w.rec(recLabel, cell(3, 300, 0), xlString("column past 256: a damaged record", false))
	w.rec(recEOF)

	wb, err := parseGlobals(w.b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Address", "Springfield", "Española", "Zip"}; !reflect.DeepEqual(wb.sst, want) {
		t.Fatalf("sst = %q, want %q", wb.sst, want)
	}
	b := newBuilder(msgEmptyExcel, "enterprise")
	if err := wb.readSheet(w.b, wb.sheets[0], b, &grid{textLimit: maxTextBytes}); err != nil {
		t.Fatal(err)
	}
	tbl, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"1234", "Springfield", "Española", "02134", "2021-06-15 12:00:00", "TRUE"},
		{"2.5", "98103", "IL", "62704", "2021-06-15", "#N/A"},
	}
	if !reflect.DeepEqual(tbl.Headers, []string{"Address", "City", "State", "Zip", "Due", "Flags"}) ||
		!reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("table = %q %q, want rows %q", tbl.Headers, tbl.Rows, want)
	}
}

func TestRKValue(t *testing.T) {
	for rk, want := range map[uint32]float64{
		1234<<2 | 2:                             1234,
		0xFFFFFFEC | 2:                          -5,
		250<<2 | 3:                              2.5,
		uint32(math.Float64bits(1.5) >> 32):     1.5,
		uint32(math.Float64bits(98103)>>32) | 1: 981.03,
	} {
		if got := rkValue(rk); math.Abs(got-want) > 1e-9 {
			t.Errorf("rkValue(%#x) = %v, want %v", rk, got, want)
		}
	}
}

func TestNumberFormats(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		code string
		id   uint16
		want string
	}{
		{98103, "", 0, "98103"},
		{0.1 + 0.2, "", 0, "0.3"},
		{-2.5, "", 2, "-2.5"},
		{2134, "00000", 164, "02134"},
		{21340001, "00000-0000", 164, "02134-0001"},
		{2.5, "00000", 164, "2.5"},
		{1, "", 14, "1900-01-01"},
		{61, "", 14, "1900-03-01"},
		{44362.25, "", 22, "2021-06-15 06:00:00"},
		{44362, `"Closed "m/d/yy`, 170, "2021-06-15"},
		{44362, `#,##0 "days"`, 171, "44362"},
		{44362, `[Red]0.00`, 172, "44362"},
		{1e20, "", 0, "100000000000000000000"},
	} {
		wb := &biffBook{xfFormat: []uint16{tt.id}, formats: map[uint16]string{tt.id: tt.code}}
		if got := wb.number(tt.v, u16(0)); got != tt.want {
			t.Errorf("number(%v, %q) = %q, want %q", tt.v, tt.code, got, tt.want)
		}
	}
	wb := &biffBook{xfFormat: []uint16{14}, date1904: true}
	if got := wb.number(0, u16(0)); got != "1904-01-01" {
		t.Errorf("1904 date = %q", got)
	}
	if got := (&biffBook{}).number(5, u16(9)); got != "5" { // an XF index past the table: General
		t.Errorf("unknown XF = %q", got)
	}
}
