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
}

func (e *Engine) signalsFor(h *Home, nb knn, modelLog float64, comps []Comparable, neff, sd, mad, shift float64,
	at time.Time) signals {
	s := signals{compSD: sd, compMAD: mad, neff: neff, shift: math.Abs(shift)}
	s.sizeVsNbr = orZero(math.Abs(logOr(h.Sqft) - logOr(h.NbrSqft)))
	s.priceVsNbr = orZero(math.Abs(modelLog - e.index.At(at) - nb.lprice))
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
		s.attrs, s.sizeVsNbr, s.priceVsNbr, s.nbrSpread, s.logValue, s.logValue * s.logValue, s.located}
}

// calibration turns signals into a confidence and an interval. A small boosted model predicts the scale of a
// valuation's error (its expected absolute log error) from the signals; dividing held-out errors by their predicted
// scale gives standardized errors whose empirical distribution F is the same for easy and hard homes. Then
// P(within 10%) = F(0.1 / scale), and the 80% interval is plus or minus the 80th percentile of F times the scale.
// Both are calibrated on held-out valuations by construction, rather than assumed.
type calibration struct {
	// scale predicts log |error|; its models are averaged (the final one and the fold ones, as for values).
	scale []*gbm.Model
	// z holds the held-out standardized absolute errors, sorted (the distribution F), one for valuations of
	// recorded homes and one for approximate ones (ZIP centre): the second kind's errors are not only larger but
	// more heavy-tailed, and sharing one F would misstate both.
	z, zApprox []float64
	// zr and zrApprox are the same valuations' standardized relative errors |price/value − 1| / scale, sorted: the
	// FSD is their 68th percentile times the scale, so that a sale lands within ±FSD of its value 68% of the time
	// as a percentage of the value (how a customer reads it), not only in log units.
	zr, zrApprox []float64
	// horizon is how far ahead (months) the held-out valuations reached; confidence beyond it is widened.
	horizon float64
	// strength scales the predicted error: the held-out valuations came from an engine trained on fewer months,
	// whose errors are larger than the final engine's by the ratio of their out-of-fold errors on the same sales.
	strength float64
	// Held-out measurements, for reports; timeForward says they come from a holdout after the data rather than
	// from out-of-fold errors.
	holdoutN    int
	holdoutHits float64
	timeForward bool
}

// errScale is the predicted expected absolute log error of a valuation, widened past the calibrated horizon.
func (c calibration) errScale(s signals) float64 {
	sc := 0.1
	if len(c.scale) > 0 {
		v, sum := s.vector(), 0.0
		for _, m := range c.scale {
			sum += m.Predict(v)
		}
		sc = math.Exp(sum / float64(len(c.scale)))
	}
	if c.strength > 0 {
		sc *= c.strength
	}
	if extra := s.monthsAhead - c.horizon; extra > 0 {
		t := staleTrendError * math.Min(extra, 120)
		sc = math.Sqrt(sc*sc + t*t)
	}
	return sc
}

// dist is the standardized error distribution for a valuation with these signals.
func (c calibration) dist(s signals) []float64 {
	if s.located == 0 && len(c.zApprox) > 0 {
		return c.zApprox
	}
	return c.z
}

// fsdLevel is the share of sales an FSD covers: within ±FSD of the value 68% of the time, the industry's forecast
// standard deviation (one standard deviation of a normal error).
const fsdLevel = 0.68

// fsd is the forecast standard deviation of a valuation with these signals: the relative error a sale stays
// within 68% of the time, calibrated on held-out sales (the 68th percentile of their standardized relative errors
// times the predicted scale).
func (c calibration) fsd(s signals) float64 {
	zr := c.zr
	if s.located == 0 && len(c.zrApprox) > 0 {
		zr = c.zrApprox
	}
	q := 1.25 // the 68% quantile of |error| over its mean for a normal error, used before calibration
	if len(zr) > 0 {
		q = quantile(zr, fsdLevel)
	}
	return q * c.errScale(s)
}

// quantile is the p-quantile of sorted values (the nearest rank below).
func quantile(sorted []float64, p float64) float64 {
	return sorted[int(p*float64(len(sorted)-1))]
}

// withinTen is the calibrated probability that the sale price lands within 10% of the value.
func (c calibration) withinTen(s signals) float64 {
	z := c.dist(s)
	if len(z) == 0 {
		return 0.5
	}
	p := ecdf(z, 0.1/c.errScale(s))
	// Never claim certainty or nothing: 2% to 98%.
	return math.Max(0.02, math.Min(0.98, p))
}

// interval returns the log offsets of the 80% interval around the value.
func (c calibration) interval(s signals) (lo, hi float64) {
	q := 1.6 // the 80% quantile of |error| over its mean for a normal error, used before calibration
	if z := c.dist(s); len(z) > 0 {
		q = quantile(z, 0.8)
	}
	h := q * c.errScale(s)
	return -h, h
}

// ecdf is the share of sorted values at or below x.
func ecdf(sorted []float64, x float64) float64 {
	return float64(sort.SearchFloat64s(sorted, math.Nextafter(x, math.Inf(1)))) / float64(len(sorted))
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
		if s.Date.Before(cut) {
			nBefore++
		} else {
			nAfter++
		}
	}
	strength := 1.0
	if nBefore >= 500 && nAfter >= 200 {
		if sub, err := trainCore(m, opt, cut); err == nil {
			strength = relativeStrength(e, sub)
			// The holdout engine weighs a home's last sale as the final engine will.
			sub.blendSale = e.blendSale
			// A large market is calibrated on a sample of its held-out sales (opt.MaxHoldout).
			keep := sampler(nAfter, opt.MaxHoldout)
			for i, s := range m.Sales {
				if !usable(m, s, time.Time{}) || s.Date.Before(cut) || (keep != nil && !keep(saleKey(s, int32(i)))) {
					continue
				}
				h := m.Properties[s.Property].Home
				v := sub.value(&h, s.Property, s.Date, -1)
				held = append(held, heldOut{sig: v.signals, logErr: math.Log(s.Price) - math.Log(v.Value),
					modelErr: math.Log(s.Price) - math.Log(v.ModelValue), compMean: v.compMean, neff: v.signals.neff,
					last: v.last})
				held = appendApprox(held, sub, h, s, len(held))
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
		}
	} else {
		held = held[:0]
		for k := range e.sales {
			s := &e.sales[k]
			h := e.market.Properties[s.property].Home
			v := e.value(&h, s.property, s.date, int32(k))
			// The engine saw this sale; its out-of-fold residual stands in for the error it would have made.
			logErr := s.resid - math.Log(v.Value/v.ModelValue)
			held = append(held, heldOut{sig: v.signals, logErr: logErr})
			held = appendApprox(held, e, h, m.Sales[s.sale], k)
		}
	}
	c := fitCalibration(held)
	c.strength = strength
	c.timeForward = forward
	return c
}

// relativeStrength is the ratio of the final engine's out-of-fold error to the holdout engine's, on the sales both
// learned from (median absolute residuals), kept within 0.8 to 1: more data never makes an engine worse, and a
// large gap would say more about noise than about strength.
func relativeStrength(final, sub *Engine) float64 {
	subResid := make(map[int32]float64, len(sub.sales))
	for _, s := range sub.sales {
		subResid[s.sale] = math.Abs(s.resid)
	}
	var a, b []float64
	for _, s := range final.sales {
		if r, ok := subResid[s.sale]; ok {
			a = append(a, math.Abs(s.resid))
			b = append(b, r)
		}
	}
	if len(a) < 100 {
		return 1
	}
	return math.Max(0.8, math.Min(1, median(a)/median(b)))
}

// appendApprox adds the valuation of a sale as for an address not on record, so the calibration also learns how
// sure such valuations are: all keep the type and living area (the least such a lookup needs), two in three also
// beds, baths and year built.
func appendApprox(held []heldOut, e *Engine, h Home, s Sale, n int) []heldOut {
	v, ok := approxVariant(h, n%3 != 0)
	if !ok {
		return held
	}
	val, _ := e.ValueApprox(v, s.Date)
	return append(held, heldOut{sig: val.signals, logErr: math.Log(s.Price) - math.Log(val.Value), approx: true})
}

// minAbsErr floors |error| before its log: a valuation within 0.2% is as good as exact.
const minAbsErr = 0.002

// scaleParams keep the scale model small and smooth: it learns from a few thousand held-out errors.
func scaleParams() gbm.Params {
	p := gbm.DefaultParams()
	p.Trees, p.LearningRate, p.NumLeaves, p.MinLeaf = 300, 0.03, 8, 60
	p.FeatureFraction, p.BaggingFraction = 0.8, 0.8
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
	// has seen the very error it divides.
	fold := make([]int, len(held))
	for i := range fold {
		fold[i] = i % 5
	}
	oof, foldModels, err := outOfFold(X, nil, y, fold, nil, 5, scaleParams())
	if err != nil {
		return c
	}
	for i := range held {
		sc := math.Exp(oof[i])
		z, zr := math.Abs(held[i].logErr)/sc, math.Abs(math.Exp(held[i].logErr)-1)/sc
		if held[i].approx {
			c.zApprox = append(c.zApprox, z)
			c.zrApprox = append(c.zrApprox, zr)
		} else {
			c.z = append(c.z, z)
			c.zr = append(c.zr, zr)
		}
	}
	for _, v := range [][]float64{c.z, c.zApprox, c.zr, c.zrApprox} {
		sort.Float64s(v)
	}
	if final, err := gbm.Train(X, y, nil, scaleParams()); err == nil {
		c.scale = append([]*gbm.Model{final}, present(foldModels)...)
	}
	return c
}
