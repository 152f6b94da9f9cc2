package avm

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"sync"
	"time"

	"valuator/internal/avm/gbm"
	"valuator/internal/geo"
)

// Options tune training. The zero value is not useful; start from DefaultOptions.
type Options struct {
	Model gbm.Params
	// Folds for the out-of-fold residuals that comparables and calibration rely on.
	Folds int
	// HoldoutMonths: confidence is calibrated by training on all but the last months of the market and valuing
	// the sales of those months, as the engine will value homes past its data.
	HoldoutMonths int
	// Comps is how many comparable sales a valuation weighs.
	Comps int
	// Bag averages the final model with the fold models.
	Bag bool
	// MaxModelSales bounds the sales the value models learn from (0: all). A larger market's models learn from a
	// random sample of about this many (chosen by a hash of each sale's id: the same sales whenever the market is
	// trained again), which bounds the boosting, most of the training time, and the features held in memory.
	// Every sale is still a comparable, feeds the index and the neighbourhood features, and gets an out-of-fold
	// residual.
	MaxModelSales int
	// MaxHoldout bounds the held-out valuations that calibrate confidence (0: all), sampled the same way.
	MaxHoldout int
}

// DefaultOptions are the settings measured in docs/accuracy.md.
func DefaultOptions() Options {
	p := gbm.DefaultParams()
	// 750 trees at a learning rate of 0.06 on 63 bins: measured on King County as accurate as 1,500 trees at 0.03
	// on 255 bins (within the run-to-run spread) and five times faster to train.
	p.Trees = 750
	p.LearningRate = 0.06
	p.MaxBins = 63
	p.NumLeaves = 48
	p.MinLeaf = 10
	p.FeatureFraction = 0.6
	p.BaggingFraction = 0.8
	// 200,000 sales: on the 100,000-home demo market, models learned from a sample of 40,000 of its 114,000 sales
	// valued the later sales as well as models learned from all of them (docs/operations.md, "Large markets"),
	// while every sale learned from costs training time and memory. King County (21,600 sales) is far below it.
	return Options{Model: p, Folds: 5, HoldoutMonths: 4, Comps: 12, Bag: true, MaxModelSales: 200_000,
		MaxHoldout: 20_000}
}

// scaled shrinks the model for small markets, where 1,500 trees would only fit noise and cost start-up time.
func (o Options) scaled(n int) Options {
	if n < 5000 {
		o.Model.Trees = max(200, o.Model.Trees*n/5000)
		o.Model.MinLeaf = max(5, min(o.Model.MinLeaf, n/200))
	}
	return o
}

// saleInfo is what a valuation needs to know about one market sale used as a comparable.
// The sale's date and price and its home's facts are not copied here but read from the market (saleDate,
// logPrice, saleHome): the copy cost 136 bytes a sale (issue 39).
type saleInfo struct {
	sale     int32 // index in Market.Sales
	property int32
	deflated float64 // the log price less the index at the sale's date
	// resid is the sale's out-of-fold residual in deflated log price: how much it sold above (+) or below (-)
	// what a model that never saw it expected.
	resid float64
	// pred is the out-of-fold model value in deflated log units (logPrice - index - resid).
	pred float64
}

// saleHome is the home a sale is of.
func (e *Engine) saleHome(s *saleInfo) Home { return e.market.Home(s.property) }

// saleLsqft is the log living area of the home a sale is of (lsqft of saleHome).
func (e *Engine) saleLsqft(s *saleInfo) float64 {
	return logOr(e.market.homes.facts[fSqft].at(s.property))
}

// saleDate is a sale's date.
func (e *Engine) saleDate(s *saleInfo) time.Time { return e.market.Sales[s.sale].Date() }

// logPrice is a sale's log price.
func (e *Engine) logPrice(s *saleInfo) float64 { return math.Log(e.market.Sales[s.sale].Price) }

// lsqft is a home's log living area (NaN when unknown).
func lsqft(h *Home) float64 { return logOr(h.Sqft) }

// Engine is a trained valuation engine.
type Engine struct {
	market *Market
	opt    Options
	models []*gbm.Model // averaged, for homes the models never learned from
	// folds are the out-of-fold models, by fold: a home whose sales the models learned from is valued by the one
	// model that did not (its fold's), so that its value is not its own remembered price (see predictFor).
	folds []*gbm.Model
	index Index // the whole market's
	// areas are the indexes of the market's metros, areas and ZIP codes (area.go); a home's value moves with the
	// most specific one that covers it (indexFor).
	areas   areaIndexes
	sales   []saleInfo
	spatial *geo.Index // over sales
	homes   *geo.Index // over the market's properties
	// offset is added to the models' mean: the median out-of-fold residual (see trainCore).
	offset float64
	// elasticity corrects a neighbour's log price to the subject's living area in the likeness-weighted price
	// (knnOf), fitted on the market's own sales (fitElasticity).
	elasticity float64
	// The sales of property p (indexes in sales), oldest first, are own[ownStart[p]:ownStart[p+1]] (byProperty).
	ownStart, own []int32
	// blendSale weighs a home's own last sale (lastsale.go).
	blendSale saleBlend
	// blend: final log value = model + alpha * n/(n+k0) * weighted mean comp residual.
	alpha, k0 float64
	calib     calibration
	// dataEnd is the day after the latest sale the engine learned from.
	dataEnd time.Time
	rent    rentModel
}

// ErrNoMarket means there is nothing to learn from.
var ErrNoMarket = errors.New("avm: the market has no usable sales")

// Train learns an engine from the market. Sales without a location or a positive price are ignored.
func Train(m *Market, opt Options) (*Engine, error) {
	fillNeighbourhood(m)
	e, err := trainCore(m, opt, time.Time{})
	if err != nil {
		return nil, err
	}
	e.blendSale = fitSaleBlend(e.outOfFoldPairs())
	e.calib = calibrate(m, opt, e)
	e.rent = trainRent(m)
	return e, nil
}

// minSales is the fewest usable sales an engine learns from (fewer: ErrNoMarket).
const minSales = 30

// Trainable reports whether Train can learn from m (it has minSales usable sales), without training: a server
// that leaves training to a worker asks it before it waits for the worker's engine (issue 39).
func Trainable(m *Market) bool {
	n := 0
	for _, s := range m.Sales {
		if usable(m, s, time.Time{}) {
			if n++; n >= minSales {
				return true
			}
		}
	}
	return false
}

// usable reports whether a sale can teach the model.
func usable(m *Market, s Sale, before time.Time) bool {
	if s.Price <= 0 || int(s.Property) >= m.NumProperties() {
		return false
	}
	if !known(m.homes.lat[s.Property]) || !known(m.homes.lon[s.Property]) {
		return false
	}
	return before.IsZero() || s.Date().Before(before)
}

// trainCore fits the index, the value model, the out-of-fold residuals and the comparable blend on the sales
// dated before `before` (all when zero). It does not calibrate.
func trainCore(m *Market, opt Options, before time.Time) (*Engine, error) {
	var idx []int32
	for i, s := range m.Sales {
		if usable(m, s, before) {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) < minSales {
		return nil, fmt.Errorf("%w (%d sales; at least %d needed)", ErrNoMarket, len(idx), minSales)
	}
	opt = opt.scaled(len(idx))
	opt.Model.Monotone = monotoneFeatures
	n := len(idx)
	// The models learn from at most MaxModelSales of the sales (fit; nil: all of them).
	var fit []bool
	if keep := sampler(n, opt.MaxModelSales); keep != nil {
		fit = make([]bool, n)
		for k, i := range idx {
			fit[k] = keep(saleKey(m.Sales[i], i))
		}
	}
	// X holds the features of the sales the models learn from; the others' are computed when they are predicted
	// (baseRow, fullRow), so that a large market's features are never all held at once.
	home := func(k int) Home { return m.Home(m.Sales[idx[k]].Property) }
	X := make([][]float64, n)
	y := make([]float64, n)
	dates := make([]time.Time, n)
	fold := make([]int, n)
	for k, i := range idx {
		s := m.Sales[i]
		if fit == nil || fit[k] {
			X[k] = features(new(home(k)), make([]float64, 0, len(featureNames)))
		}
		y[k] = math.Log(s.Price)
		dates[k] = s.Date()
		// Folds by property, so a home's other sales never help predict it out of fold.
		fold[k] = foldOf(m.PropertyID(s.Property), opt.Folds)
	}
	baseRow := func(k int, dst []float64) []float64 { return features(new(home(k)), dst) }

	// 1. The index of the market and of its areas, from the time effects of a quick model (timeEffects).
	quick := opt.Model
	quick.Trees, quick.LearningRate = max(100, opt.Model.Trees/5), 0.1
	start, end := monthStart(dates[0]), monthStart(dates[0])
	zips := make([]string, n)
	for k, d := range dates {
		start, end = minTime(start, monthStart(d)), maxTime(end, monthStart(d))
		zips[k] = home(k).ZIP
	}
	months := monthIndex(start, end) + 1
	as, err := timeEffects(X, baseRow, y, dates, zips, fit, start, months, quick)
	if err != nil {
		return nil, err
	}
	for k := range as {
		as[k].lat, as[k].lon = home(k).Lat, home(k).Lon
		as[k].home = m.Sales[idx[k]].Property
	}
	// The whole market's index: over a long history, from the time effects too; over a short one, the monthly
	// median residual against a quick model without time, out of fold so that the residuals are honest. The time
	// effects cure what a model without time gets wrong over years (homes built during the history only sell late
	// in it, and their age takes the credit for the market's rise: on the 10-year demo market the median residual
	// index rose 2.4% in a year where every metro rose 4.5-7%), but over months there is little of that to cure and
	// the median stands firmer against a few odd sales than the model's mean: on King County's 9 months the median
	// residual index valued the test sales with an MdAPE of 7.92-8.01% over three seeds, the time effects 7.99-8.10%
	// (docs/accuracy.md, "Price index").
	var index Index
	if months >= timeEffectsMonths {
		index = marketIndex(as, start, months)
	} else {
		oof, _, err := outOfFold(X, baseRow, y, fold, fit, opt.Folds, quick)
		if err != nil {
			return nil, err
		}
		resid0 := make([]float64, n)
		for k := range y {
			resid0[k] = y[k] - oof[k]
		}
		index = buildIndex(dates, resid0)
	}

	// 2. Deflate prices to the average level of the index of each sale's area and index the sales in space.
	e := &Engine{market: m, opt: opt, index: index, areas: buildAreas(index, as)}
	as = nil
	yd := make([]float64, n)
	for k, i := range idx {
		s := m.Sales[i]
		ix, _ := e.indexOfZIP(m.homes.zip.at(s.Property))
		yd[k] = y[k] - ix.At(dates[k])
		e.sales = append(e.sales, saleInfo{sale: i, property: s.Property, deflated: yd[k]})
		if !s.Date().Before(e.dataEnd) {
			e.dataEnd = s.Date().AddDate(0, 0, 1)
		}
	}
	e.spatial = e.salesIndex()
	e.homes = propertyIndex(m)
	e.indexByProperty()
	e.elasticity = e.fitElasticity(func(k int) bool { return fit == nil || fit[k] }, home)

	// 3. The neighbourhood's prices as features, leaving out every sale of the home itself (its own history is
	// weighed apart, as its last sale).
	withNbr := func(k int, x []float64) []float64 {
		own := e.sales[k].property
		h := home(k)
		nb := e.knnFor(&h, func(id int32) bool { return e.sales[id].property != own })
		return nb.append(x, &h)
	}
	for k := range X {
		if X[k] != nil {
			X[k] = withNbr(k, X[k])
		}
	}
	fullRow := func(k int, dst []float64) []float64 { return withNbr(k, features(new(home(k)), dst)) }

	// 4. Out-of-fold residuals of the full model, for the comparables' adjustments and the blend.
	oof, foldModels, err := outOfFold(X, fullRow, yd, fold, fit, opt.Folds, opt.Model)
	if err != nil {
		return nil, err
	}
	e.folds = foldModels
	// The model learns the mean log price, but a sale's median sits above it: distressed and family sales pull the
	// mean down more than any pull it up. The median out-of-fold residual moves every value to the median, so that
	// half of sales land above a valuation and half below (King County: +0.5%).
	for k := range e.sales {
		e.sales[k].resid = yd[k] - oof[k]
	}
	e.offset = medianResid(e.sales)
	for k := range e.sales {
		e.sales[k].resid -= e.offset
		e.sales[k].pred = oof[k] + e.offset
	}

	// 5. The value model, on every sale (or the sample); with Bag, averaged with the fold models (a bagged ensemble: steadier
	// values for little extra work, since the fold models exist anyway).
	Xf, yf := X, yd
	if fit != nil {
		Xf, yf = nil, nil
		for k := range X {
			if fit[k] {
				Xf, yf = append(Xf, X[k]), append(yf, yd[k])
			}
		}
	}
	final, err := gbm.Train(Xf, yf, nil, opt.Model)
	if err != nil {
		return nil, err
	}
	e.models = []*gbm.Model{final}
	if opt.Bag {
		e.models = append(e.models, present(foldModels)...)
	}
	return e, nil
}

func medianResid(sales []saleInfo) float64 {
	r := make([]float64, len(sales))
	for k := range sales {
		r[k] = sales[k].resid
	}
	return median(r)
}

// foldOf is a property's fold: by its record's id, so that all its sales share one.
func foldOf(id int64, folds int) int {
	h := fnv.New32a()
	fmt.Fprint(h, id)
	return int(h.Sum32() % uint32(folds))
}

// salesIndex indexes the engine's sales in space, by their index in e.sales: a sale is where its home is, and the
// index reads the home's position from the market.
func (e *Engine) salesIndex() *geo.Index {
	ids := make([]int32, len(e.sales))
	for k := range ids {
		ids[k] = int32(k)
	}
	return geo.NewIndexAt(ids, func(k int32) (float64, float64) { return e.market.homes.latLon(e.sales[k].property) })
}

// propertyIndex indexes the market's located properties in space, by their index in the market.
func propertyIndex(m *Market) *geo.Index {
	var ids []int32
	for i, lat := range m.homes.lat {
		if lon := m.homes.lon[i]; known(lat) && known(lon) {
			ids = append(ids, int32(i))
		}
	}
	return geo.NewIndexAt(ids, m.homes.latLon)
}

// sampler returns a test that keeps about limit of n items, chosen by a hash of each item's key, or nil when all are
// kept (limit 0, or n <= limit). The same key is kept or dropped whatever n is, up to the share kept.
func sampler(n, limit int) func(key uint64) bool {
	if limit <= 0 || n <= limit {
		return nil
	}
	below := uint64(float64(limit) / float64(n) * math.MaxUint64)
	return func(key uint64) bool { return mix64(key) < below }
}

// saleKey identifies sale i of a market for sampling: its record's id, or its position when it has none.
func saleKey(s Sale, i int32) uint64 {
	if s.ID != 0 {
		return uint64(s.ID)
	}
	return uint64(i) | 1<<63
}

// mix64 is SplitMix64's finaliser: consecutive keys map to unrelated, evenly spread values.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// outOfFold predicts every row with a model trained on the other folds, and returns those models by fold (nil for a
// fold without rows). Only rows with fit[k] (all when fit is nil) are learned from, and only they need be in X;
// a row that is not (X[k] nil) is computed by row when it is predicted. Every row is predicted. The folds train in
// parallel, one per core: they are independent, and this is most of the training time.
func outOfFold(X [][]float64, row func(k int, dst []float64) []float64, y []float64, fold []int, fit []bool, folds int,
	p gbm.Params) ([]float64, []*gbm.Model, error) {
	out := make([]float64, len(X))
	models := make([]*gbm.Model, folds)
	errs := make([]error, folds)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for f := 0; f < folds; f++ {
		var Xf [][]float64
		var yf []float64
		for k := range X {
			if fold[k] != f && (fit == nil || fit[k]) {
				Xf = append(Xf, X[k])
				yf = append(yf, y[k])
			}
		}
		if len(Xf) == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(f int) {
			defer func() { <-sem; wg.Done() }()
			fm, err := gbm.Train(Xf, yf, nil, p)
			if err != nil {
				errs[f] = err
				return
			}
			models[f] = fm
			// Each fold writes only its own rows.
			var buf []float64
			for k, x := range X {
				if fold[k] != f {
					continue
				}
				if x == nil {
					buf = row(k, buf[:0])
					x = buf
				}
				out[k] = fm.Predict(x)
			}
		}(f)
	}
	wg.Wait()
	return out, models, errors.Join(errs...)
}

// present drops the folds that had no model (a fold with no rows of its own).
func present(models []*gbm.Model) []*gbm.Model {
	var kept []*gbm.Model
	for _, m := range models {
		if m != nil {
			kept = append(kept, m)
		}
	}
	return kept
}

// Elasticity bounds: fitElasticity's answer is clipped to them, and defaultElasticity is used where too few sales
// differ in size from their neighbours to fit one.
const (
	defaultElasticity  = 0.45
	minElasticity      = 0.2
	maxElasticity      = 1.5
	minElasticitySales = 200
)

// fitElasticity fits the elasticity of price to living area that the likeness-weighted price (knnOf) corrects each
// neighbour by: the least-squares slope, over the market's own sales that use accepts, of a sale's deflated log price
// less its neighbours' likeness-weighted mean on its log size less theirs (never the sale's own home). That is the
// elasticity with which that price best predicts the sales it is built from, and so it is learned from the market
// the engine trains on, never from a sale it is tested on (King County: 0.45 was a fixed guess).
func (e *Engine) fitElasticity(use func(k int) bool, home func(k int) Home) float64 {
	var sxy, sxx float64
	n := 0
	for k := range e.sales {
		if !use(k) || !known(e.saleLsqft(&e.sales[k])) {
			continue
		}
		own := e.sales[k].property
		h := new(home(k))
		var sw, sp, sl float64
		for _, x := range e.knnNeighbours(h, func(id int32) bool { return e.sales[id].property != own }) {
			s := &e.sales[x.ID]
			sh := e.saleHome(s)
			if !known(lsqft(&sh)) {
				continue
			}
			w := likeness(h, &sh, x.Miles)
			sw += w
			sp += w * s.deflated
			sl += w * lsqft(&sh)
		}
		if sw <= 0 {
			continue
		}
		dp, dl := e.sales[k].deflated-sp/sw, e.saleLsqft(&e.sales[k])-sl/sw
		sxy += dp * dl
		sxx += dl * dl
		n++
	}
	if n < minElasticitySales || sxx <= 0 {
		return defaultElasticity
	}
	return math.Max(minElasticity, math.Min(maxElasticity, sxy/sxx))
}

// knnFor summarises the deflated prices of the nearest market sales that keep accepts.
func (e *Engine) knnFor(h *Home, keep func(int32) bool) knn {
	return e.knnOf(h, e.knnNeighbours(h, keep))
}

// knnNeighbours are the sales knnFor summarises: the 30 nearest to h that keep accepts.
func (e *Engine) knnNeighbours(h *Home, keep func(int32) bool) []geo.Neighbor {
	return e.spatial.Nearest(h.Lat, h.Lon, 30, compRadiusWide, keep)
}

// knnOf summarises neighbours nb of h (knnNeighbours) as knnFor does: apart, because the likeness weights depend on
// the home, the neighbours only on where it is (the comparables' walk reweighs one set at each step).
func (e *Engine) knnOf(h *Home, nb []geo.Neighbor) knn {
	if len(nb) == 0 {
		n := math.NaN()
		return knn{n, n, n, n, n, n, n}
	}
	var k knn
	// The likeness-weighted estimate: each neighbour's deflated log price, corrected for the difference in living
	// area by the market's elasticity (fitElasticity), weighted by how alike the homes are in all but the size (likeness: weights that
	// followed the size could make the estimate fall as the size grows, see monotoneFeatures); and the price per
	// sqft of the nearest homes of the same construction grade.
	var ss, ssv, gs float64
	var gn int
	for _, x := range nb {
		s := &e.sales[x.ID]
		sh := e.saleHome(s)
		sl := lsqft(&sh)
		sim := likeness(h, &sh, x.Miles)
		if known(h.Grade) && known(sh.Grade) {
			sim *= math.Exp(-math.Abs(h.Grade-sh.Grade) / 1.5)
			if h.Grade == sh.Grade && gn < 10 && known(sl) {
				gs += s.deflated - sl
				gn++
			}
		}
		v := s.deflated
		if known(sl) && h.Sqft > 0 {
			v += e.elasticity * (math.Log(h.Sqft) - sl)
		}
		ss += sim
		ssv += sim * v
	}
	k.simLprice, k.gradeLppsf = math.NaN(), math.NaN()
	if ss > 0 {
		k.simLprice = ssv / ss
	}
	if gn > 0 {
		k.gradeLppsf = gs / float64(gn)
	}
	var sw, swp, swpp, sl float64
	var n10, np int
	for i, x := range nb {
		s := &e.sales[x.ID]
		ls := e.saleLsqft(s)
		if i < 10 {
			w := 1 / (0.1 + x.Miles)
			sl += s.deflated
			k.miles += x.Miles
			n10++
			if known(ls) {
				v := s.deflated - ls
				sw += w
				swp += w * v
				swpp += w * v * v
			}
		}
		if known(ls) {
			k.lppsf30 += s.deflated - ls
			np++
		}
	}
	k.lprice = sl / float64(n10)
	k.miles /= float64(n10)
	if sw > 0 {
		k.lppsf = swp / sw
		k.sd = math.Sqrt(math.Max(0, swpp/sw-k.lppsf*k.lppsf))
	} else {
		k.lppsf, k.sd = math.NaN(), math.NaN()
	}
	if np > 0 {
		k.lppsf30 /= float64(np)
	} else {
		k.lppsf30 = math.NaN()
	}
	return k
}

// fillNeighbourhood sets NbrSqft and NbrLot, where unknown, to the mean of the 15 nearest other homes that know
// theirs.
func fillNeighbourhood(m *Market) {
	t := &m.homes
	sqft, lot, nbrSqft, nbrLot := &t.facts[fSqft], &t.facts[fLotSqft], &t.facts[fNbrSqft], &t.facts[fNbrLot]
	var pts []geo.Point
	for i, lat := range t.lat {
		if lon := t.lon[i]; known(lat) && known(lon) && sqft.at(int32(i)) > 0 {
			pts = append(pts, geo.Point{ID: int32(i), Lat: lat, Lon: lon})
		}
	}
	if len(pts) < 2 {
		return
	}
	sp := geo.NewIndex(pts)
	for i := range int32(t.len()) {
		lat, lon := t.lat[i], t.lon[i]
		hasSqft, hasLot := known(nbrSqft.at(i)), known(nbrLot.at(i))
		if (hasSqft && hasLot) || !known(lat) || !known(lon) {
			continue
		}
		self := i
		nb := sp.Nearest(lat, lon, 15, 10, func(id int32) bool { return id != self })
		var ss, sl float64
		var ns, nl int
		for _, x := range nb {
			ss += sqft.at(x.ID)
			ns++
			if o := lot.at(x.ID); o > 0 {
				sl += o
				nl++
			}
		}
		if !hasSqft && ns > 0 {
			nbrSqft.set(i, ss/float64(ns))
		}
		if !hasLot && nl > 0 {
			nbrLot.set(i, sl/float64(nl))
		}
	}
}

// SpatialBytes is the memory the engine's spatial indexes hold, over the market's homes, the sales and the rents,
// for measuring (TestMemoryBreakdown in internal/valuation).
func (e *Engine) SpatialBytes() (homes, sales, rents int) {
	return e.homes.Bytes(), e.spatial.Bytes(), e.rent.spatial.Bytes()
}
