package valuation

import (
	"os"
	"strings"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/property"
)

// TestKingCountyAccuracy runs the accuracy protocol of ../shared/data/README.md through the real importer and
// holds the engine to the targets of docs/accuracy.md, so that a change that makes valuations worse fails. It
// takes about a minute; -short skips it.
func TestKingCountyAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("the accuracy protocol takes about a minute")
	}
	f, err := os.Open("../../../shared/data/kc_house_sales.csv")
	if err != nil {
		t.Skipf("King County data not available: %v", err)
	}
	defer f.Close()
	var recs []property.Record
	if err := property.Read(f, property.Options{Format: property.FormatKingCounty},
		func(r property.Record) error { recs = append(recs, r); return nil },
		func(e property.RowError) { t.Errorf("bad row %v", e) }); err != nil {
		t.Fatal(err)
	}
	market, tests := Split(recs, time.Date(2015, 2, 1, 0, 0, 0, 0, time.UTC))
	if len(market.Sales) != 15610 || len(tests) != 6002 {
		t.Fatalf("split %d / %d, want the protocol's 15,610 / 6,002", len(market.Sales), len(tests))
	}
	e, err := avm.Train(market, avm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := e.Evaluate(tests)
	var out strings.Builder
	r.Print(&out)
	t.Log("\n" + out.String())
	if r.Valued != len(tests) {
		t.Errorf("coverage %d of %d, want 100%%", r.Valued, len(tests))
	}
	if r.MdAPE > 0.085 {
		t.Errorf("MdAPE %.2f%%, target at most 8.5%%", 100*r.MdAPE)
	}
	if r.PPE10 < 0.56 {
		t.Errorf("PPE10 %.1f%%, target at least 56%%", 100*r.PPE10)
	}
	if r.IntervalCoverage < 0.75 || r.IntervalCoverage > 0.85 {
		t.Errorf("80%% interval holds %.1f%% of prices", 100*r.IntervalCoverage)
	}
	for i, d := range r.Deciles {
		if gap := d.HitRate - d.MeanConf; gap > 0.05 || gap < -0.05 {
			t.Errorf("confidence decile %d: stated %.1f%%, observed %.1f%%: more than 5 points apart", i+1,
				100*d.MeanConf, 100*d.HitRate)
		}
	}
}
