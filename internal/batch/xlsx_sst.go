package batch

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// A workbook keeps each distinct text once, in its shared string table (xl/sharedStrings.xml), and a cell refers
// to it by number. excelize builds a new copy of the text for every cell that refers to it, and collects a whole
// row before returning it, so a 30 KB workbook whose cells all refer to one 64 KB string took gigabytes before
// any limit of this package could see the cells. So this package decodes the table itself, once, and gives
// excelize a table of short keys instead ("\uFFFE" + number + "\uFFFF"): excelize copies a key for each cell, and
// the key is replaced by the text here, without a copy, counted against maxTextBytes for every cell that keeps
// it. U+FFFE and U+FFFF cannot appear in XML text, so no text of the file reads as a key by accident.
//
// The decoded table excelize would have built (its File.SharedStrings, of an unexported type) is made with the
// generic helpers newOf and makeLike, which take the type from the field without naming it.

const (
	keyOpen  = "\uFFFE"
	keyClose = "\uFFFF"
)

// stringTable is a workbook's shared strings, by number.
type stringTable struct {
	s []string
	// built counts the bytes of the cells made from more than one key or with other text (a number format
	// that adds text around a shared string), which are new strings.
	built int
}

// sstItem is a string item (<si>) of sharedStrings.xml, shaped as excelize's own so that it decodes the same:
// plain text, or runs of rich text; phonetic runs are not part of the text.
type sstItem struct {
	T *struct {
		Val string `xml:",chardata"`
	} `xml:"t"`
	R []struct {
		T *struct {
			Val string `xml:",chardata"`
		} `xml:"t"`
	} `xml:"r"`
}

// text is the item's text as excelize reads it (xlsxSI.String): the plain text and the runs, then the _xHHHH_
// escapes decoded.
func (it *sstItem) text() string {
	var s string
	if it.T != nil {
		s = it.T.Val
	}
	if len(it.R) > 0 {
		var b strings.Builder
		b.WriteString(s)
		for _, r := range it.R {
			if r.T != nil {
				b.WriteString(r.T.Val)
			}
		}
		s = b.String()
	}
	return unescapeXstring(s)
}

var xstringEscape = regexp.MustCompile(`_x[a-fA-F0-9]{4}_`)

// unescapeXstring decodes the _xHHHH_ escapes by which OOXML writes characters XML cannot hold, as excelize's
// bstrUnmarshal does (_x005F_ is "_", a surrogate half is dropped), in linear time.
func unescapeXstring(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	return xstringEscape.ReplaceAllStringFunc(s, func(m string) string {
		if m == "_x005F_" {
			return "_"
		}
		v, err := strconv.Unquote(`"\u` + m[2:6] + `"`)
		if err != nil {
			return ""
		}
		return v
	})
}

// sharedStrings decodes the workbook's shared string table and gives excelize keys in its place (see above).
func sharedStrings(f *excelize.File) (*stringTable, error) {
	st := &stringTable{}
	v, ok := f.Pkg.Load("xl/sharedStrings.xml")
	if !ok {
		return st, nil
	}
	raw, _ := v.([]byte)
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.CharsetReader = f.CharsetReader
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, xlsxError(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "si" {
			continue
		}
		var it sstItem
		if err := dec.DecodeElement(&it, &se); err != nil {
			return nil, xlsxError(err)
		}
		if len(st.s) >= xlsxMaxStringItems {
			return nil, errParsef("This workbook has more than %s different texts, more than can be read. Save "+
				"the sheet with the addresses as CSV, or split the file.", thousands(xlsxMaxStringItems))
		}
		st.s = append(st.s, it.text())
	}
	// The keys, one string cut into pieces, so that they cost one allocation.
	var keys strings.Builder
	ends := make([]int, len(st.s))
	for i := range st.s {
		keys.WriteString(keyOpen)
		keys.WriteString(strconv.FormatInt(int64(i), 36))
		keys.WriteString(keyClose)
		ends[i] = keys.Len()
	}
	all := keys.String()
	sst := newOf(f.SharedStrings)
	sst.SI = makeLike(sst.SI, len(st.s))
	if len(st.s) > 0 {
		ts := makeLike(sliceOf(sst.SI[0].T), len(st.s))
		start := 0
		for i := range sst.SI {
			ts[i].Val = all[start:ends[i]]
			sst.SI[i].T = &ts[i]
			start = ends[i]
		}
	}
	sst.Count, sst.UniqueCount = len(st.s), len(st.s)
	f.SharedStrings = sst
	f.Pkg.Delete("xl/sharedStrings.xml") // excelize will not read it again; its bytes can go
	return st, nil
}

// newOf returns a pointer to a new zero value of the type p points to.
func newOf[T any](_ *T) *T { return new(T) }

// makeLike returns a slice of n zero elements of the type of s.
func makeLike[S ~[]E, E any](_ S, n int) S { return make(S, n) }

// sliceOf returns a nil slice of the type p points to.
func sliceOf[T any](_ *T) []T { return nil }

// resolve replaces the keys in a cell's value by their texts. A cell that is one key is its text, shared; a cell
// with more (a number format that adds text around a shared string) is built, counted against maxTextBytes
// before it is built.
func (st *stringTable) resolve(v string) (string, error) {
	i := strings.Index(v, keyOpen)
	if i < 0 {
		return v, nil
	}
	if i == 0 {
		if s, n, ok := st.key(v); ok && n == len(v) {
			return s, nil
		}
	}
	size := 0
	for rest := v; ; {
		i := strings.Index(rest, keyOpen)
		if i < 0 {
			size += len(rest)
			break
		}
		size += i
		s, n, ok := st.key(rest[i:])
		if !ok {
			size += len(keyOpen)
			rest = rest[i+len(keyOpen):]
			continue
		}
		size += len(s)
		rest = rest[i+n:]
	}
	if st.built += size; st.built > maxTextBytes {
		return "", errTooMuchText("workbook")
	}
	var b strings.Builder
	b.Grow(size)
	for rest := v; ; {
		i := strings.Index(rest, keyOpen)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		s, n, ok := st.key(rest[i:])
		if !ok {
			b.WriteString(keyOpen)
			rest = rest[i+len(keyOpen):]
			continue
		}
		b.WriteString(s)
		rest = rest[i+n:]
	}
	return b.String(), nil
}

// key reads the key at the start of v: its text, its length in v, and whether it is one.
func (st *stringTable) key(v string) (string, int, bool) {
	end := strings.Index(v, keyClose)
	if end < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(v[len(keyOpen):end], 36, 64)
	if err != nil || n < 0 || n >= int64(len(st.s)) {
		return "", 0, false
	}
	return st.s[n], end + len(keyClose), true
}
