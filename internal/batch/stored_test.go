package batch

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestStoredTableRoundTrip: the stored form of a preview gives back the table exactly (headers, cells with any
// text, line numbers, blank rows), and is smaller than the file for an address list.
func TestStoredTableRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		tbl  *Table
	}{
		{"empty", &Table{Headers: []string{"Address"}, Rows: [][]string{}, Line: []int{}}},
		{"cells of every kind", &Table{
			Headers:   []string{"Address", "City", "Notes \"quoted\"", "Column 4"},
			Rows:      [][]string{{"1 Main St", "Seattle", "a, b\nc", ""}, {"=SUM(A1)", "Zoë", "\u202eevil", "\x00nul"}},
			Line:      []int{2, 7},
			BlankRows: 4,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := EncodeTable(tt.tbl)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeTable(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.tbl.Rows) == 0 {
				got.Rows, got.Line = [][]string{}, []int{} // nothing decoded: nil, not empty
			}
			if !reflect.DeepEqual(got, tt.tbl) {
				t.Errorf("round trip = %+v, want %+v", got, tt.tbl)
			}
		})
	}

	var b strings.Builder
	b.WriteString("Property Address,City,State,Zip Code,List Price\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "%d %s Ave N,Seattle,WA,981%02d,%d\n", 1000+i*7, []string{"Maple", "Oak", "Pine"}[i%3], i%40, 400000+i*13)
	}
	tbl, err := ReadFile("homes.csv", []byte(b.String()), "professional")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := EncodeTable(tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored)*3 > b.Len() {
		t.Errorf("stored table of %d bytes for a file of %d, want under a third", len(stored), b.Len())
	}
	back, err := DecodeTable(stored)
	if err != nil || !reflect.DeepEqual(back, tbl) {
		t.Errorf("round trip of a file's table differs (%v)", err)
	}
}

func TestDecodeTableRefusesOtherData(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	for name, data := range map[string][]byte{
		"an uploaded file":   []byte("Address,City\n1 Main St,Seattle\n"),
		"not JSON":           gz("Address,City"),
		"another version":    gz(`{"v":2,"headers":["A"],"rows":[]}`),
		"no version":         gz(`{"headers":["A"],"rows":[]}`),
		"a row without line": gz(`{"v":1,"headers":["A"],"rows":[["x"]]}`),
		"a cell not text":    gz(`{"v":1,"headers":["A"],"rows":[[2,5]]}`),
		"cut short":          gz(`{"v":1,"headers":["A"],"rows":[[2,"x"]`),
	} {
		if _, err := DecodeTable(data); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}
