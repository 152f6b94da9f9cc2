package batch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"valuator/internal/apperr"
)

// MaxFileBytes is the largest upload read (the spec's 50MB).
const MaxFileBytes = 50 << 20

// Limits that bound the work and memory spent on one file, whatever it holds. A file within them takes memory in
// proportion to its size; past them it is refused with a message that says what to change.
const (
	// maxColumns bounds the width of a row. Trailing empty cells past it are ignored (spreadsheets export
	// thousands of them), a value past it is an error.
	maxColumns = 500
	// maxCells bounds rows times columns kept in memory (the Table pads every row to the header's width).
	maxCells = 12_000_000
	// maxTextBytes bounds the text of the cells a Table keeps, counted cell by cell as they are read: a
	// workbook's shared string (or an .xls SST entry) counts once for every cell that shows it, because every
	// kept cell can be copied later (by cleanCell, Apply, the database, the JSON of a preview). A file can
	// expand far past its own size that way: a 30 KB workbook whose cells all point at one 64 KB string is
	// gigabytes of text. 64 MB is more than any CSV within the 50 MB upload limit can hold, and more than twice
	// a legitimate 50,000-row sheet of 15 columns at ~40 bytes a cell (30 MB); past it the reading stops, so
	// the text a read keeps never passes 64 MB.
	maxTextBytes = 64 << 20
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
// .xls, or the tab-separated text some programs save as .xls are all read. Reading stops as soon as the file has
// more data rows than the plan allows in one upload (PlanLimit), with the same "Too Many Properties" error
// CheckSize gives, so that a file of a million rows costs no more than one just over the limit. Every error is
// an *apperr.Error (see fileError) with a message for the person who uploaded the file; a file that is not a
// spreadsheet, by its name or by its content, is KindUnsupportedMediaType (see errWrongType).
func ReadFile(fileName string, data []byte, plan string) (*Table, error) {
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
	if what := foreignFormat(data); what != "" {
		return nil, errWrongType(fmt.Sprintf("This file is %s, not a CSV or Excel file. %s.", what, msgInvalidType))
	}
	switch sniff(data) {
	case formatXLSX:
		return readXLSX(data, plan)
	case formatXLS:
		return readXLS(data, plan)
	}
	return readCSV(data, emptyMsg, plan)
}

// foreignSignatures are the first bytes of the files people upload by mistake in place of a spreadsheet. Most are
// binary and would be refused as such (see looksBinary); a PDF or an RTF document can be plain text, and would
// otherwise be read as one column of PDF operators. Naming the kind tells the person which file they picked.
var foreignSignatures = []struct{ magic, what string }{
	{"%PDF-", "a PDF document"},
	{`{\rtf`, "a Word (RTF) document"},
	{"\x89PNG\r\n\x1a\n", "an image"},
	{"\xFF\xD8\xFF", "an image"},
	{"GIF87a", "an image"},
	{"GIF89a", "an image"},
	{"\x1F\x8B", "a gzip archive"},
	{"Rar!\x1A\x07", "a RAR archive"},
	{"7z\xBC\xAF\x27\x1C", "a 7-Zip archive"},
}

// foreignFormat names what data is when its first bytes say it is not a spreadsheet, else "".
func foreignFormat(data []byte) string {
	for _, sig := range foreignSignatures {
		if bytes.HasPrefix(data, []byte(sig.magic)) {
			return sig.what
		}
	}
	return ""
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
	// sawCells counts the cells of every record, the empty and the dropped ones too (they cost the reader CPU),
	// and reading stops past cellLimit. A spreadsheet can pad each row to thousands of empty cells (a blank cell
	// in column XFD), or hold a million blank rows, neither of which the row and column limits see.
	sawCells  int
	cellLimit int
	// textBytes counts the bytes of the cells kept (the memory a Table takes), and reading stops past
	// maxTextBytes (see there).
	textBytes int
	// plan and rowLimit are the upload's plan and the data rows it allows; one more is an error.
	plan     string
	rowLimit int
	// noun names the file in messages: "file" (CSV) or "workbook".
	noun string
}

func newBuilder(emptyMsg, plan string) *builder {
	noun := "workbook"
	if emptyMsg == msgEmptyCSV {
		noun = "file"
	}
	return &builder{emptyMsg: emptyMsg, cellLimit: 4 * maxCells, plan: plan, rowLimit: PlanLimit(plan), noun: noun}
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
	if len(b.t.Rows) >= b.rowLimit {
		return errPlanRows(b.plan)
	}
	if (len(b.t.Rows)+1)*b.width > maxCells {
		return errTooMuchData()
	}
	if len(b.block) < b.width {
		b.block = make([]string, b.width*min(1024, max(16, len(b.t.Rows))))
	}
	row := b.block[:b.width:b.width]
	for i := range min(len(rec), b.width) {
		c := cleanCell(rec[i])
		if b.textBytes += len(c); b.textBytes > maxTextBytes {
			return errTooMuchText(b.noun)
		}
		row[i] = c
	}
	b.block = b.block[b.width:]
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

// errTooMuchText refuses a file whose cells hold more than maxTextBytes of text once read; noun is "file" or
// "workbook".
func errTooMuchText(noun string) error {
	why := ""
	if noun == "workbook" {
		why = " (a text shown in many cells counts once for each cell)"
	}
	return fileError(apperr.KindTooLarge, "file_too_large", titleTooLarge, fmt.Sprintf(
		"This %s expands to more than %d MB of text once read%s. Remove the columns you don't need (only the "+
			"address columns are used), or split the file.", noun, maxTextBytes>>20, why))
}

// isSpace is unicode.IsSpace plus the invisible characters that spreadsheets and web pages leave in cells: the
// zero-width space and joiners, and a byte order mark.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff'
}

// isBlankRune reports the characters a blank cell may hold: white space (isSpace) and the C0 control
// characters, which cleanCell drops.
func isBlankRune(r rune) bool { return r < ' ' || isSpace(r) }

// isBlank reports whether s is empty once cleaned (cleanCell).
func isBlank(s string) bool {
	if s != "" && s[0] > ' ' && s[0] < utf8.RuneSelf {
		return false // the common case, decided by the first byte
	}
	for _, r := range s {
		if !isBlankRune(r) {
			return false
		}
	}
	return true
}

// cleanCell makes a cell storable and tidy: trimmed, its line breaks written as "\n" (Excel's Alt+Enter is
// "\n", old Macs wrote "\r", FileMaker exports "\v"), the other C0 control characters dropped, and bytes that are
// not UTF-8 replaced by U+FFFD.
//
// NUL and the other control characters are dropped rather than the file refused: PostgreSQL refuses NUL in
// text, and none of them can be seen or typed in a spreadsheet, so they are left by other programs (an .xlsx
// writer encodes NUL as _x0000_, fixed-width exports pad with it) and carry no meaning. Refusing a file of
// 50,000 addresses for an invisible character in a notes column would send a person hunting for something
// they cannot find.
func cleanCell(s string) string {
	if s == "" || plainEnds(s) && plainText(s) {
		return s // the common case: nothing to trim or rewrite
	}
	if !plainText(s) {
		s = rewriteControls(s)
	}
	return strings.TrimFunc(s, isSpace)
}

// plainText reports whether s is valid UTF-8 without C0 control characters other than tab and line feed. The
// bytes of a multi-byte UTF-8 character are all 0x80 or more, so a control character is always one byte.
func plainText(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' && c != '\t' && c != '\n' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.ValidString(s)
}

// rewriteControls writes "\r\n", "\r" and "\v" as "\n", drops the other C0 control characters except tab, and
// replaces bytes that are not UTF-8 with U+FFFD.
func rewriteControls(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case c == '\v':
			b.WriteByte('\n')
		case c < ' ' && c != '\t' && c != '\n':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// plainEnds reports whether s starts and ends with a printable ASCII character other than a space.
func plainEnds(s string) bool {
	first, last := s[0], s[len(s)-1]
	return first > ' ' && first < 0x7F && last > ' ' && last < 0x7F
}

// headerName is a column name on one line: trimmed, every run of white space one space, without control
// characters or bytes that are not UTF-8 (see cleanCell), at most maxHeaderLen bytes (cut at a character
// boundary).
func headerName(s string) string {
	if !plainText(s) {
		s = rewriteControls(s)
	}
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
