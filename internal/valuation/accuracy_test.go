package valuation

import (
	"math"
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
	// Measured 7.86%, 59.8%, -1.1% and 14.9% (docs/accuracy.md); the limits leave room for run-to-run spread and
	// fail a change that undoes what moved them.
	if r.MdAPE > 0.081 {
		t.Errorf("MdAPE %.2f%%, at most 8.1%%", 100*r.MdAPE)
	}
	if r.PPE10 < 0.58 {
		t.Errorf("PPE10 %.1f%%, at least 58%%", 100*r.PPE10)
	}
	if b := math.Exp(r.Bias) - 1; math.Abs(b) > 0.015 {
		t.Errorf("median bias %+.2f%%, within ±1.5%%", 100*b)
	}
	// The homes that sold before: their own sale is no longer a remembered price (it was 20.9%).
	if r.PriorN != 122 || r.PriorMdAPE > 0.17 {
		t.Errorf("homes that sold before: %d, MdAPE %.2f%%; want 122 within 17%%", r.PriorN, 100*r.PriorMdAPE)
	}
	if r.IntervalCoverage < 0.75 || r.IntervalCoverage > 0.85 {
		t.Errorf("80%% interval holds %.1f%% of prices", 100*r.IntervalCoverage)
	}
	for i, d := range r.Deciles {
		if gap := d.HitRate - d.MeanConf; gap > 0.05 || gap < -0.05 {
			t.Errorf("within-10%% decile %d: stated %.1f%%, observed %.1f%%: more than 5 points apart", i+1,
				100*d.MeanConf, 100*d.HitRate)
		}
	}
	// The FSD is calibrated: in every tenth of the test sales by FSD, 68% ± 5 points land within ±FSD.
	for i, d := range r.FSDDeciles {
		if gap := d.Within - 0.68; gap > 0.05 || gap < -0.05 {
			t.Errorf("FSD decile %d (FSD %.1f%%): %.1f%% of prices within ±FSD, want 68%% ± 5", i+1, 100*d.MeanFSD,
				100*d.Within)
		}
	}
	// The range rule (avm.MaxRangeRatio) refuses 8 of the 6,002: small, low-grade homes of south King County whose
	// prices scatter (docs/accuracy.md). The aim was none; more than 0.25% would refuse homes worth valuing.
	if r.TooUncertain > 15 {
		t.Errorf("%d test sales refused as too uncertain; at most 15", r.TooUncertain)
	}
}
