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
	// Approx values the sale as a lookup of an address not on record (ValueApprox).
	Approx bool
}

// Report holds the accuracy measures of the protocol in ../shared/data/README.md.
type Report struct {
	N, Valued        int
	MdAPE, MAPE      float64
	PPE5, PPE10      float64
	PPE20            float64
	IntervalCoverage float64 // share of prices inside the 80% interval
	MeanConfidence   float64
	Deciles          []DecileRow
	Bias             float64 // median of log(value/price)
	// The test sales of homes that had sold before (in the market data): how many, and their MdAPE and PPE10.
	PriorN                 int
	PriorMdAPE, PriorPPE10 float64
}

// DecileRow compares stated confidence with the observed hit rate (within 10%) for one tenth of the test sales,
// ordered by stated confidence.
type DecileRow struct {
	N                 int
	MinConf, MaxConf  float64
	MeanConf, HitRate float64
}

// Evaluate values every test sale with the engine and measures the results.
func (e *Engine) Evaluate(tests []TestSale) Report {
	type res struct {
		ape, conf, logErr  float64
		hit, inside, prior bool
	}
	var rs []res
	for _, t := range tests {
		if t.Price <= 0 || !known(t.Home.Lat) {
			continue
		}
		var v Valuation
		if t.Approx {
			v, _ = e.ValueApprox(t.Home, t.Date)
		} else {
			v = e.Value(t.Home, t.Property, t.Date)
		}
		if !(v.Value > 0) {
			continue
		}
		ape := math.Abs(v.Value-t.Price) / t.Price
		rs = append(rs, res{ape: ape, conf: v.Confidence, logErr: math.Log(v.Value / t.Price), hit: ape <= 0.10,
			inside: t.Price >= v.Low && t.Price <= v.High, prior: t.Property >= 0 && !t.Approx})
	}
	r := Report{N: len(tests), Valued: len(rs)}
	if len(rs) == 0 {
		return r
	}
	apes := make([]float64, len(rs))
	logErrs := make([]float64, len(rs))
	var sum, c5, c10, c20, inside, conf float64
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
		conf += x.conf
	}
	n := float64(len(rs))
	r.MdAPE, r.MAPE = median(apes), sum/n
	r.PPE5, r.PPE10, r.PPE20 = c5/n, c10/n, c20/n
	r.IntervalCoverage, r.MeanConfidence = inside/n, conf/n
	r.Bias = median(logErrs)
	var prior []float64
	for _, x := range rs {
		if x.prior {
			prior = append(prior, x.ape)
			if x.hit {
				r.PriorPPE10++
			}
		}
	}
	if r.PriorN = len(prior); r.PriorN > 0 {
		r.PriorMdAPE, r.PriorPPE10 = median(prior), r.PriorPPE10/float64(r.PriorN)
	}
	sort.Slice(rs, func(a, b int) bool { return rs[a].conf < rs[b].conf })
	for d := 0; d < 10; d++ {
		lo, hi := d*len(rs)/10, (d+1)*len(rs)/10
		if hi <= lo {
			continue
		}
		row := DecileRow{N: hi - lo, MinConf: rs[lo].conf, MaxConf: rs[hi-1].conf}
		for _, x := range rs[lo:hi] {
			row.MeanConf += x.conf
			if x.hit {
				row.HitRate++
			}
		}
		row.MeanConf /= float64(row.N)
		row.HitRate /= float64(row.N)
		r.Deciles = append(r.Deciles, row)
	}
	return r
}

// Print writes the report as text.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "test sales %d, valued %d (coverage %.1f%%)\n", r.N, r.Valued, 100*float64(r.Valued)/float64(max(1, r.N)))
	fmt.Fprintf(w, "MdAPE %.2f%%  MAPE %.2f%%  PPE5 %.1f%%  PPE10 %.1f%%  PPE20 %.1f%%  median bias %+.2f%%\n",
		100*r.MdAPE, 100*r.MAPE, 100*r.PPE5, 100*r.PPE10, 100*r.PPE20, 100*(math.Exp(r.Bias)-1))
	if r.PriorN > 0 {
		fmt.Fprintf(w, "homes that sold before (%d): MdAPE %.2f%%  PPE10 %.1f%%\n", r.PriorN, 100*r.PriorMdAPE, 100*r.PriorPPE10)
	}
	fmt.Fprintf(w, "80%% interval coverage %.1f%%, mean stated confidence %.1f%%\n", 100*r.IntervalCoverage, 100*r.MeanConfidence)
	fmt.Fprintf(w, "calibration by decile of stated confidence:\n")
	fmt.Fprintf(w, "  decile      n   confidence range   stated   observed   gap\n")
	for i, d := range r.Deciles {
		fmt.Fprintf(w, "  %6d  %5d   %5.1f%% - %5.1f%%   %5.1f%%    %5.1f%%  %+5.1f\n", i+1, d.N, 100*d.MinConf,
			100*d.MaxConf, 100*d.MeanConf, 100*d.HitRate, 100*(d.HitRate-d.MeanConf))
	}
}
