package valuation

import (
	"fmt"
	"os"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/property"
)

// TestCalibrationAcrossSeeds (VALUATOR_SEEDS=1) trains with several seeds to separate systematic calibration error
// from run-to-run noise.
func TestCalibrationAcrossSeeds(t *testing.T) {
	if os.Getenv("VALUATOR_SEEDS") == "" {
		t.Skip("set VALUATOR_SEEDS=1")
	}
	f, err := os.Open("../../../shared/data/kc_house_sales.csv")
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	var recs []property.Record
	_ = property.Read(f, property.Options{Format: property.FormatKingCounty},
		func(r property.Record) error { recs = append(recs, r); return nil }, func(property.RowError) {})
	var sum [10]float64
	seeds := []uint64{1, 2, 3, 4}
	for _, seed := range seeds {
		market, tests := Split(recs, time.Date(2015, 2, 1, 0, 0, 0, 0, time.UTC))
		o := avm.DefaultOptions()
		o.Model.Seed = seed
		e, err := avm.Train(market, o)
		if err != nil {
			t.Fatal(err)
		}
		r := e.Evaluate(tests)
		line := fmt.Sprintf("seed %d: MdAPE %.2f PPE10 %.1f cover %.1f stated %.1f |", seed, 100*r.MdAPE, 100*r.PPE10,
			100*r.IntervalCoverage, 100*r.MeanConfidence)
		for i, d := range r.Deciles {
			g := 100 * (d.HitRate - d.MeanConf)
			sum[i] += g
			line += fmt.Sprintf(" %+5.1f", g)
		}
		fmt.Println(line)
	}
	line := "mean gap:                                           |"
	for _, s := range sum {
		line += fmt.Sprintf(" %+5.1f", s/float64(len(seeds)))
	}
	fmt.Println(line)
}
