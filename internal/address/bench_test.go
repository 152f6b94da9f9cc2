package address

import "testing"

// benchLines are the shapes a batch upload is made of, from clean records to messy typing.
var benchLines = []string{
	"3526 HIGH ST, SACRAMENTO, CA 95838",
	"5201 LAGUNA OAKS DR Unit 140, ELK GROVE, CA 95758",
	"123 n. Main Street Apt 4B, Springfield, IL 62704-1234",
	"123 Main St Springfield IL 62704",
	"1600 Pennsylvania Ave NW, Washington, DC 20500",
	"9970 State Hwy 193 Placerville CA 95667",
	"200 W Twenty-First St #4, New York, New York 10011",
	"123 1/2 Main St",
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Parse(benchLines[i%len(benchLines)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromParts(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromParts("5201 LAGUNA OAKS DR Unit 140", "ELK GROVE", "CA", "95758"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSacramento imports every record of the real 2008 Sacramento file once per iteration.
func BenchmarkSacramento(b *testing.B) {
	rows := sacramentoRows(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, r := range rows {
			if _, err := FromParts(r[0], r[1], r[2], r[3]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/record")
}
