package avm

import (
	"math"
	"sort"
	"time"

	"valuator/internal/avm/gbm"
)

// signals are what the confidence of one valuation is estimated from.
type signals struct {
	compSD      float64 // spread of the comparables' residuals
	compMAD     float64 // mean absolute residual of the comparables: how predictable the neighbourhood is
	neff        float64 // effective number of comparables
	nearMiles   float64 // mean distance of the three nearest comparables
	shift       float64 // how far the comparables and the last sale moved the model's value
	monthsAhead float64 // how far past the engine's data the valuation date lies
	simSum      float64 // total weight of the comparables (likeness times recency): how much evidence there is
	compAge     float64 // weighted mean age of the comparables' sales, in months
	lastSale    float64 // the weight of the home's own last sale in its value
	attrs       float64 // share of the main attributes known
	// How typical the home is for its neighbourhood: unusual homes are valued less surely.
	sizeVsNbr  float64 // |log(living area / neighbourhood's)|
	priceVsNbr float64 // |model log value - neighbourhood's log price|
	nbrSpread  float64 // spread of the neighbourhood's price per sqft
	logValue   float64 // log of the value, centred at $500,000
	located    float64 // 1 when the home's own coordinates are known, 0 when only its ZIP code's centre
	// disagree is how far the estimate lies from the comparables' indicated value (|log ratio|; 0 without one):
	// a home valued 30% under every comparable is less sure than one its comparables agree with.
	disagree float64
	// path is how the value was reached (Path*): each path's errors are calibrated on their own.
	path string
}

// Valuation paths: how a value was reached, each calibrated on its own held-out valuations (DESIGN.md section 5).
const (
	PathOwnSale     = "own_sale"      // a home on record, its own recent sale weighed
	PathRecord      = "record"        // a home on record, valued without a sale of its own
	PathUnit        = "unit"          // a unit not on record, placed at its building, from the facts given
	PathFacts       = "facts"         // an address not on record, from its type, size and more facts
	PathTypeAndSize = "type_and_size" // an address not on record, from its type and living area alone
)

// Paths lists the paths, records first.
var Paths = []string{PathOwnSale, PathRecord, PathUnit, PathFacts, PathTypeAndSize}

// pooled is the wider group a path falls back on when it has too few held-out valuations of its own.
func pooled(path string) string {
	if path == PathOwnSale || path == PathRecord {
		return "records"
	}
	return "not_on_record"
}

// minPathHeldOut is the fewest held-out valuations a path's calibration is read from. With fewer, it borrows its
// pool's and says so (Thin): such a value reads no better than Medium (thinFSD).
const minPathHeldOut = 100

// thinFSD is the least FSD of a path calibrated on too few held-out valuations of its own: confidence 0.85, the
// top of Medium.
const thinFSD = 0.15

func (e *Engine) signalsFor(h *Home, nb knn, modelLog float64, comps []Comparable, neff, sd, mad, shift float64,
	at time.Time) signals {
	s := signals{compSD: sd, compMAD: mad, neff: neff, shift: math.Abs(shift)}
	s.sizeVsNbr = orZero(math.Abs(logOr(h.Sqft) - logOr(h.NbrSqft)))
	ix, _, _ := e.indexFor(h)
	s.priceVsNbr = orZero(math.Abs(modelLog - ix.At(at) - nb.lprice))
	s.nbrSpread = orZero(nb.sd)
	s.logValue = modelLog - math.Log(500000)
	if s.compSD != s.compSD {
		s.compSD, s.compMAD = 0.3, 0.3
	}
	var near []float64
	for _, c := range comps {
		near = append(near, c.Miles)
		s.simSum += c.weight
		s.compAge += c.weight * at.Sub(c.Date).Hours() / 24 / 30.4
	}
	if s.simSum > 0 {
		s.compAge /= s.simSum
	}
	sort.Float64s(near)
	if len(near) == 0 {
		s.nearMiles = 25
	} else {
		k := min(3, len(near))
		for _, d := range near[:k] {
			s.nearMiles += d
		}
		s.nearMiles /= float64(k)
	}
	s.monthsAhead = math.Max(0, at.Sub(e.dataEnd).Hours()/24/30.4)
	return s
}

func orZero(v float64) float64 {
	if v != v {
		return 0
	}
	return v
}

// vector turns signals into the calibration model's inputs.
func (s signals) vector() []float64 {
	return []float64{math.Log(0.01 + s.compSD), math.Log(0.01 + s.compMAD), math.Log(1 + s.neff),
		math.Log(0.05 + s.nearMiles), s.shift, math.Log(0.01 + s.simSum), math.Log(1 + s.compAge), s.lastSale,
		s.attrs, s.sizeVsNbr, s.priceVsNbr, s.nbrSpread, s.logValue, s.logValue * s.logValue, s.located, s.disagree}
}

// calibration turns signals into a confidence and an interval. A small boosted model predicts the scale of a
// valuation's error (its expected absolute log error) from the signals; dividing held-out errors by their predicted
// scale gives standardized errors whose empirical distribution F is the same for easy and hard homes. Then
// P(within 10%) = F(0.1 / scale), and the 80% interval is plus or minus the 80th percentile of F times the scale.
// Both are calibrated on held-out valuations by construction, rather than assumed.
type calibration struct {
	// scale predicts log |error|; its models are averaged (the final one and the fold ones, as for values).
	scale []*gbm.Model
	// bands hold the held-out standardized errors by path (and by pool, see pooled), each path's in bands of
	// predicted error scale: a path's errors are not only larger or smaller than another's but differently tailed
	// (a home known by its type and size alone misses by far more, and more often, than its scale says), and within
	// a path the scale model flatters its surest homes and overstates its least sure ones a little, so one F per path
	// left the top and bottom tenths of FSD 5 to 8 points off 68% on King County. Quantiles are read between the two
	// bands nearest a valuation's scale.
	bands map[string][]band
	// widen multiplies the error scale of a thin path (too few held-out valuations for bands of its own) by how much
	// larger its own held-out errors were than its pool's (thinWidening); absent, 1.
	widen map[string]float64
	// disagreeUsual is the usual distance between an estimate and its comparables' indicated value in this market
	// (the 90th percentile of the held-out valuations of recorded homes, |log ratio|): farther is worth a warning.
	disagreeUsual float64
	// horizon is how far ahead (months) the held-out valuations reached; confidence beyond it is widened.
	horizon float64
	// Held-out measurements, for reports; timeForward says they come from a holdout after the data rather than
	// from out-of-fold errors.
	holdoutN    int
	holdoutHits float64
	timeForward bool
}

// band is the held-out valuations of one path within one band of predicted error scale: the band's median log
// scale, and their standardized absolute errors |log error| / scale (Z) and relative errors |price/value − 1| / scale
// (ZR), sorted. The FSD is ZR's 68th percentile times the scale, so that a sale lands within ±FSD of its value 68%
// of the time as a percentage of the value (how a customer reads it), not only in log units.
type band struct {
	LogScale float64
	Z, ZR    []float64
}

// rawScale is the scale model's predicted expected absolute log error, before the horizon's widening.
func (c calibration) rawScale(s signals) float64 {
	if len(c.scale) == 0 {
		return 0.1
	}
	v, sum := s.vector(), 0.0
	for _, m := range c.scale {
		sum += m.Predict(v)
	}
	return math.Exp(sum / float64(len(c.scale)))
}

// errScale is the predicted expected absolute log error of a valuation, widened past the calibrated horizon.
func (c calibration) errScale(s signals) float64 {
	sc := c.rawScale(s)
	if w := c.widen[s.path]; w > 1 {
		sc *= w
	}
	if extra := s.monthsAhead - c.horizon; extra > 0 {
		t := staleTrendError * math.Min(extra, 120)
		sc = math.Sqrt(sc*sc + t*t)
	}
	return sc
}

// bandsOf returns the path's bands, or its pool's when the path has too few held-out valuations (thin).
func (c calibration) bandsOf(path string) (bs []band, thin bool) {
	if bs := c.bands[path]; heldIn(bs) >= minPathHeldOut {
		return bs, false
	}
	return c.bands[pooled(path)], true
}

func heldIn(bs []band) int {
	n := 0
	for _, b := range bs {
		n += len(b.Z)
	}
	return n
}

// minThinHeldOut is the fewest held-out valuations of a thin path its widening is read from.
const minThinHeldOut = 10

// thinWidening is, for each thin path with at least minThinHeldOut held-out valuations of its own, how many times
// its pool's standardized error its own held-out errors were (the ratio of the medians), when more than 1. A thin
// path borrows its pool's bands, and the pool's scale model knows its homes mostly through the others: on King County
// the 17 held-out own-sale valuations (homes resold within months, often renovated flips) missed by 1.98 times what
// the records' calibration said, and 58 test sales landed within ±FSD 51.7% of the time unwidened. Only a widening:
// too few valuations to claim that a path is surer than its pool.
func thinWidening(bands map[string][]band) map[string]float64 {
	zs := func(bs []band) []float64 {
		var z []float64
		for _, b := range bs {
			z = append(z, b.Z...)
		}
		return z
	}
	out := map[string]float64{}
	for _, p := range Paths {
		own := zs(bands[p])
		if len(own) < minThinHeldOut || len(own) >= minPathHeldOut {
			continue
		}
		pool := zs(bands[pooled(p)])
		if len(pool) == 0 {
			continue
		}
		if r := median(own) / median(pool); r > 1 {
			out[p] = r
		}
	}
	return out
}

// pathInfo describes each path's calibration, in the order of Paths.
func (c calibration) pathInfo() []PathInfo {
	out := make([]PathInfo, 0, len(Paths))
	for _, p := range Paths {
		out = append(out, PathInfo{Path: p, HeldOut: heldIn(c.bands[p]), Thin: c.thin(p), Widen: max(1, c.widen[p])})
	}
	return out
}

// thin reports whether the path's calibration borrowed its pool's, for too few held-out valuations of its own.
func (c calibration) thin(path string) bool {
	_, thin := c.bandsOf(path)
	return thin
}

// bracket finds the two bands around log scale ls, lo and hi, and where ls lies between them (t, 0 to 1, in log
// scale); past the ends both are the first or the last band. bs must not be empty.
func bracket(bs []band, ls float64) (lo, hi int, t float64) {
	i := sort.Search(len(bs), func(i int) bool { return bs[i].LogScale >= ls })
	lo, hi = max(i-1, 0), min(i, len(bs)-1)
	if lo != hi {
		t = (ls - bs[lo].LogScale) / (bs[hi].LogScale - bs[lo].LogScale)
	}
	return lo, hi, t
}

// read reads a figure of the bands around the valuation's scale: f of the band below and of the band above,
// interpolated in log scale (the first or last band alone past the ends). ok is false without bands.
func (c calibration) read(s signals, f func(b band) float64) (v float64, ok bool) {
	bs, _ := c.bandsOf(s.path)
	if len(bs) == 0 {
		return 0, false
	}
	lo, hi, t := bracket(bs, math.Log(c.rawScale(s)))
	return (1-t)*f(bs[lo]) + t*f(bs[hi]), true
}

// fsdLevel is the share of sales an FSD covers: within ±FSD of the value 68% of the time, the industry's forecast
// standard deviation (one standard deviation of a normal error).
const fsdLevel = 0.68

// fsd is the forecast standard deviation of a valuation with these signals: the relative error a sale stays
// within 68% of the time, calibrated on held-out sales (the 68th percentile of their standardized relative errors
// times the predicted scale).
func (c calibration) fsd(s signals) float64 {
	q, ok := c.read(s, func(b band) float64 { return quantile(b.ZR, fsdLevel) })
	if !ok {
		q = 1.25 // the 68% quantile of |error| over its mean for a normal error, used before calibration
	}
	f := q * c.errScale(s)
	if !ok || c.thin(s.path) {
		f = math.Max(f, thinFSD)
	}
	return f
}

// quantile is the p-quantile of sorted values (the nearest rank below).
func quantile(sorted []float64, p float64) float64 {
	return sorted[int(p*float64(len(sorted)-1))]
}

// withinTen is the calibrated probability that the sale price lands within 10% of the value: the share p of the
// errors whose quantile is 10%. A band's p-quantile of absolute log error is its standardized quantile times its
// scale; across the path's bands these are made to rise with the scale (pool-adjacent-violators, weighted by the
// bands' sizes), then read standardized around the valuation's scale and times that scale. Reading each band's own
// share at 10% left a plateau where a band of larger scale happened to hold relatively small errors: on King County
// homes of FSD 14.5% to 17.6% were all stated 50%, and 42% of their test prices landed within 10%.
func (c calibration) withinTen(s signals) float64 {
	return c.chanceWithin(s.path, math.Log(c.rawScale(s)), 0.1/c.errScale(s))
}

// chanceWithin is the chance that a valuation of the path, of log scale ls, misses by at most x scales (withinTen).
func (c calibration) chanceWithin(path string, ls, x float64) float64 {
	bs, _ := c.bandsOf(path)
	if len(bs) == 0 {
		return 0.5
	}
	lo, hi, t := bracket(bs, ls)
	// What does not depend on p is computed once, outside the search's 30 steps.
	abs, w, scale := make([]float64, len(bs)), make([]float64, len(bs)), make([]float64, len(bs))
	for k, b := range bs {
		w[k], scale[k] = float64(len(b.Z)), math.Exp(b.LogScale)
	}
	blocks := make([]pavaBlock, 0, len(bs))
	q := func(p float64) float64 {
		for k, b := range bs {
			abs[k] = quantileLin(b.Z, p) * scale[k]
		}
		rising := pava(abs, w, blocks)
		// Interpolated geometrically, as the scale is: where the bands pool to one absolute error, every scale
		// between them reads that error (linearly, one in the middle would read a little more).
		a, b := math.Max(rising[lo], 1e-12)/scale[lo], math.Max(rising[hi], 1e-12)/scale[hi]
		return math.Exp((1-t)*math.Log(a) + t*math.Log(b))
	}
	pLo, pHi := 0.0, 1.0
	for range 30 {
		mid := (pLo + pHi) / 2
		if q(mid) <= x {
			pLo = mid
		} else {
			pHi = mid
		}
	}
	// Never claim certainty or nothing: 2% to 98%.
	return math.Max(0.02, math.Min(0.98, pLo))
}

// pavaBlock is a run of values pava has pooled.
type pavaBlock struct {
	sum, weight float64
	n           int
}

// pava is the weighted least-squares non-decreasing fit to v (pool adjacent violators): a run of values that falls
// is replaced by its weighted mean. v is overwritten and returned; buf is scratch space (its contents are ignored),
// so that a caller fitting many times allocates once.
func pava(v, w []float64, buf []pavaBlock) []float64 {
	blocks := buf[:0]
	for k := range v {
		blocks = append(blocks, pavaBlock{v[k] * w[k], w[k], 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/a.weight <= b.sum/b.weight {
				break
			}
			blocks = append(blocks[:len(blocks)-2], pavaBlock{a.sum + b.sum, a.weight + b.weight, a.n + b.n})
		}
	}
	k := 0
	for _, b := range blocks {
		for range b.n {
			v[k] = b.sum / b.weight
			k++
		}
	}
	return v
}

// quantileLin is the p-quantile of sorted values, interpolated between ranks (continuous and rising in p).
func quantileLin(sorted []float64, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// interval returns the log offsets of the 80% interval around the value.
func (c calibration) interval(s signals) (lo, hi float64) {
	q, ok := c.read(s, func(b band) float64 { return quantile(b.Z, 0.8) })
	if !ok {
		q = 1.6 // the 80% quantile of |error| over its mean for a normal error, used before calibration
	}
	h := q * c.errScale(s)
	return -h, h
}

// staleTrendError is how uncertain the market trend becomes per month of extrapolation, in log units: about the
// spread of monthly index changes across US metros.
const staleTrendError = 0.008

// heldOut is one valuation of a sale the engine did not learn from.
type heldOut struct {
	sig    signals
	logErr float64 // log(price) - log(value)
	// For fitting the comparables' blend: the value model's own error and the comparables' mean residual.
	modelErr, compMean, neff float64
	last                     lastSale
	// approx marks a valuation made as for an address not on record (ZIP centre, few attributes).
	approx bool
	// modelVsComps is log(model value) − log(comparables' indicated value), NaN without one: with the blend's
	// shift it gives the estimate's disagreement with the comparables.
	modelVsComps float64
	// sale numbers the held-out sale the valuation is of: its variants (on record, as an address, as a unit) share
	// it, and so a fold.
	sale int
}

// calibrate fits the calibration and the comparables' blend (e.alpha, e.k0). With enough history it trains a
// second engine on all but the last HoldoutMonths and values the sales of those months (the situation of a real
// valuation: after the data); else it falls back to the market sales' out-of-fold errors, which understate the
// error of valuing ahead in time (the stale-trend widening then starts at the end of the data).
func calibrate(m *Market, opt Options, e *Engine) calibration {
	var held []heldOut
	cut := e.dataEnd.AddDate(0, -opt.HoldoutMonths, 0)
	var nBefore, nAfter int
	for _, s := range m.Sales {
		if !usable(m, s, time.Time{}) {
			continue
		}
		if s.Date().Before(cut) {
			nBefore++
		} else {
			nAfter++
		}
	}
	// The held-out engine learned from fewer months than the final one, and its out-of-fold errors within the data
	// are a little larger (King County: 0.8 to 1 times). Its errors after the data are taken as they are, not scaled
	// down by that ratio: after the data the trend's error, which more months do not shrink, weighs as much (scaled,
	// records' FSD covered 65.9% of King County's test prices; as they are, 67.3%).
	if nBefore >= 500 && nAfter >= 200 {
		if sub, err := trainCore(m, opt, cut); err == nil {
			// The holdout engine weighs a home's last sale as the final engine will.
			sub.blendSale = e.blendSale
			// A large market is calibrated on a sample of its held-out sales (opt.MaxHoldout).
			keep := sampler(nAfter, opt.MaxHoldout)
			valued := 0 // held-out sales valued so far: which variants a sale gets (appendApprox)
			for i, s := range m.Sales {
				if !usable(m, s, time.Time{}) || s.Date().Before(cut) || (keep != nil && !keep(saleKey(s, int32(i)))) {
					continue
				}
				h := m.Home(s.Property)
				v := sub.value(&h, s.Property, s.Date(), -1)
				held = append(held, heldOut{sig: v.signals, logErr: math.Log(s.Price) - math.Log(v.Value),
					modelErr: math.Log(s.Price) - math.Log(v.ModelValue), compMean: v.compMean, neff: v.signals.neff,
					last: v.last, modelVsComps: logRatio(v.ModelValue, v.ComparablesValue), sale: valued})
				held = appendApprox(held, sub, h, s, valued)
				valued++
			}
		}
	}
	forward := len(held) >= 200
	if forward {
		// How far should the comparables' residuals move the model's value? As far as it helped these valuations
		// (in King County, not at all: the model's neighbourhood features already carry what they know).
		e.alpha, e.k0 = fitBlend(held)
		for i := range held {
			h := &held[i]
			if h.approx {
				continue
			}
			shift := blendShift(e.alpha*h.neff/(h.neff+e.k0)*h.compMean, h.last)
			h.logErr = h.modelErr - shift
			h.sig.shift = math.Abs(shift)
			if known(h.modelVsComps) {
				h.sig.disagree = math.Abs(h.modelVsComps + shift)
			}
		}
	} else {
		held = held[:0]
		for k := range e.sales {
			s := &e.sales[k]
			h := e.market.Home(s.property)
			v := e.value(&h, s.property, e.saleDate(s), int32(k))
			// The engine saw this sale; its out-of-fold residual stands in for the error it would have made.
			logErr := s.resid - math.Log(v.Value/v.ModelValue)
			held = append(held, heldOut{sig: v.signals, logErr: logErr, sale: k})
			held = appendApprox(held, e, h, m.Sales[s.sale], k)
		}
	}
	c := fitCalibration(held)
	c.timeForward = forward
	return c
}

// appendApprox adds the valuation of a sale as for an address not on record, so the calibration also learns how
// sure such valuations are, path by path: all keep the type and living area (the least such a lookup needs), two in
// three also beds, baths and year built; and every fourth is also valued as a unit of its building (its own place,
// its type, size, beds and baths).
func appendApprox(held []heldOut, e *Engine, h Home, s Sale, n int) []heldOut {
	if v, ok := approxVariant(h, n%3 != 0); ok {
		val, _ := e.ValueApprox(v, s.Date())
		held = append(held, heldOut{sig: val.signals, logErr: math.Log(s.Price) - math.Log(val.Value), approx: true,
			sale: n})
	}
	if n%4 == 0 {
		if v, ok := unitVariant(h); ok {
			val, _ := e.ValueUnit(v, s.Date())
			held = append(held, heldOut{sig: val.signals, logErr: math.Log(s.Price) - math.Log(val.Value), approx: true,
				sale: n})
		}
	}
	return held
}

// logRatio is log(a) − log(b), NaN when either is not a positive value.
func logRatio(a, b float64) float64 {
	if !(a > 0) || !(b > 0) {
		return math.NaN()
	}
	return math.Log(a) - math.Log(b)
}

// minAbsErr floors |error| before its log: a valuation within 0.2% is as good as exact.
const minAbsErr = 0.002

// scaleParams keep the scale model small and smooth: it learns from a few thousand held-out errors. Its error scale
// may only rise with the disagreement between the estimate and the comparables (the last input of signals.vector):
// a home valued further from what its comparables indicate is never surer, all else equal. Unconstrained, a few
// held-out homes whose own sale was right against their comparables taught some retrainings the opposite.
func scaleParams() gbm.Params {
	p := gbm.DefaultParams()
	p.Trees, p.LearningRate, p.NumLeaves, p.MinLeaf = 300, 0.03, 8, 60
	p.FeatureFraction, p.BaggingFraction = 0.8, 0.8
	p.Monotone = make([]int8, len(signals{}.vector()))
	p.Monotone[len(p.Monotone)-1] = 1 // disagree
	return p
}

// fitBlend chooses the blend weight alpha and its shrinkage k0 that minimise the median absolute error of the
// held-out valuations.
func fitBlend(held []heldOut) (alpha, k0 float64) {
	var exact []heldOut
	for _, h := range held {
		if !h.approx {
			exact = append(exact, h)
		}
	}
	best := math.Inf(1)
	errs := make([]float64, len(exact))
	alpha, k0 = 0, 1
	for _, a := range []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1} {
		for _, k := range []float64{0.5, 1, 2, 4, 8} {
			for i, h := range exact {
				errs[i] = math.Abs(h.modelErr - a*h.neff/(h.neff+k)*h.compMean)
			}
			// Prefer no blend unless it clearly helps (0.1% of median error).
			if med := median(errs); med < best-0.0001 || (a == 0 && med < best) {
				best, alpha, k0 = med, a, k
			}
		}
	}
	return alpha, k0
}

// bandHeldOut is about how many held-out valuations make a band; a path has one to maxBands of them.
const (
	bandHeldOut = 300
	maxBands    = 10
)

// bandsOf splits held-out valuations idx, by their out-of-fold predicted log scale (oof), into bands of about
// bandHeldOut, and standardizes their errors.
func bandsOf(idx []int, oof []float64, held []heldOut) []band {
	sort.Slice(idx, func(a, b int) bool { return oof[idx[a]] < oof[idx[b]] })
	nb := max(1, min(maxBands, len(idx)/bandHeldOut))
	out := make([]band, 0, nb)
	for k := 0; k < nb; k++ {
		part := idx[k*len(idx)/nb : (k+1)*len(idx)/nb]
		b := band{LogScale: oof[part[len(part)/2]]}
		for _, i := range part {
			sc := math.Exp(oof[i])
			b.Z = append(b.Z, math.Abs(held[i].logErr)/sc)
			b.ZR = append(b.ZR, math.Abs(math.Exp(held[i].logErr)-1)/sc)
		}
		sort.Float64s(b.Z)
		sort.Float64s(b.ZR)
		out = append(out, b)
	}
	return out
}

func fitCalibration(held []heldOut) calibration {
	X := make([][]float64, len(held))
	y := make([]float64, len(held))
	hits := 0.0
	for i, h := range held {
		X[i] = h.sig.vector()
		// The model learns log |error|: its prediction is log scale plus a constant for every kind of home alike
		// (if e = scale * Z, then log|e| = log scale + log|Z|), and logs keep a few huge errors from steering it.
		y[i] = math.Log(math.Max(minAbsErr, math.Abs(h.logErr)))
		if math.Abs(math.Exp(h.logErr)-1) <= 0.10 {
			hits++
		}
	}
	c := calibration{holdoutN: len(held), holdoutHits: hits / float64(max(1, len(held)))}
	for _, h := range held {
		c.horizon = math.Max(c.horizon, h.sig.monthsAhead)
	}
	if len(held) < 50 {
		return c
	}
	// The standardized errors come from scales predicted out of fold, so F is not flattered by a scale model that
	// has seen the very error it divides. A sale's variants share a fold: they share the price's own surprise, and a
	// variant learned from would flatter the scale of the other.
	fold := make([]int, len(held))
	for i := range fold {
		fold[i] = held[i].sale % 5
	}
	oof, foldModels, err := outOfFold(X, nil, y, fold, nil, 5, scaleParams())
	if err != nil {
		return c
	}
	byKey := map[string][]int{}
	var disagree []float64
	for i := range held {
		for _, key := range []string{held[i].sig.path, pooled(held[i].sig.path)} {
			byKey[key] = append(byKey[key], i)
		}
		if !held[i].approx && held[i].sig.disagree > 0 {
			disagree = append(disagree, held[i].sig.disagree)
		}
	}
	c.bands = map[string][]band{}
	for key, idx := range byKey {
		c.bands[key] = bandsOf(idx, oof, held)
	}
	c.widen = thinWidening(c.bands)
	if len(disagree) >= minPathHeldOut {
		sort.Float64s(disagree)
		c.disagreeUsual = quantile(disagree, 0.9)
	}
	if final, err := gbm.Train(X, y, nil, scaleParams()); err == nil {
		c.scale = append([]*gbm.Model{final}, present(foldModels)...)
	}
	return c
}
