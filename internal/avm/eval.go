package avm

import (
	"fmt"
	"io"
	"math"
	"sort"
	"time"
)

// TestSale is a sale held out from the market, to be valued as of its date.
type TestSale struct {
	Home     Home
	Property int32 // the home's record in the market when it has one (an earlier sale), else -1
	Date     time.Time
	Price    float64
	// Approx values the sale as a lookup of an address not on record (ValueApprox); with Unit, as a unit of its
	// building (ValueUnit).
	Approx, Unit bool
}

// Report holds the accuracy measures of the protocol in ../shared/data/README.md.
type Report struct {
	N, Valued        int
	MdAPE, MAPE      float64
	PPE5, PPE10      float64
	PPE20            float64
	IntervalCoverage float64 // share of prices inside the 80% interval
	// The FSD: its mean, the share of prices within ±FSD of the value (68% when calibrated) and that share by
	// tenth of the test sales ordered by FSD.
	MeanFSD, FSDCoverage float64
	FSDDeciles           []FSDRow
	// The chance of landing within 10%: its mean and, by tenth of the test sales ordered by it, stated against
	// observed.
	MeanWithinTen float64
	Deciles       []DecileRow
	// TooUncertain counts the valuations whose 80% range is wider than a factor of MaxRangeRatio: the API refuses
	// them (free) rather than sell them.
	TooUncertain int
	Bias         float64 // median of log(value/price)
	// The test sales of homes that had sold before (in the market data): how many, and their MdAPE and PPE10.
	PriorN                 int
	PriorMdAPE, PriorPPE10 float64
	// The assessors' ratio study (IAAO Standard on Ratio Studies) of value/price: the median ratio, the coefficient
	// of dispersion (COD, %), the price-related differential (PRD) and bias (PRB).
	MedianRatio, COD, PRD, PRB float64
	// Paths is the calibration of each valuation path the test sales took (Path*), in Paths' order.
	Paths []PathReport
}

// PathReport is the accuracy and FSD calibration of the test sales valued one way.
type PathReport struct {
	Path                        string
	N                           int
	MdAPE, MeanFSD, FSDCoverage float64
	FSDDeciles                  []FSDRow
}

// DecileRow compares the stated chance of landing within 10% with the observed hit rate for one tenth of the test
// sales, ordered by that chance.
type DecileRow struct {
	N                 int
	MinConf, MaxConf  float64
	MeanConf, HitRate float64
}

// FSDRow compares the FSD with how often the price landed within ±FSD of the value (68% when calibrated), for one
// tenth of the test sales ordered by FSD.
type FSDRow struct {
	N              int
	MinFSD, MaxFSD float64
	MeanFSD        float64
	Within         float64
}

// Evaluate values every test sale with the engine and measures the results.
func (e *Engine) Evaluate(tests []TestSale) Report {
	type res struct {
		ape, within10, fsd, logErr float64
		value, price               float64
		path                       string
		hit, inside, prior, inFSD  bool
		uncertain                  bool
	}
	var rs []res
	for _, t := range tests {
		if t.Price <= 0 || !known(t.Home.Lat) {
			continue
		}
		var v Valuation
		switch {
		case t.Unit:
			v, _ = e.ValueUnit(t.Home, t.Date)
		case t.Approx:
			v, _ = e.ValueApprox(t.Home, t.Date)
		default:
			v = e.Value(t.Home, t.Property, t.Date)
		}
		if !(v.Value > 0) {
			continue
		}
		ape := math.Abs(v.Value-t.Price) / t.Price
		rel := math.Abs(t.Price/v.Value - 1)
		rs = append(rs, res{ape: ape, within10: v.WithinTen, fsd: v.FSD, logErr: math.Log(v.Value / t.Price),
			value: v.Value, price: t.Price, path: v.Path,
			hit: ape <= 0.10, inFSD: rel <= v.FSD, uncertain: v.TooUncertain(),
			inside: t.Price >= v.Low && t.Price <= v.High, prior: t.Property >= 0 && !t.Approx})
	}
	r := Report{N: len(tests), Valued: len(rs)}
	if len(rs) == 0 {
		return r
	}
	apes := make([]float64, len(rs))
	logErrs := make([]float64, len(rs))
	var sum, c5, c10, c20, inside, within10, fsd, inFSD float64
	for i, x := range rs {
		apes[i] = x.ape
		logErrs[i] = x.logErr
		sum += x.ape
		if x.ape <= 0.05 {
			c5++
		}
		if x.ape <= 0.10 {
			c10++
		}
		if x.ape <= 0.20 {
			c20++
		}
		if x.inside {
			inside++
		}
		if x.inFSD {
			inFSD++
		}
		if x.uncertain {
			r.TooUncertain++
		}
		within10 += x.within10
		fsd += x.fsd
	}
	n := float64(len(rs))
	r.MdAPE, r.MAPE = median(apes), sum/n
	r.PPE5, r.PPE10, r.PPE20 = c5/n, c10/n, c20/n
	r.IntervalCoverage, r.MeanWithinTen = inside/n, within10/n
	r.MeanFSD, r.FSDCoverage = fsd/n, inFSD/n
	r.Bias = median(logErrs)
	values, prices := make([]float64, len(rs)), make([]float64, len(rs))
	for i, x := range rs {
		values[i], prices[i] = x.value, x.price
	}
	r.MedianRatio, r.COD, r.PRD, r.PRB = RatioStudy(values, prices)
	var prior []float64
	for _, x := range rs {
		if x.prior {
			prior = append(prior, x.ape)
			if x.ape <= 0.10 {
				r.PriorPPE10++
			}
		}
	}
	if r.PriorN = len(prior); r.PriorN > 0 {
		r.PriorMdAPE, r.PriorPPE10 = median(prior), r.PriorPPE10/float64(r.PriorN)
	}
	// Each path on its own: its accuracy, and its FSD calibration by tenth.
	for _, path := range Paths {
		var p PathReport
		var apes []float64
		var sub []res
		for _, x := range rs {
			if x.path == path {
				sub = append(sub, x)
				apes = append(apes, x.ape)
				p.MeanFSD += x.fsd
				if x.inFSD {
					p.FSDCoverage++
				}
			}
		}
		if p.N = len(sub); p.N == 0 {
			continue
		}
		p.Path, p.MdAPE, p.MeanFSD, p.FSDCoverage = path, median(apes), p.MeanFSD/float64(p.N), p.FSDCoverage/float64(p.N)
		sort.Slice(sub, func(a, b int) bool { return sub[a].fsd < sub[b].fsd })
		for _, t := range statedByTenth(len(sub), func(i int) (float64, bool) { return sub[i].fsd, sub[i].inFSD }) {
			p.FSDDeciles = append(p.FSDDeciles, FSDRow{N: t.n, MinFSD: t.min, MaxFSD: t.max, MeanFSD: t.mean, Within: t.rate})
		}
		r.Paths = append(r.Paths, p)
	}
	// Tenths ordered by the stated chance of landing within 10% of the value: stated against observed.
	sort.Slice(rs, func(a, b int) bool { return rs[a].within10 < rs[b].within10 })
	for _, t := range statedByTenth(len(rs), func(i int) (float64, bool) { return rs[i].within10, rs[i].hit }) {
		r.Deciles = append(r.Deciles, DecileRow{N: t.n, MinConf: t.min, MaxConf: t.max, MeanConf: t.mean, HitRate: t.rate})
	}
	// Tenths ordered by FSD: how often each lands within its ±FSD (68% when calibrated).
	sort.Slice(rs, func(a, b int) bool { return rs[a].fsd < rs[b].fsd })
	for _, t := range statedByTenth(len(rs), func(i int) (float64, bool) { return rs[i].fsd, rs[i].inFSD }) {
		r.FSDDeciles = append(r.FSDDeciles, FSDRow{N: t.n, MinFSD: t.min, MaxFSD: t.max, MeanFSD: t.mean, Within: t.rate})
	}
	return r
}

// RatioStudy measures values against sale prices as assessors do (IAAO Standard on Ratio Studies, 2013): the
// median of the ratios value/price; the coefficient of dispersion, the mean absolute deviation of the ratios from
// their median as a percentage of it (IAAO: 5 to 15 for homes); the price-related differential, the mean ratio over
// the ratio of the sums (0.98 to 1.03: above, cheap homes are valued high against dear ones); and the price-related
// bias, the slope of the ratios' relative deviation from the median against the log2 of a value proxy halfway
// between the value (over the median ratio) and the price (−0.05 to 0.05: the change in ratio when value doubles).
func RatioStudy(values, prices []float64) (medianRatio, cod, prd, prb float64) {
	n := len(values)
	if n == 0 || n != len(prices) {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	ratios := make([]float64, n)
	var sumV, sumP, sumR float64
	for i := range values {
		ratios[i] = values[i] / prices[i]
		sumV += values[i]
		sumP += prices[i]
		sumR += ratios[i]
	}
	sorted := append([]float64(nil), ratios...)
	sort.Float64s(sorted)
	medianRatio = median(sorted)
	var dev float64
	for _, r := range ratios {
		dev += math.Abs(r - medianRatio)
	}
	cod = 100 * dev / float64(n) / medianRatio
	prd = (sumR / float64(n)) / (sumV / sumP)
	// PRB: least squares of y = (ratio − median)/median on x = log2(0.5·value/median + 0.5·price).
	var sx, sy, sxx, sxy float64
	for i := range values {
		x := math.Log2(0.5*values[i]/medianRatio + 0.5*prices[i])
		y := (ratios[i] - medianRatio) / medianRatio
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	fn := float64(n)
	if d := fn*sxx - sx*sx; d != 0 {
		prb = (fn*sxy - sx*sy) / d
	}
	return medianRatio, cod, prd, prb
}

// tenth is one tenth of n results ordered by a stated figure: their count, the figure's range and mean, and the
// share of them that came true.
type tenth struct {
	n                    int
	min, max, mean, rate float64
}

// statedByTenth splits n results, already ordered by the figure at gives, into tenths (at(i) is result i's figure
// and whether it came true), for a calibration table.
func statedByTenth(n int, at func(i int) (float64, bool)) []tenth {
	var out []tenth
	for _, b := range tenths(n) {
		t := tenth{n: b[1] - b[0]}
		t.min, _ = at(b[0])
		t.max, _ = at(b[1] - 1)
		for i := b[0]; i < b[1]; i++ {
			v, ok := at(i)
			t.mean += v
			if ok {
				t.rate++
			}
		}
		t.mean /= float64(t.n)
		t.rate /= float64(t.n)
		out = append(out, t)
	}
	return out
}

// tenths splits n ordered items into ten groups as [from, to) bounds, skipping empty ones.
func tenths(n int) [][2]int {
	var out [][2]int
	for d := 0; d < 10; d++ {
		lo, hi := d*n/10, (d+1)*n/10
		if hi > lo {
			out = append(out, [2]int{lo, hi})
		}
	}
	return out
}

// Print writes the report as text.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "test sales %d, valued %d (coverage %.1f%%)\n", r.N, r.Valued, 100*float64(r.Valued)/float64(max(1, r.N)))
	fmt.Fprintf(w, "MdAPE %.2f%%  MAPE %.2f%%  PPE5 %.1f%%  PPE10 %.1f%%  PPE20 %.1f%%  median bias %+.2f%%\n",
		100*r.MdAPE, 100*r.MAPE, 100*r.PPE5, 100*r.PPE10, 100*r.PPE20, 100*(math.Exp(r.Bias)-1))
	if r.PriorN > 0 {
		fmt.Fprintf(w, "homes that sold before (%d): MdAPE %.2f%%  PPE10 %.1f%%\n", r.PriorN, 100*r.PriorMdAPE, 100*r.PriorPPE10)
	}
	fmt.Fprintf(w, "ratio study (value/price): median %.3f  COD %.1f  PRD %.3f  PRB %+.3f (IAAO: COD 5-15, PRD 0.98-1.03, PRB -0.05 to 0.05)\n",
		r.MedianRatio, r.COD, r.PRD, r.PRB)
	fmt.Fprintf(w, "80%% interval coverage %.1f%%; refused as too uncertain (range wider than %gx): %d\n",
		100*r.IntervalCoverage, MaxRangeRatio, r.TooUncertain)
	fmt.Fprintf(w, "FSD: mean %.1f%% (confidence 1 - FSD: %.1f%%), prices within +/-FSD %.1f%% (calibrated: 68%%)\n",
		100*r.MeanFSD, 100*(1-r.MeanFSD), 100*r.FSDCoverage)
	fmt.Fprintf(w, "FSD calibration by decile of FSD:\n")
	fmt.Fprintf(w, "  decile      n   FSD range          mean FSD   within +/-FSD   gap to 68%%\n")
	for i, d := range r.FSDDeciles {
		fmt.Fprintf(w, "  %6d  %5d   %5.1f%% - %5.1f%%   %5.1f%%     %5.1f%%         %+5.1f\n", i+1, d.N, 100*d.MinFSD,
			100*d.MaxFSD, 100*d.MeanFSD, 100*d.Within, 100*(d.Within-fsdLevel))
	}
	for _, p := range r.Paths {
		fmt.Fprintf(w, "path %s: %d valued, MdAPE %.2f%%, mean FSD %.1f%%, within +/-FSD %.1f%%; by decile of FSD:\n",
			p.Path, p.N, 100*p.MdAPE, 100*p.MeanFSD, 100*p.FSDCoverage)
		for i, d := range p.FSDDeciles {
			fmt.Fprintf(w, "  %6d  %5d   %5.1f%% - %5.1f%%   %5.1f%%     %5.1f%%         %+5.1f\n", i+1, d.N, 100*d.MinFSD,
				100*d.MaxFSD, 100*d.MeanFSD, 100*d.Within, 100*(d.Within-fsdLevel))
		}
	}
	fmt.Fprintf(w, "within 10%%: stated %.1f%%, observed %.1f%%; by decile of the stated chance:\n", 100*r.MeanWithinTen, 100*r.PPE10)
	fmt.Fprintf(w, "  decile      n   stated range       stated   observed   gap\n")
	for i, d := range r.Deciles {
		fmt.Fprintf(w, "  %6d  %5d   %5.1f%% - %5.1f%%   %5.1f%%    %5.1f%%  %+5.1f\n", i+1, d.N, 100*d.MinConf,
			100*d.MaxConf, 100*d.MeanConf, 100*d.HitRate, 100*(d.HitRate-d.MeanConf))
	}
}
