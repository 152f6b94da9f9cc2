package batch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
)

// A preview keeps, until its job is created, only what the job needs: the parsed table (headers, rows and their
// lines in the file), not the uploaded file. The file may be a 50 MB workbook of styles and formulas whose table
// is a small part of it, and reading it again when the job is created would cost the memory and time of a second
// parse. The table is stored as gzip-compressed JSON: address lists repeat cities, states and ZIP codes, and
// compress to a fraction of their size.
//
// The layout is one JSON object written and read a row at a time, so that neither side holds the JSON text of
// the whole table in memory:
//
//	{"v":1,"headers":[...],"blankRows":n,"rows":[[line,"cell",...],...]}
const storedTableVersion = 1

// EncodeTable is t in the compact stored form of a preview.
func EncodeTable(t *Table) ([]byte, error) {
	var buf bytes.Buffer
	// BestSpeed: a large table is compressed while the upload's request waits, on a server with few cores; the
	// better levels save a few percent more for several times the CPU.
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(gz, 64<<10)
	head, err := json.Marshal(t.Headers)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, `{"v":%d,"headers":%s,"blankRows":%d,"rows":[`, storedTableVersion, head, t.BlankRows)
	rec := make([]any, 0, len(t.Headers)+1)
	for i, row := range t.Rows {
		if i > 0 {
			w.WriteByte(',')
		}
		line := i + 1
		if i < len(t.Line) {
			line = t.Line[i]
		}
		rec = append(rec[:0], line)
		for _, c := range row {
			rec = append(rec, c)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		w.Write(b) // a bufio.Writer keeps its first error for Flush
	}
	w.WriteString("]}")
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errStoredTable reports stored data that is not a table written by EncodeTable (our own fault, never the user's).
var errStoredTable = errors.New("batch: stored table is damaged")

// DecodeTable reads a table written by EncodeTable.
func DecodeTable(data []byte) (*Table, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStoredTable, err)
	}
	defer gz.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(gz, 64<<10))
	dec.UseNumber()
	expect := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", errStoredTable, err)
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("%w: %v where %v belongs", errStoredTable, tok, want)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return nil, err
	}
	t := &Table{}
	version := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errStoredTable, err)
		}
		switch tok {
		case "v":
			err = dec.Decode(&version)
		case "headers":
			err = dec.Decode(&t.Headers)
		case "blankRows":
			err = dec.Decode(&t.BlankRows)
		case "rows":
			err = decodeRows(dec, t, expect)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errStoredTable, err)
		}
	}
	if version != storedTableVersion {
		return nil, fmt.Errorf("%w: version %d", errStoredTable, version)
	}
	return t, nil
}

// decodeRows reads the rows array one row at a time.
func decodeRows(dec *json.Decoder, t *Table, expect func(json.Delim) error) error {
	if err := expect('['); err != nil {
		return err
	}
	for dec.More() {
		var rec []any
		if err := dec.Decode(&rec); err != nil {
			return err
		}
		if len(rec) == 0 {
			return errors.New("empty row")
		}
		n, ok := rec[0].(json.Number)
		line, err := n.Int64()
		if !ok || err != nil {
			return fmt.Errorf("row %d has no line number", len(t.Rows)+1)
		}
		row := make([]string, len(rec)-1)
		for i, c := range rec[1:] {
			s, ok := c.(string)
			if !ok {
				return fmt.Errorf("row %d: cell %d is not text", len(t.Rows)+1, i+1)
			}
			row[i] = s
		}
		t.Rows = append(t.Rows, row)
		t.Line = append(t.Line, int(line))
	}
	return expect(']')
}
