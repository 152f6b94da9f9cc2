package batch

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// csv50k is a CSV of 50,000 rows (the largest plan's upload) in the shape of a real export: an id, a quoted
// full address with commas, split columns, and a few numbers.
func csv50k() []byte {
	var b bytes.Buffer
	b.WriteString("Property ID,Full Address,Street Address,City,State,ZIP Code,Price,Beds,Baths,Notes\r\n")
	for i := range 50000 {
		fmt.Fprintf(&b, "%d,\"%d Maple Rd, Seattle, WA 98103\",%d Maple Rd,Seattle,WA,98103,%d,3,2.5,\"said \"\"ok\"\"\"\r\n",
			i, 7000+i, 7000+i, 500000+i)
	}
	return b.Bytes()
}

func BenchmarkReadCSV50k(b *testing.B) {
	data := csv50k()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		tbl, err := ReadFile("big.csv", data, "enterprise")
		if err != nil || len(tbl.Rows) != 50000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDetectApply50k(b *testing.B) {
	tbl, err := ReadFile("big.csv", csv50k(), "enterprise")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m, _ := Detect(tbl)
		if rows, _ := Apply(tbl, m); len(rows) != 50000 {
			b.Fatal(len(rows))
		}
	}
}

// Reading 50,000 rows must take well under a second (about 40 ms on one core; the race detector makes it ten
// times slower, and is given more).
func TestReadCSV50kIsFast(t *testing.T) {
	data := csv50k()
	start := time.Now()
	tbl, err := ReadFile("big.csv", data, "enterprise")
	if err != nil {
		t.Fatal(err)
	}
	if d, limit := time.Since(start), time.Second*time.Duration(1+4*raceFactor); d > limit {
		t.Errorf("reading %d rows (%d MB) took %v", len(tbl.Rows), len(data)>>20, d)
	}
}

func results50k() []Result {
	out := make([]Result, 50000)
	for i := range out {
		out[i] = sampleResults[i%len(sampleResults)]
		out[i].Line = i + 2
	}
	return out
}

func BenchmarkWriteCSV50k(b *testing.B) {
	res := results50k()
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, Slice(res)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteXLSX50k(b *testing.B) {
	res := results50k()
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteXLSX(&buf, Slice(res)); err != nil {
			b.Fatal(err)
		}
	}
}

// Apply with a full-address column only: the address parser reads every row.
func BenchmarkApplyFullAddress50k(b *testing.B) {
	tbl, err := ReadFile("big.csv", csv50k(), "enterprise")
	if err != nil {
		b.Fatal(err)
	}
	m := Mapping{"Full Address": TypeFullAddress}
	b.ReportAllocs()
	for b.Loop() {
		if rows, _ := Apply(tbl, m); len(rows) != 50000 {
			b.Fatal(len(rows))
		}
	}
}
