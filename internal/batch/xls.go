package batch

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"
)

// Excel 97-2003 workbooks (.xls) are BIFF8 records in the "Workbook" stream of an OLE compound file. The pure-Go
// readers on the module proxy were not fit for files from strangers: github.com/extrame/xls (v0.0.1, 2016)
// sizes its shared string table by a count read from the file, so a 20 KB file makes it allocate tens of GB and
// the process dies with a fatal error that recover cannot catch; github.com/shakinm/xlsReader is GPL-3.0. So the
// compound file is opened with github.com/richardlehane/mscfb (Apache-2.0, already required by excelize, with
// cycle and allocation checks since v1.0.9) and the few BIFF8 records that hold cell values are read here, with
// every count and offset checked against the bytes actually present. Formatting, formulas (only their cached
// results are read), charts and macros are ignored.

const msgBadXLS = "This .xls file could not be read; it may be damaged. Open it in Excel and save it as .xlsx or .csv."

// BIFF8 record types read here ([MS-XLS] section 2.3).
const (
	recBOF        = 0x0809
	recEOF        = 0x000A
	recFilePass   = 0x002F
	recDateMode   = 0x0022
	recFormat     = 0x041E
	recXF         = 0x00E0
	recBoundSheet = 0x0085
	recSST        = 0x00FC
	recContinue   = 0x003C
	recLabelSST   = 0x00FD
	recLabel      = 0x0204
	recRString    = 0x00D6
	recNumber     = 0x0203
	recRK         = 0x027E
	recMulRK      = 0x00BD
	recBoolErr    = 0x0205
	recFormula    = 0x0006
	recString     = 0x0207
)

// xlsMaxSheets bounds the sheets looked at for data.
const xlsMaxSheets = 256

// readXLS reads the first visible worksheet that holds data (else the first hidden one). Numbers are written
// plainly ("98103", "2.5"; no thousands separators or currency signs), except that a zero-padded format such as
// Excel's ZIP Code format (00000) keeps its leading zeros and a date format gives YYYY-MM-DD.
func readXLS(data []byte, plan string) (t *Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, errParse(msgBadXLS)
		}
	}()
	stream, err := workbookStream(data)
	if err != nil {
		return nil, err
	}
	wb, err := parseGlobals(stream)
	if err != nil {
		return nil, err
	}
	var visible, hidden []biffSheet
	for _, sh := range wb.sheets {
		if sh.visible {
			visible = append(visible, sh)
		} else {
			hidden = append(hidden, sh)
		}
	}
	budget := 4 * maxCells // records looked at, shared by the sheets tried (see builder.cellLimit)
	text := maxTextBytes   // text put in the grids, shared likewise (see grid)
	for _, sh := range append(visible, hidden...) {
		b := newBuilder(msgEmptyExcel, plan)
		b.cellLimit = budget
		g := &grid{textLimit: text}
		if err := wb.readSheet(stream, sh, b, g); err != nil {
			return nil, err
		}
		budget -= b.sawCells
		text -= g.text
		if !b.empty() {
			return b.finish()
		}
	}
	return nil, errEmpty(msgEmptyExcel)
}

// workbookStream returns the Workbook stream of an OLE compound file.
func workbookStream(data []byte) ([]byte, error) {
	if !cfbHeaderSane(data) {
		return nil, errParse(msgBadXLS)
	}
	doc, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		return nil, errParse(msgBadXLS)
	}
	var book *mscfb.File
	biff5, encrypted := false, false
	for entry, err := doc.Next(); err == nil; entry, err = doc.Next() {
		switch entry.Name {
		case "Workbook":
			book, biff5 = entry, false
		case "Book":
			if book == nil {
				book, biff5 = entry, true
			}
		case "EncryptedPackage":
			encrypted = true
		}
	}
	switch {
	case encrypted:
		return nil, errEncrypted()
	case book == nil:
		// A compound file without a workbook stream is another Office document (a .doc, a .msg): 415.
		return nil, errWrongType("This file is not an Excel workbook. Please upload a CSV or Excel file.")
	case biff5:
		return nil, errBIFF5()
	case book.Size <= 0 || book.Size > int64(len(data)):
		return nil, errParse(msgBadXLS)
	}
	buf := make([]byte, book.Size)
	if _, err := io.ReadFull(book, buf); err != nil {
		return nil, errParse(msgBadXLS)
	}
	return buf, nil
}

// cfbHeaderSane checks the counts in a compound file header against the file's size before mscfb sizes any
// table by them: every sector they count must fit in the file.
func cfbHeaderSane(data []byte) bool {
	if len(data) < 512 {
		return false
	}
	shift := binary.LittleEndian.Uint16(data[30:])
	if shift != 9 && shift != 12 {
		return false
	}
	sectors := uint64(len(data))>>shift + 1
	for _, off := range []int{40, 44, 64, 72} { // directory, FAT, mini FAT and DIFAT sector counts
		if uint64(binary.LittleEndian.Uint32(data[off:])) > sectors {
			return false
		}
	}
	return true
}

func errEncrypted() error {
	return errParse("This workbook is protected with a password. Remove the password in Excel and upload it again.")
}

func errBIFF5() error {
	return errParse("This .xls file is in the old Excel 5.0/95 format. Open it in Excel and save it as .xlsx or .csv.")
}

// biffBook is what the workbook globals say about cells: the shared strings, the number format of each cell
// format (XF), the date system, and where each worksheet starts.
type biffBook struct {
	sst      []string
	xfFormat []uint16
	formats  map[uint16]string
	date1904 bool
	sheets   []biffSheet
}

type biffSheet struct {
	name    string
	offset  int
	visible bool
}

// record reads the record at pos: its type, its body and the position after it; false when the bytes end.
func record(s []byte, pos int) (id uint16, body []byte, next int, ok bool) {
	if pos < 0 || pos+4 > len(s) {
		return 0, nil, 0, false
	}
	id = binary.LittleEndian.Uint16(s[pos:])
	n := int(binary.LittleEndian.Uint16(s[pos+2:]))
	if pos+4+n > len(s) {
		return 0, nil, 0, false
	}
	return id, s[pos+4 : pos+4+n], pos + 4 + n, true
}

// continued returns body and the bodies of the CONTINUE records after it, and the position after them.
func continued(s []byte, body []byte, pos int) ([][]byte, int) {
	segs := [][]byte{body}
	for {
		id, b, next, ok := record(s, pos)
		if !ok || id != recContinue {
			return segs, pos
		}
		segs = append(segs, b)
		pos = next
	}
}

func parseGlobals(s []byte) (*biffBook, error) {
	id, body, pos, ok := record(s, 0)
	if !ok || id != recBOF || len(body) < 4 {
		return nil, errParse(msgBadXLS)
	}
	switch binary.LittleEndian.Uint16(body) {
	case 0x0600:
	case 0x0500:
		return nil, errBIFF5()
	default:
		return nil, errParse(msgBadXLS)
	}
	wb := &biffBook{formats: map[uint16]string{}}
	for {
		id, body, next, ok := record(s, pos)
		if !ok {
			return nil, errParse(msgBadXLS)
		}
		pos = next
		switch id {
		case recEOF:
			return wb, nil
		case recFilePass:
			return nil, errEncrypted()
		case recDateMode:
			wb.date1904 = len(body) >= 2 && binary.LittleEndian.Uint16(body) == 1
		case recFormat:
			if len(body) >= 2 {
				str, _ := (&segReader{segs: [][]byte{body[2:]}}).unicodeString(2)
				wb.formats[binary.LittleEndian.Uint16(body)] = str
			}
		case recXF:
			if len(body) >= 4 && len(wb.xfFormat) < 1<<16 {
				wb.xfFormat = append(wb.xfFormat, binary.LittleEndian.Uint16(body[2:]))
			}
		case recBoundSheet:
			// Only worksheets (type 0) hold cells; charts, macro sheets and modules do not.
			if len(body) >= 8 && body[5] == 0 && len(wb.sheets) < xlsMaxSheets {
				name, _ := (&segReader{segs: [][]byte{body[6:]}}).unicodeString(1)
				wb.sheets = append(wb.sheets, biffSheet{name: name,
					offset: int(binary.LittleEndian.Uint32(body)), visible: body[4]&3 == 0})
			}
		case recSST:
			var segs [][]byte
			segs, pos = continued(s, body, pos)
			wb.sst = parseSST(segs)
		}
	}
}

// parseSST reads the shared string table. Its count comes from the file and is trusted only as far as the bytes
// go: each string takes at least 3 bytes.
func parseSST(segs [][]byte) []string {
	r := &segReader{segs: segs}
	hdr, ok := r.read(8)
	if !ok {
		return nil
	}
	unique := int(binary.LittleEndian.Uint32(hdr[4:]))
	total := 0
	for _, s := range segs {
		total += len(s)
	}
	sst := make([]string, 0, max(0, min(unique, total/3)))
	for range unique {
		str, ok := r.unicodeString(2)
		if !ok {
			break
		}
		sst = append(sst, str)
	}
	return sst
}

// segReader reads a record body continued in CONTINUE records. Where the characters of a string go on in the
// next record, that record starts with a new option byte (whether the characters are 8 or 16 bits); any other
// field just goes on ([MS-XLS] 2.2.4).
type segReader struct {
	segs [][]byte
	si   int
	pos  int
}

// read returns the next n bytes, across record boundaries.
func (r *segReader) read(n int) ([]byte, bool) {
	if r.si < len(r.segs) && r.pos+n <= len(r.segs[r.si]) {
		b := r.segs[r.si][r.pos : r.pos+n]
		r.pos += n
		return b, true
	}
	out := make([]byte, 0, n)
	for len(out) < n {
		if r.si >= len(r.segs) {
			return nil, false
		}
		seg := r.segs[r.si]
		if r.pos >= len(seg) {
			r.si, r.pos = r.si+1, 0
			continue
		}
		k := min(n-len(out), len(seg)-r.pos)
		out = append(out, seg[r.pos:r.pos+k]...)
		r.pos += k
	}
	return out, true
}

func (r *segReader) skip(n int) bool {
	for n > 0 {
		if r.si >= len(r.segs) {
			return false
		}
		seg := r.segs[r.si]
		if r.pos >= len(seg) {
			r.si, r.pos = r.si+1, 0
			continue
		}
		k := min(n, len(seg)-r.pos)
		r.pos += k
		n -= k
	}
	return true
}

// unicodeString reads an XLUnicodeRichExtendedString (SST), or with a 1-byte count a ShortXLUnicodeString:
// the character count (lenBytes bytes), option flags, optional rich text run count and phonetic data size, the
// characters (8-bit Latin-1 or UTF-16), then the runs and phonetic data, which are skipped.
func (r *segReader) unicodeString(lenBytes int) (string, bool) {
	h, ok := r.read(lenBytes + 1)
	if !ok {
		return "", false
	}
	cch := int(h[0])
	if lenBytes == 2 {
		cch = int(binary.LittleEndian.Uint16(h))
	}
	flags := h[lenBytes]
	wide := flags&0x01 != 0
	runs, ext := 0, 0
	if flags&0x08 != 0 {
		b, ok := r.read(2)
		if !ok {
			return "", false
		}
		runs = int(binary.LittleEndian.Uint16(b))
	}
	if flags&0x04 != 0 {
		b, ok := r.read(4)
		if !ok {
			return "", false
		}
		ext = int(binary.LittleEndian.Uint32(b))
	}
	chars := make([]uint16, 0, min(cch, 4096))
	for len(chars) < cch {
		if r.si >= len(r.segs) {
			return "", false
		}
		seg := r.segs[r.si]
		if r.pos >= len(seg) {
			// The characters go on in the next record, after its own option byte.
			r.si, r.pos = r.si+1, 0
			if r.si >= len(r.segs) || len(r.segs[r.si]) == 0 {
				return "", false
			}
			wide = r.segs[r.si][0]&0x01 != 0
			r.pos = 1
			continue
		}
		rest := seg[r.pos:]
		if wide {
			k := min(cch-len(chars), len(rest)/2)
			if k == 0 { // an odd byte at the end of a record: damaged; skip it
				r.pos++
				continue
			}
			for i := range k {
				chars = append(chars, binary.LittleEndian.Uint16(rest[2*i:]))
			}
			r.pos += 2 * k
		} else {
			k := min(cch-len(chars), len(rest))
			for _, c := range rest[:k] {
				chars = append(chars, uint16(c))
			}
			r.pos += k
		}
	}
	if !r.skip(4*runs) || !r.skip(ext) {
		// The formatting after the characters is cut short; the string itself is whole.
		r.si = len(r.segs)
	}
	return string(utf16.Decode(chars)), true
}

// grid holds a sheet's cells by row and column as they are read (cells may come in any order), before they go
// to the builder in order. BIFF8 has at most 65,536 rows of 256 columns, which bounds its slots; the text it
// holds is counted cell by cell, a shared string once for every cell that shows it, and refused past
// textLimit: the builder would keep (and cleanCell may copy) each of them. The plan's row limit applies when
// the rows go to the builder, in order: cells may come in any order, so the whole sheet is read first.
type grid struct {
	rows      [][]string
	text      int
	textLimit int
}

// set stores a cell. BIFF8 has 256 columns; a column past that is a damaged record and is ignored.
func (g *grid) set(row, col int, v string) error {
	if col >= 256 {
		return nil
	}
	if g.text += len(v); g.text > g.textLimit {
		return errTooMuchText("workbook")
	}
	for len(g.rows) <= row {
		g.rows = append(g.rows, nil)
	}
	r := g.rows[row]
	for len(r) <= col {
		r = append(r, "")
	}
	r[col] = v
	g.rows[row] = r
	return nil
}

// readSheet reads the cells of one worksheet substream into g, then b.
func (wb *biffBook) readSheet(s []byte, sh biffSheet, b *builder, g *grid) error {
	id, _, pos, ok := record(s, sh.offset)
	if !ok || id != recBOF {
		return errParse(msgBadXLS)
	}
	depth := 0                 // embedded substreams (a chart on the sheet) have their own BOF and EOF
	pendRow, pendCol := -1, -1 // a FORMULA whose string result follows in a STRING record
	for done := false; !done; {
		id, body, next, ok := record(s, pos)
		if !ok {
			break // a sheet cut short: keep what was read
		}
		pos = next
		if b.sawCells++; b.sawCells > b.cellLimit {
			return errTooMuchData()
		}
		if depth > 0 {
			switch id {
			case recBOF:
				depth++
			case recEOF:
				depth--
			}
			continue
		}
		var err error
		switch id {
		case recBOF:
			depth++
		case recEOF:
			done = true
		case recLabelSST:
			if len(body) >= 10 {
				i := int(binary.LittleEndian.Uint32(body[6:]))
				if i >= len(wb.sst) {
					return errParse(msgBadXLS)
				}
				err = g.set(cellPos(body), int(binary.LittleEndian.Uint16(body[2:])), wb.sst[i])
			}
		case recLabel, recRString:
			if len(body) >= 8 {
				str, _ := (&segReader{segs: [][]byte{body[6:]}}).unicodeString(2)
				err = g.set(cellPos(body), int(binary.LittleEndian.Uint16(body[2:])), str)
			}
		case recNumber:
			if len(body) >= 14 {
				v := math.Float64frombits(binary.LittleEndian.Uint64(body[6:]))
				err = g.set(cellPos(body), int(binary.LittleEndian.Uint16(body[2:])), wb.number(v, body[4:]))
			}
		case recRK:
			if len(body) >= 10 {
				v := rkValue(binary.LittleEndian.Uint32(body[6:]))
				err = g.set(cellPos(body), int(binary.LittleEndian.Uint16(body[2:])), wb.number(v, body[4:]))
			}
		case recMulRK:
			if len(body) >= 6 {
				row, col := cellPos(body), int(binary.LittleEndian.Uint16(body[2:]))
				for k := 0; 4+6*k+6 <= len(body)-2 && err == nil; k++ {
					rec := body[4+6*k:]
					err = g.set(row, col+k, wb.number(rkValue(binary.LittleEndian.Uint32(rec[2:])), rec))
				}
			}
		case recBoolErr:
			if len(body) >= 8 {
				err = g.set(cellPos(body), int(binary.LittleEndian.Uint16(body[2:])), boolErr(body[6], body[7] != 0))
			}
		case recFormula:
			if len(body) >= 14 {
				row, col := cellPos(body), int(binary.LittleEndian.Uint16(body[2:]))
				val := body[6:14]
				if val[6] == 0xFF && val[7] == 0xFF {
					switch val[0] {
					case 0: // the string follows in a STRING record
						pendRow, pendCol = row, col
					case 1:
						err = g.set(row, col, boolErr(val[2], false))
					case 2:
						err = g.set(row, col, boolErr(val[2], true))
					}
				} else {
					err = g.set(row, col, wb.number(math.Float64frombits(binary.LittleEndian.Uint64(val)), body[4:]))
				}
			}
		case recString:
			if pendRow >= 0 {
				var segs [][]byte
				segs, pos = continued(s, body, pos)
				str, _ := (&segReader{segs: segs}).unicodeString(2)
				err = g.set(pendRow, pendCol, str)
				pendRow, pendCol = -1, -1
			}
		}
		if err != nil {
			return err
		}
	}
	for i, row := range g.rows {
		if err := b.add(i+1, row); err != nil {
			return err
		}
	}
	return nil
}

// cellPos is the row of a cell record (its first two bytes).
func cellPos(body []byte) int { return int(binary.LittleEndian.Uint16(body)) }

// rkValue decodes an RK number: a 30-bit integer or the high 30 bits of a double, optionally divided by 100.
func rkValue(rk uint32) float64 {
	var v float64
	if rk&0x02 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&^0x03) << 32)
	}
	if rk&0x01 != 0 {
		v /= 100
	}
	return v
}

func boolErr(v byte, isErr bool) string {
	if !isErr {
		if v != 0 {
			return "TRUE"
		}
		return "FALSE"
	}
	switch v {
	case 0x00:
		return "#NULL!"
	case 0x07:
		return "#DIV/0!"
	case 0x0F:
		return "#VALUE!"
	case 0x17:
		return "#REF!"
	case 0x1D:
		return "#NAME?"
	case 0x24:
		return "#NUM!"
	}
	return "#N/A"
}

// number writes a cell's number by its format; xf holds the cell's XF index in its first two bytes.
func (wb *biffBook) number(v float64, xf []byte) string {
	fmtID := uint16(0)
	if i := int(binary.LittleEndian.Uint16(xf)); i < len(wb.xfFormat) {
		fmtID = wb.xfFormat[i]
	}
	code := wb.formats[fmtID]
	switch {
	case isDateFormat(fmtID, code):
		if d, ok := excelDate(v, wb.date1904); ok {
			return d
		}
	case isZeroPadded(code):
		if v >= 0 && v == math.Trunc(v) && v < 1e15 {
			return zeroPad(int64(v), code)
		}
	}
	return plainNumber(v)
}

// plainNumber writes a number as Excel's General format does, without its exponent form: whole numbers without
// a decimal point, others to 15 significant digits (so 0.1+0.2 is "0.3").
func plainNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "#NUM!"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// isDateFormat reports the built-in date and time formats, and custom formats with date or time codes outside
// quoted text, escapes and [brackets] (colours, conditions).
func isDateFormat(id uint16, code string) bool {
	switch {
	case id >= 14 && id <= 22, id >= 27 && id <= 36, id >= 45 && id <= 47, id >= 50 && id <= 58:
		return true
	case id < 164 || code == "":
		return false
	}
	inQuote, inBracket := false, false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case inQuote:
			inQuote = c != '"'
		case inBracket:
			inBracket = c != ']'
		case c == '"':
			inQuote = true
		case c == '[':
			inBracket = true
		case c == '\\' || c == '_' || c == '*':
			i++
		case strings.IndexByte("ymdhsYMDHS", c) >= 0:
			return true
		}
	}
	return false
}

// isZeroPadded reports a format of zeros only, with an optional hyphen group: 00000 (Excel's ZIP Code) or
// 00000-0000 (ZIP Code + 4).
func isZeroPadded(code string) bool {
	if code == "" {
		return false
	}
	digits := strings.ReplaceAll(code, "-", "")
	return digits != "" && strings.Trim(digits, "0") == "" && !strings.HasPrefix(code, "-") &&
		!strings.HasSuffix(code, "-") && strings.Count(code, "-") <= 1
}

func zeroPad(n int64, code string) string {
	digits := strings.Count(code, "0")
	s := strconv.FormatInt(n, 10)
	if len(s) < digits {
		s = strings.Repeat("0", digits-len(s)) + s
	}
	if i := strings.IndexByte(code, '-'); i >= 0 && len(s) == digits {
		s = s[:i] + "-" + s[i:]
	}
	return s
}

// excelDate writes a date serial number as YYYY-MM-DD (with the time when it has one). In the 1900 system the
// serial counts from 1900-01-00 and includes Excel's nonexistent 1900-02-29 (serial 60).
func excelDate(v float64, date1904 bool) (string, bool) {
	if math.IsNaN(v) || v < 0 || v > 2958465 { // after 9999-12-31
		return "", false
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	switch {
	case date1904:
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case v < 60:
		base = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)
	}
	days := math.Floor(v)
	secs := math.Round((v - days) * 86400)
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	if secs == 0 {
		return t.Format("2006-01-02"), true
	}
	return t.Format("2006-01-02 15:04:05"), true
}
