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
	var sum, fsdSum [10]float64
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
		line := fmt.Sprintf("seed %d: MdAPE %.2f PPE10 %.1f cover %.1f within 10%% stated %.1f |", seed, 100*r.MdAPE,
			100*r.PPE10, 100*r.IntervalCoverage, 100*r.MeanWithinTen)
		for i, d := range r.Deciles {
			g := 100 * (d.HitRate - d.MeanConf)
			sum[i] += g
			line += fmt.Sprintf(" %+5.1f", g)
		}
		line += " | FSD within " + fmt.Sprintf("%.1f", 100*r.FSDCoverage) + " |"
		for i, d := range r.FSDDeciles {
			g := 100 * (d.Within - 0.68)
			fsdSum[i] += g
			line += fmt.Sprintf(" %+5.1f", g)
		}
		fmt.Println(line)
	}
	for name, sums := range map[string][10]float64{"within 10%": sum, "FSD": fsdSum} {
		line := "mean gap, " + name + ":"
		for _, s := range sums {
			line += fmt.Sprintf(" %+5.1f", s/float64(len(seeds)))
		}
		fmt.Println(line)
	}
}
