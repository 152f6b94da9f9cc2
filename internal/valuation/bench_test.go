package valuation

import (
	"os"
	"sync"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/property"
)

var (
	kcOnce   sync.Once
	kcEngine *avm.Engine
	kcHomes  []avm.Home
)

// kingCountyEngine trains once on every King County sale (21,612) for the benchmarks.
func kingCountyEngine(b *testing.B) (*avm.Engine, []avm.Home) {
	kcOnce.Do(func() {
		f, err := os.Open("../../../shared/data/kc_house_sales.csv")
		if err != nil {
			return
		}
		defer f.Close()
		var recs []property.Record
		_ = property.Read(f, property.Options{Format: property.FormatKingCounty},
			func(r property.Record) error { recs = append(recs, r); return nil }, func(property.RowError) {})
		market, _ := Split(recs, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
		kcEngine, err = avm.Train(market, avm.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		for i := range int32(market.NumProperties()) {
			kcHomes = append(kcHomes, market.Home(i))
		}
	})
	if kcEngine == nil {
		b.Skip("King County data not available")
	}
	return kcEngine, kcHomes
}

// BenchmarkValueKingCounty values one recorded home with the whole King County market loaded.
func BenchmarkValueKingCounty(b *testing.B) {
	e, homes := kingCountyEngine(b)
	at := time.Date(2015, 6, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Value(homes[i%len(homes)], -1, at)
	}
}

// BenchmarkValueApproxKingCounty values an address not on record (ZIP centre, typical home).
func BenchmarkValueApproxKingCounty(b *testing.B) {
	e, homes := kingCountyEngine(b)
	at := time.Date(2015, 6, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h, _ := avm.ApproxHome(homes[i%len(homes)], true)
		e.ValueApprox(h, at)
	}
}

// BenchmarkTrainKingCounty trains the engine on every King County sale (run with -benchtime 1x).
func BenchmarkTrainKingCounty(b *testing.B) {
	f, err := os.Open("../../../shared/data/kc_house_sales.csv")
	if err != nil {
		b.Skip("King County data not available")
	}
	var recs []property.Record
	_ = property.Read(f, property.Options{Format: property.FormatKingCounty},
		func(r property.Record) error { recs = append(recs, r); return nil }, func(property.RowError) {})
	f.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		market, _ := Split(recs, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
		if _, err := avm.Train(market, avm.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
