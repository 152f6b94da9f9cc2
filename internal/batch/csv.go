package batch

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxFieldBytes bounds one CSV value. No address comes near it; a longer value is nearly always a quote that was
// opened and never closed, which swallows the rest of the file.
const maxFieldBytes = 64 << 10

// readCSV reads delimited text: RFC 4180 quoting (quoted separators and line breaks, doubled quotes), any of
// CRLF, LF and CR line ends, a separator detected from the first lines (see detectSeparator), and the text
// encodings that spreadsheet programs write (see decodeText).
func readCSV(data []byte, emptyMsg, plan string) (*Table, error) {
	text, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	if isBlank(text) {
		return nil, errEmpty(emptyMsg)
	}
	if isMarkup(text) {
		return nil, errWrongType("This file is a web page or XML file, not a CSV or Excel file. Open it in Excel " +
			"and save it as .xlsx or .csv.")
	}
	r := &csvReader{s: text, line: 1, sep: detectSeparator(text)}
	b := newBuilder(emptyMsg, plan)
	var rec []string
	for {
		line, ok, err := r.next(&rec)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if err := b.add(line, rec); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeText returns data as UTF-8 text. A UTF-8 byte order mark is dropped; UTF-16 with a byte order mark
// (Excel's "Unicode Text") is converted. Bytes that are not UTF-8 are read as Windows-1252, the encoding of CSV
// files saved by Excel on Windows (a superset of Latin-1 for printable text), one byte at a time, so a file that
// mixes both (two exports pasted together) keeps its UTF-8 characters. Binary data is refused: NUL bytes, or
// more than 1% control characters in the first 64 KB (415: text does not hold them, so the file is not a CSV
// whatever its name says).
//
// A conversion can make the text up to three times the file's size (a byte 0x80 is "€", three bytes of UTF-8),
// so its size is computed first, the text is built in one allocation of that size, and text of more than
// maxDecodedBytes is refused before it is built.
func decodeText(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		data = data[len(utf8BOM):]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data[2:], binary.LittleEndian)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data[2:], binary.BigEndian)
	}
	if looksBinary(data) {
		return "", errWrongType(msgNotText)
	}
	if utf8.Valid(data) {
		return string(data), nil
	}
	return decodeWindows1252(data)
}

// maxDecodedBytes bounds the UTF-8 text a CSV file converts to. A text file within the upload limit that
// converts to more than twice maxTextBytes holds mostly characters outside ASCII, which no address file does;
// its cells would pass maxTextBytes anyway.
const maxDecodedBytes = 2 * maxTextBytes

func errDecodedTooLarge() error { return errTooMuchText("file") }

func looksBinary(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	sample := data[:min(len(data), 64<<10)]
	ctrl := 0
	for _, c := range sample {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' || c == 0x7F {
			ctrl++
		}
	}
	return ctrl*100 > len(sample)
}

// decodeUTF16 converts UTF-16 text to UTF-8 (a surrogate half alone becomes U+FFFD). Text with NUL is refused
// as binary.
func decodeUTF16(data []byte, order binary.ByteOrder) (string, error) {
	n := len(data) / 2
	unit := func(i int) uint16 { return order.Uint16(data[2*i:]) }
	size := 0
	for i := 0; i < n; i++ {
		switch u := unit(i); {
		case u == 0:
			return "", errWrongType(msgNotText)
		case utf16.IsSurrogate(rune(u)) && i+1 < n && utf16.DecodeRune(rune(u), rune(unit(i+1))) != utf8.RuneError:
			size += 4
			i++
		default:
			r := rune(u)
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError // a surrogate half alone
			}
			size += utf8.RuneLen(r)
		}
	}
	if size > maxDecodedBytes {
		return "", errDecodedTooLarge()
	}
	var b strings.Builder
	b.Grow(size)
	for i := 0; i < n; i++ {
		r := rune(unit(i))
		if utf16.IsSurrogate(r) {
			if i+1 < n {
				if d := utf16.DecodeRune(r, rune(unit(i+1))); d != utf8.RuneError {
					b.WriteRune(d)
					i++
					continue
				}
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// windows1252 maps the bytes 0x80 to 0x9F, where Windows-1252 differs from Latin-1. The five bytes it leaves
// undefined keep their Latin-1 (C1 control) meaning, as browsers decode them.
var windows1252 = [32]rune{
	'\u20AC', '\u0081', '\u201A', '\u0192', '\u201E', '\u2026', '\u2020', '\u2021',
	'\u02C6', '\u2030', '\u0160', '\u2039', '\u0152', '\u008D', '\u017D', '\u008F',
	'\u0090', '\u2018', '\u2019', '\u201C', '\u201D', '\u2022', '\u2013', '\u2014',
	'\u02DC', '\u2122', '\u0161', '\u203A', '\u0153', '\u009D', '\u017E', '\u0178',
}

// latin1Rune is the character of a byte that is not part of a UTF-8 character.
func latin1Rune(c byte) rune {
	if c >= 0x80 && c <= 0x9F {
		return windows1252[c-0x80]
	}
	return rune(c) // Latin-1
}

func decodeWindows1252(data []byte) (string, error) {
	size := 0
	for rest := data; len(rest) > 0; {
		r, n := utf8.DecodeRune(rest)
		if r == utf8.RuneError && n <= 1 {
			size += utf8.RuneLen(latin1Rune(rest[0]))
			n = 1
		} else {
			size += n
		}
		rest = rest[n:]
	}
	if size > maxDecodedBytes {
		return "", errDecodedTooLarge()
	}
	var b strings.Builder
	b.Grow(size)
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			r, n = latin1Rune(data[0]), 1
		}
		b.WriteRune(r)
		data = data[n:]
	}
	return b.String(), nil
}

// isMarkup reports an HTML page or XML file, which some web applications save with an .xls name.
func isMarkup(text string) bool {
	t := strings.TrimLeftFunc(text, isSpace)
	if !strings.HasPrefix(t, "<") {
		return false
	}
	head := strings.ToLower(t[:min(len(t), 4096)])
	for _, tag := range []string{"<html", "<table", "<?xml", "<!doctype", "<body", "<head"} {
		if strings.Contains(head, tag) {
			return true
		}
	}
	return false
}

// separators are the candidates detectSeparator chooses from, in order of preference on a tie.
var separators = [...]byte{',', '\t', ';', '|'}

// detectSeparator picks the separator from the first ten lines that are not blank (outside quotes): the candidate
// found in the header line and as many times on every sampled line, else the one found most in the header; a
// comma on a tie. Semicolons come from Excel in locales with a decimal comma, tabs from copies and "Text (Tab
// delimited)" exports, pipes from some MLS exports.
//
// A header line with no candidate at all means a file of one column. It returns 0 then (no separator), so that
// an unquoted full address on each line ("7006 Maple Rd, Seattle, WA 98103") stays one value rather than
// being cut at its commas.
func detectSeparator(s string) byte {
	const maxLines = 10
	var counts [maxLines][len(separators)]int
	lines, inQuotes, hasChars := 0, false, false
	limit := min(len(s), 64<<10)
	for i := 0; i < limit && lines < maxLines; i++ {
		c := s[i]
		switch {
		case c == '"':
			inQuotes = !inQuotes
			hasChars = true
		case inQuotes:
		case c == '\n' || c == '\r':
			if hasChars {
				lines++
			}
			hasChars = false
		default:
			if c != ' ' {
				hasChars = true
			}
			for k, sep := range separators {
				if c == sep {
					counts[lines][k]++
				}
			}
		}
	}
	if hasChars && lines < maxLines {
		lines++
	}
	best, bestCount, bestConsistent := byte(0), 0, false
	for k, sep := range separators {
		h := counts[0][k]
		if h == 0 {
			continue
		}
		consistent := true
		for l := 1; l < lines; l++ {
			if counts[l][k] != h {
				consistent = false
			}
		}
		if consistent && !bestConsistent || consistent == bestConsistent && h > bestCount {
			best, bestCount, bestConsistent = sep, h, consistent
		}
	}
	return best
}

// csvReader reads records from text. It keeps the line number of its position, counting a line break inside a
// quoted value too, so that an error and Table.Line name the line a person sees in a text editor.
type csvReader struct {
	s       string
	pos     int
	line    int
	sep     byte   // 0: one column, no separator
	scratch []byte // reused for values with doubled quotes
}

// next reads one record into *rec, reusing its storage, and returns the line the record starts on; false at
// the end of the text. Values past maxColumns are dropped when empty and an error otherwise.
func (r *csvReader) next(rec *[]string) (int, bool, error) {
	if r.pos >= len(r.s) {
		return 0, false, nil
	}
	start := r.line
	fields := (*rec)[:0]
	for {
		f, err := r.field()
		if err != nil {
			return 0, false, err
		}
		if len(fields) < maxColumns {
			fields = append(fields, f)
		} else if !isBlank(f) {
			return 0, false, errTooManyColumns(start)
		}
		if r.pos >= len(r.s) {
			break
		}
		c := r.s[r.pos]
		r.pos++
		if c == r.sep && c != 0 {
			continue
		}
		if c == '\r' && r.pos < len(r.s) && r.s[r.pos] == '\n' {
			r.pos++
		}
		r.line++
		break
	}
	*rec = fields
	return start, true, nil
}

// field reads one value at r.pos and leaves r.pos at the separator or line end after it.
func (r *csvReader) field() (string, error) {
	s, i := r.s, r.pos
	// Blanks before an opening quote are allowed (`a, "b"`); the value is trimmed later anyway.
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' && r.sep != '\t') {
		j++
	}
	if j < len(s) && s[j] == '"' {
		return r.quoted(j + 1)
	}
	end := r.valueEnd(i)
	if end-i > maxFieldBytes {
		return "", errFieldTooLong(r.line)
	}
	r.pos = end
	return s[i:end], nil
}

// valueEnd is the index of the first separator or line break at or after i, or len(r.s).
func (r *csvReader) valueEnd(i int) int {
	s, sep := r.s, r.sep
	for ; i < len(s); i++ {
		if c := s[i]; c == sep && sep != 0 || c == '\n' || c == '\r' {
			return i
		}
	}
	return i
}

// quoted reads a quoted value whose first character is at p. A doubled quote is one quote. Text after the
// closing quote, up to the separator, is kept as written (`"5" wide` gives `5 wide`), as spreadsheet programs
// do, rather than failing the whole file on one sloppy value.
func (r *csvReader) quoted(p int) (string, error) {
	s, startLine, from := r.s, r.line, r.pos
	buf := r.scratch[:0] // used only when the value has a doubled quote
	doubled := false
	seg := p
	for {
		q := strings.IndexByte(s[p:], '"')
		if q < 0 {
			return "", errParsef("Line %d: a quoted value is not closed (a closing \" is missing).", startLine)
		}
		q += p
		if q-from > maxFieldBytes {
			return "", errFieldTooLong(startLine)
		}
		if q+1 < len(s) && s[q+1] == '"' {
			buf = append(buf, s[seg:q+1]...)
			doubled = true
			p = q + 2
			seg = p
			continue
		}
		val := s[seg:q]
		if doubled {
			buf = append(buf, val...)
			val = string(buf)
			r.scratch = buf[:0]
		}
		r.line += countLineBreaks(s[from:q])
		end := r.valueEnd(q + 1)
		if tail := s[q+1 : end]; !isBlank(tail) {
			if len(val)+len(tail) > maxFieldBytes {
				return "", errFieldTooLong(startLine)
			}
			val += tail
		}
		r.pos = end
		return val, nil
	}
}

func errFieldTooLong(line int) error {
	return errParsef("Line %d: a value is longer than 64 KB. Check that every opening quote (\") has a closing one.",
		line)
}

// countLineBreaks counts "\n", "\r\n" and a lone "\r" each as one line break.
func countLineBreaks(s string) int {
	n := strings.Count(s, "\n")
	if strings.IndexByte(s, '\r') >= 0 {
		n += strings.Count(s, "\r") - strings.Count(s, "\r\n")
	}
	return n
}
