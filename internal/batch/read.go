package batch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFileBytes is the largest upload read (the spec's 50MB).
const MaxFileBytes = 50 << 20

// Limits that bound the work and memory spent on one file, whatever it holds. A file within them takes memory in
// proportion to its size; past them it is refused with a message that says what to change.
const (
	// maxDataRows stops reading well past the largest plan's limit (50,000), so that a file a little over it
	// still gets the exact count from CheckSize, while a file of a million rows is not read to the end.
	maxDataRows = 60000
	// maxColumns bounds the width of a row. Trailing empty cells past it are ignored (spreadsheets export
	// thousands of them), a value past it is an error.
	maxColumns = 500
	// maxCells bounds rows times columns kept in memory (the Table pads every row to the header's width).
	maxCells = 12_000_000
	// maxHeaderLen bounds a column name, which travels as a JSON key in the mapping.
	maxHeaderLen = 200
)

// Table is a file's content: Headers made unique and non-empty (a blank header becomes "Column N"; a duplicate,
// compared without case, gets " (2)", " (3)"), Rows each exactly len(Headers) cells (short rows padded with "",
// long rows truncated), cells trimmed; blank rows (all cells empty) dropped and counted in BlankRows. Line[i] is
// the 1-based line (CSV) or row (Excel) number of Rows[i] in the file, for error reports.
type Table struct {
	Headers   []string
	Rows      [][]string
	Line      []int
	BlankRows int
}

// format is what a file holds, by its content.
type format int

const (
	formatCSV format = iota
	formatXLSX
	formatXLS
)

// ReadFile reads an uploaded .csv, .xlsx or .xls file into a Table. The extension (in any case) must be one of
// those three; the content decides how the file is read, so that a workbook renamed to .csv, an .xlsx renamed to
// .xls, or the tab-separated text some programs save as .xls are all read. Every error is an *apperr.Error
// (see fileError) with a message for the person who uploaded the file.
func ReadFile(fileName string, data []byte) (*Table, error) {
	ext := extension(fileName)
	if ext != ".csv" && ext != ".xlsx" && ext != ".xls" {
		return nil, errInvalidType()
	}
	if len(data) > MaxFileBytes {
		return nil, errTooLarge()
	}
	emptyMsg := msgEmptyCSV
	if ext != ".csv" {
		emptyMsg = msgEmptyExcel
	}
	switch sniff(data) {
	case formatXLSX:
		return readXLSX(data)
	case formatXLS:
		return readXLS(data)
	}
	return readCSV(data, emptyMsg)
}

// extension is the lower-case extension of a file name as a browser or a client sends it; old browsers send the
// whole Windows path.
func extension(name string) string {
	name = strings.TrimRight(strings.TrimSpace(name), ". ")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return ""
	}
	return strings.ToLower(name[i:])
}

var (
	zipMagic = []byte("PK\x03\x04")
	oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// sniff tells a workbook (zip: .xlsx; OLE compound file: .xls or an encrypted .xlsx) from text by its first bytes.
func sniff(data []byte) format {
	switch {
	case bytes.HasPrefix(data, zipMagic):
		return formatXLSX
	case bytes.HasPrefix(data, oleMagic):
		return formatXLS
	}
	return formatCSV
}

// builder turns the records of a file, one at a time, into a Table, enforcing the limits as it goes so that a
// reader can stop at the first record past them.
type builder struct {
	t        Table
	header   []string
	width    int
	haveHdr  bool
	emptyMsg string
	block    []string // cells handed out to rows; one allocation for many rows
	// sawCells counts the cells of every record, the empty ones too, and reading stops past cellLimit. A
	// spreadsheet can pad each row to thousands of empty cells (a blank cell in column XFD), or hold a million
	// blank rows, neither of which the row and column limits see.
	sawCells  int
	cellLimit int
}

func newBuilder(emptyMsg string) *builder {
	return &builder{emptyMsg: emptyMsg, cellLimit: 4 * maxCells}
}

// add takes one record of the file and its line (or row) number. rec may be reused by the caller afterwards.
func (b *builder) add(line int, rec []string) error {
	b.sawCells += len(rec)
	if b.sawCells > b.cellLimit {
		return errTooMuchData()
	}
	last := lastNonBlank(rec)
	if last >= maxColumns {
		return errTooManyColumns(line)
	}
	if last < 0 {
		if b.haveHdr {
			b.t.BlankRows++
		}
		return nil
	}
	if !b.haveHdr {
		b.haveHdr = true
		b.width = min(len(rec), maxColumns)
		b.header = make([]string, b.width)
		for i := range b.header {
			b.header[i] = headerName(rec[i])
		}
		return nil
	}
	if lastNonBlank(rec[:min(len(rec), b.width)]) < 0 {
		b.t.BlankRows++ // values only past the last column, which are cut off
		return nil
	}
	if len(b.t.Rows) >= maxDataRows {
		return errTooManyRows()
	}
	if (len(b.t.Rows)+1)*b.width > maxCells {
		return errTooMuchData()
	}
	if len(b.block) < b.width {
		b.block = make([]string, b.width*min(1024, max(16, len(b.t.Rows))))
	}
	row := b.block[:b.width:b.width]
	b.block = b.block[b.width:]
	for i := range min(len(rec), b.width) {
		row[i] = cleanCell(rec[i])
	}
	b.t.Rows = append(b.t.Rows, row)
	b.t.Line = append(b.t.Line, line)
	return nil
}

// lastNonBlank is the index of the last cell of rec that is not blank, or -1.
func lastNonBlank(rec []string) int {
	for i := len(rec) - 1; i >= 0; i-- {
		if !isBlank(rec[i]) {
			return i
		}
	}
	return -1
}

// empty reports whether no non-blank record has been added yet.
func (b *builder) empty() bool { return !b.haveHdr }

// finish returns the table, or the spec's error for a file without header or without data rows. Trailing
// columns with neither a name nor a value (the trailing separators of some exports) are dropped.
func (b *builder) finish() (*Table, error) {
	if !b.haveHdr {
		return nil, errEmpty(b.emptyMsg)
	}
	w := b.width
	for w > 1 && b.header[w-1] == "" && columnEmpty(b.t.Rows, w-1) {
		w--
	}
	if w < b.width {
		for i, r := range b.t.Rows {
			b.t.Rows[i] = r[:w:w]
		}
	}
	if len(b.t.Rows) == 0 {
		return nil, errNoDataRows()
	}
	b.t.Headers = uniqueHeaders(b.header[:w])
	t := b.t
	return &t, nil
}

func columnEmpty(rows [][]string, col int) bool {
	for _, r := range rows {
		if r[col] != "" {
			return false
		}
	}
	return true
}

func errTooManyColumns(line int) error {
	return errParsef("Line %d has more than %d columns. Remove the columns you don't need (only the address "+
		"columns are used) or check the separator.", line, maxColumns)
}

func errTooMuchData() error {
	return errParsef("This file has too much data to read (more than %s cells). Remove the columns you don't "+
		"need (only the address columns are used) or split the file.", thousands(maxCells))
}

// isSpace is unicode.IsSpace plus the invisible characters that spreadsheets and web pages leave in cells: the
// zero-width space and joiners, and a byte order mark.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff'
}

func isBlank(s string) bool {
	if s != "" && s[0] > ' ' && s[0] < utf8.RuneSelf {
		return false // the common case, decided by the first byte
	}
	for _, r := range s {
		if !isSpace(r) {
			return false
		}
	}
	return true
}

// cleanCell trims a cell and writes its line breaks as "\n" (Excel's Alt+Enter is "\n", old Macs wrote "\r").
func cleanCell(s string) string {
	if s == "" || plainEnds(s) && strings.IndexByte(s, '\r') < 0 {
		return s // the common case: nothing to trim or rewrite
	}
	s = strings.TrimFunc(s, isSpace)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	return s
}

// plainEnds reports whether s starts and ends with a printable ASCII character other than a space.
func plainEnds(s string) bool {
	first, last := s[0], s[len(s)-1]
	return first > ' ' && first < 0x7F && last > ' ' && last < 0x7F
}

// headerName is a column name on one line: trimmed, every run of white space one space, at most maxHeaderLen
// bytes (cut at a character boundary).
func headerName(s string) string {
	s = strings.Join(strings.FieldsFunc(s, isSpace), " ")
	if len(s) > maxHeaderLen {
		s = s[:maxHeaderLen]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s = strings.TrimRight(s, " ")
	}
	return s
}

// uniqueHeaders names blank columns "Column N" (N counted from 1) and numbers repeated names, compared without
// case so that "City" and "city" cannot be confused in a mapping: "Address", "Address (2)".
func uniqueHeaders(names []string) []string {
	out := make([]string, len(names))
	used := make(map[string]bool, len(names))
	for i, h := range names {
		base := h
		if base == "" {
			base = fmt.Sprintf("Column %d", i+1)
		}
		name := base
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s (%d)", base, n)
		}
		used[strings.ToLower(name)] = true
		out[i] = name
	}
	return out
}
