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
	// The assessors' ratio study (IAAO Standard on Ratio Studies): measured COD 11.8, PRD 1.026, PRB -0.036
	// (docs/accuracy.md); IAAO asks COD 5-15, PRD 0.98-1.03 and PRB within ±0.05 of mass appraisal.
	if r.COD > 13 || r.PRD < 0.98 || r.PRD > 1.03 || math.Abs(r.PRB) > 0.05 {
		t.Errorf("ratio study: COD %.1f, PRD %.3f, PRB %+.3f; want COD ≤ 13, PRD 0.98-1.03, PRB within ±0.05",
			r.COD, r.PRD, r.PRB)
	}
	// The FSD is calibrated on every path a lookup can take (issue 34): the test sales as recorded (above), then as
	// addresses not on record from their type and size, with their other facts, and as units of their buildings.
	paths := e.Evaluate(PathTests(tests)[len(tests):]).Paths
	checkPathCalibration(t, append(r.Paths, paths...))
	// The range rule (avm.MaxRangeRatio) refuses 5 of the 6,002: small, low-grade homes of south King County whose
	// prices scatter (docs/accuracy.md). The aim was none; more than 0.25% would refuse homes worth valuing.
	if r.TooUncertain > 15 {
		t.Errorf("%d test sales refused as too uncertain; at most 15", r.TooUncertain)
	}
}

// pathCalibrationGap is how far the share of prices within ±FSD may lie from 68% in a tenth of a path's test sales
// (by FSD). Issue 34 asks 5 points, and 39 of the 40 tenths of the four large paths meet it; the one that does not is
// the ninth of the addresses valued from type and size alone (73.8%). A tenth of 600 sales has a sampling error of
// 1.9 points, so the largest of 40 gaps lands near 5.5 even for a perfectly calibrated FSD: this guards at 6.5. (It
// was 8 while the surest tenth of type and size held 61.0%, before a held-out sale's variants shared a fold.) A path
// counts by tenths only with at least minPathDecile sales in each; on King County the homes that sold before the cut
// (the own_sale path, 58 sales) are too few, and their overall share must lie within 3 standard errors of 68%.
const (
	pathCalibrationGap = 0.065
	minPathDecile      = 300
)

func checkPathCalibration(t *testing.T, paths []avm.PathReport) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range paths {
		if p.N == 0 {
			continue
		}
		seen[p.Path] = true
		if p.N < 10*minPathDecile {
			se := math.Sqrt(0.68 * 0.32 / float64(p.N))
			if math.Abs(p.FSDCoverage-0.68) > 3*se {
				t.Errorf("path %s (%d sales): %.1f%% within ±FSD, want 68%% ± %.1f", p.Path, p.N,
					100*p.FSDCoverage, 300*se)
			}
			continue
		}
		for i, d := range p.FSDDeciles {
			if gap := d.Within - 0.68; math.Abs(gap) > pathCalibrationGap {
				t.Errorf("path %s, FSD decile %d (FSD %.1f%%): %.1f%% of prices within ±FSD, want 68%% ± %.1f",
					p.Path, i+1, 100*d.MeanFSD, 100*d.Within, 100*pathCalibrationGap)
			}
		}
	}
	for _, path := range avm.Paths {
		if !seen[path] {
			t.Errorf("no test sale valued on path %s", path)
		}
	}
}
