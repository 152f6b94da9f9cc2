package avm

import (
	"math"
	"slices"
	"sort"
	"time"
)

// A recorded sale of the home itself is evidence of its value that no comparable can match: the same walls, lot
// and view. It is not a comparable (the comparables never include the subject) but a third estimate beside the
// model and the comparables: its price moved to the valuation date by the index, blended in with a weight fitted on
// held-out sales that have an earlier sale (fitSaleBlend).

// saleBlend is the fitted rule: the weight of the last sale is W0·e^(−months/Tau), and zero when that sale sat more
// than Theta below what the model says the home is worth. King County shows why the cut is needed: most homes that
// sell twice within a year were bought well under the model (in need of work) and resold after the work at half as
// much again, so their first price says little about the second.
type saleBlend struct{ W0, Tau, Theta float64 }

// weight is the last sale's share of the value; gap is how far the sale lies from the moment valued (log units of
// price above the model, r1, and months).
func (b saleBlend) weight(r1, months float64) float64 {
	if b.W0 <= 0 || r1 < -b.Theta {
		return 0
	}
	return b.W0 * math.Exp(-months/b.Tau)
}

// lastSale is the home's latest recorded sale before a valuation date, as evidence.
type lastSale struct {
	sale   int32   // index in e.sales, -1 when the home has none
	adj    float64 // its log price moved to the valuation date by the index
	r1     float64 // adj less the model's log value: how far above (+) or below (−) the model it sold
	months float64 // its age at the valuation date
	weight float64
}

// lastSaleOf finds the latest sale of property before at (never skip) and weighs it against modelLog.
func (e *Engine) lastSaleOf(property int32, at time.Time, skip int32, modelLog float64) lastSale {
	best := int32(-1)
	own := e.byProperty(property) // oldest first
	for i := len(own) - 1; i >= 0 && best < 0; i-- {
		if k := own[i]; k != skip && e.saleDate(&e.sales[k]).Before(at) {
			best = k
		}
	}
	if best < 0 {
		return lastSale{sale: -1}
	}
	s := &e.sales[best]
	ix := e.saleIndex(s)
	ls := lastSale{sale: best, adj: e.logPrice(s) + ix.At(at) - ix.At(e.saleDate(s)),
		months: at.Sub(e.saleDate(s)).Hours() / 24 / 30.4}
	ls.r1 = ls.adj - modelLog
	ls.weight = e.blendSale.weight(ls.r1, ls.months)
	return ls
}

// indexByProperty lists each property's sales (indexes in e.sales), oldest first.
func (e *Engine) indexByProperty() {
	// Two arrays rather than a map of slices (issue 39: about 60 bytes a home): counted, placed in the order of
	// the sales, then each property's sorted by date as before.
	n := e.market.NumProperties()
	e.ownStart = make([]int32, n+1)
	for k := range e.sales {
		e.ownStart[e.sales[k].property+1]++
	}
	for p := range n {
		e.ownStart[p+1] += e.ownStart[p]
	}
	e.own = make([]int32, len(e.sales))
	next := slices.Clone(e.ownStart[:n])
	for k := range e.sales {
		p := e.sales[k].property
		e.own[next[p]] = int32(k)
		next[p]++
	}
	for p := range n {
		ks := e.byProperty(int32(p))
		sort.Slice(ks, func(a, b int) bool { return e.saleDate(&e.sales[ks[a]]).Before(e.saleDate(&e.sales[ks[b]])) })
	}
}

// byProperty lists a property's sales (indexes in sales), oldest first.
func (e *Engine) byProperty(p int32) []int32 {
	if p < 0 || int(p) >= len(e.ownStart)-1 {
		return nil
	}
	return e.own[e.ownStart[p]:e.ownStart[p+1]]
}

// salePair is a sale of a home that had sold before: how far each sale sat from the model (the earlier one moved to
// the later one's date by the index) and the months between them.
type salePair struct{ r1, r2, months float64 }

// outOfFoldPairs are the market's repeat sales, each measured against the out-of-fold model (which never saw
// either sale: folds are by home).
func (e *Engine) outOfFoldPairs() []salePair {
	var pairs []salePair
	for p := range int32(len(e.ownStart) - 1) {
		ks := e.byProperty(p)
		for i := 1; i < len(ks); i++ {
			a, b := &e.sales[ks[i-1]], &e.sales[ks[i]]
			pairs = append(pairs, salePair{r1: a.resid, r2: b.resid, months: e.saleDate(b).Sub(e.saleDate(a)).Hours() / 24 / 30.4})
		}
	}
	return pairs
}

// minSalePairs: with fewer repeat sales to learn from, the last sale is shown but not weighed.
const minSalePairs = 20

// fitSaleBlend chooses the rule that minimises the median absolute error of the later sales of the pairs, preferring
// no blend unless it clearly helps.
func fitSaleBlend(pairs []salePair) saleBlend {
	if len(pairs) < minSalePairs {
		return saleBlend{}
	}
	errs := make([]float64, len(pairs))
	eval := func(b saleBlend) float64 {
		for i, p := range pairs {
			errs[i] = math.Abs(p.r2 - b.weight(p.r1, p.months)*p.r1)
		}
		return median(errs)
	}
	best, bestErr := saleBlend{}, eval(saleBlend{})
	for _, w0 := range []float64{0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 1} {
		for _, tau := range []float64{6, 12, 24, 48, 120} {
			for _, theta := range []float64{0.1, 0.15, 0.2, 0.3, 0.5, math.Inf(1)} {
				b := saleBlend{W0: w0, Tau: tau, Theta: theta}
				if err := eval(b); err < bestErr-0.001 {
					best, bestErr = b, err
				}
			}
		}
	}
	return best
}
