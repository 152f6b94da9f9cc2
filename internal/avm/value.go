package avm

import (
	"math"
	"sort"
	"time"

	"valuator/internal/avm/gbm"
)

// Comparable is a sale that informed a valuation. It is never a sale of the subject itself (see Evidence).
type Comparable struct {
	Sale       int32 // index in Market.Sales
	Property   int32 // index in Market.Properties
	Miles      float64
	Date       time.Time
	Price      float64
	Similarity float64 // 0-1: how alike the homes are (location, size, layout, age, type), not counting time
	// AdjustedPrice is what this sale says the subject is worth: its price moved to the valuation date by the
	// index and corrected for the differences between the two homes by the model.
	AdjustedPrice float64
	// Adjustments are the differences between the comparable and the subject, line by line in dollars, in the order
	// of the sales comparison grid (AdjustmentLines); they add up to AdjustedPrice − Price. NetAdjustment and
	// GrossAdjustment are their sum and the sum of their sizes, as shares of Price (Fannie Mae calls out more than
	// 15% and 25%). Set by Explain.
	Adjustments                    []Adjustment
	NetAdjustment, GrossAdjustment float64
	// Reconciled says the comparable is one of the three to six whose adjusted prices make ComparablesValue, with
	// ReconciliationWeight its share (set by Explain).
	Reconciled           bool
	ReconciliationWeight float64
	weight               float64
	resid                float64
	k                    int32 // index in Engine.sales
}

// Evidence kinds: what a value was made of.
const (
	EvidenceModel       = "model"
	EvidenceComparables = "comparables"
	EvidenceLastSale    = "last_sale"
)

// Evidence is one estimate a valuation blended, with its share of the value (the shares add up to 1, in log terms:
// value = product of estimate^weight).
type Evidence struct {
	Source string
	Weight float64
	Value  float64
	// For the last sale: its date and price as recorded (Value is that price moved to the valuation date).
	Date  time.Time
	Price float64
}

// Valuation is the engine's answer for one home at one date.
type Valuation struct {
	Value     float64
	Low, High float64 // 80% interval
	// FSD is the forecast standard deviation: the sale price lands within ±FSD of Value (as a share of Value) 68%
	// of the time, calibrated on held-out sales. Confidence is 1 − FSD (at least 0), the industry's confidence
	// score, so that a customer can compare it with other valuation services' scores.
	FSD        float64
	Confidence float64
	// WithinTen is the calibrated probability that the sale price lands within 10% of Value.
	WithinTen float64
	// At is the date the home was valued as of: the date asked for, or the newest sale's when that date lies more
	// than MaxTrendMonths past the market's data (see AsOf).
	At          time.Time
	ModelValue  float64 // the value model alone, before the comparables and the home's own last sale
	Comparables []Comparable
	// ComparablesValue is the comparables' indicated value: their adjusted prices reconciled (reconcile), 0 when
	// fewer than three could be used.
	ComparablesValue float64
	// Path is how the value was reached (Path*), whose own held-out valuations calibrate its FSD; PathThin says
	// the path had too few of them, so that its calibration is its pool's and its confidence at most Medium.
	Path     string
	PathThin bool
	// Disagreement is log(Value / ComparablesValue) (NaN without a comparables value), and Disagrees says it is
	// beyond the market's usual spread (UsualDisagreement): the answer must say so, and its FSD is wider by what the
	// calibration learned of such homes.
	Disagreement float64
	Disagrees    bool
	Evidence     []Evidence
	// Features of the confidence estimate, kept for explanations and tests.
	signals  signals
	compMean float64
	last     lastSale
}

// Comp search: the nearest sales within a radius that widens where sales are sparse. Options.Comps of them measure
// the neighbourhood (compStats); the first gridComps are adjusted and shown, as an appraiser's grid of three to six
// with a few more to choose from.
const (
	gridComps      = 8
	compCandidates = 40
	compRadius     = 3.0  // miles
	compRadiusWide = 25.0 // miles, when fewer than compMin are near
	compMin        = 5
)

// similarity scores how much a sale's home looks like the subject: nearby, of a like size, age, layout and type.
// Each factor is 1 for a perfect match and falls off with the difference. How recent the sale is counts separately
// (recency), so that a user reads similarity as likeness and the sale date as age.
func similarity(h, s *Home, miles float64) float64 {
	sim := likeness(h, s, miles)
	if known(h.Sqft) && known(s.Sqft) && h.Sqft > 0 && s.Sqft > 0 {
		sim *= math.Exp(-math.Abs(math.Log(h.Sqft/s.Sqft)) / 0.3)
	}
	return sim
}

// likeness is similarity without the living area: how near the sale is and how alike the homes are in layout, age
// and type.
func likeness(h, s *Home, miles float64) float64 {
	sim := math.Exp(-miles / 0.75)
	if known(h.Beds) && known(s.Beds) {
		sim *= math.Exp(-math.Abs(h.Beds-s.Beds) / 3)
	}
	if known(h.Baths) && known(s.Baths) {
		sim *= math.Exp(-math.Abs(h.Baths-s.Baths) / 3)
	}
	if known(h.YearBuilt) && known(s.YearBuilt) {
		sim *= math.Exp(-math.Abs(h.YearBuilt-s.YearBuilt) / 40)
	}
	if h.Type != "" && s.Type != "" && h.Type != s.Type {
		sim *= 0.5
	}
	return sim
}

// recency weighs a sale by its age at the valuation date: e^-1 per 18 months.
func recency(saleDate, at time.Time) float64 {
	return math.Exp(-at.Sub(saleDate).Hours() / 24 / 30.4 / 18)
}

// evidenceFilter accepts the market sales a valuation at `at` may learn from: sold before at, never the sale skip
// (the subject sale itself when valuing a market sale) and never a sale of the subject's own record, property
// (-1 for none): those are the home's own history, weighed as its last sale rather than as a neighbour.
func (e *Engine) evidenceFilter(property int32, at time.Time, skip int32) func(int32) bool {
	return func(id int32) bool {
		s := &e.sales[id]
		return id != skip && e.saleDate(s).Before(at) && (property < 0 || s.property != property)
	}
}

// comparables finds the homes that best resemble h, each by its most recent sale before at that keep accepts (an
// appraiser's practice: one entry per home, never two sales of one house).
func (e *Engine) comparables(h *Home, at time.Time, keep func(int32) bool) []Comparable {
	nb := e.spatial.Nearest(h.Lat, h.Lon, compCandidates, compRadius, keep)
	if len(nb) < compMin {
		nb = e.spatial.Nearest(h.Lat, h.Lon, compCandidates, compRadiusWide, keep)
	}
	comps := make([]Comparable, 0, len(nb))
	seen := make(map[int32]bool, len(nb))
	for _, x := range nb {
		s := &e.sales[x.ID]
		if seen[s.property] {
			continue
		}
		seen[s.property] = true
		k := e.latestSale(s.property, x.ID, keep)
		s = &e.sales[k]
		sim, rec := similarity(h, new(e.saleHome(s)), x.Miles), recency(e.saleDate(s), at)
		comps = append(comps, Comparable{Sale: s.sale, Property: s.property, Miles: x.Miles, Date: e.saleDate(s),
			Price: math.Exp(e.logPrice(s)), Similarity: sim, weight: sim * rec, resid: s.resid, k: k})
	}
	sort.Slice(comps, func(a, b int) bool { return comps[a].weight > comps[b].weight })
	if len(comps) > e.opt.Comps {
		comps = comps[:e.opt.Comps]
	}
	return comps
}

// compStats summarises the comparables' residuals: their weighted mean, the effective number of comparables
// (Kish), the weighted spread, and the weighted mean absolute residual (how predictable the area is).
func compStats(comps []Comparable) (mean, neff, sd, mad float64) {
	var sw, sw2 float64
	for _, c := range comps {
		sw += c.weight
		sw2 += c.weight * c.weight
		mean += c.weight * c.resid
		mad += c.weight * math.Abs(c.resid)
	}
	if sw <= 0 {
		return 0, 0, math.NaN(), math.NaN()
	}
	mean /= sw
	mad /= sw
	for _, c := range comps {
		sd += c.weight * (c.resid - mean) * (c.resid - mean)
	}
	sd = math.Sqrt(sd / sw)
	return mean, sw * sw / sw2, sd, mad
}

// Value estimates what h would sell for at the date at (see AsOf). property is the home's record in the market
// (-1 when it has none); its own latest earlier sale is then weighed as evidence of its own.
func (e *Engine) Value(h Home, property int32, at time.Time) Valuation {
	at, _ = e.AsOf(at)
	return e.value(&h, property, at, -1)
}

// MaxRangeRatio is the widest 80% range worth selling: a valuation whose high end is more than this many times its
// low end says little more than the neighbourhood's spread, so it is refused, free, rather than charged.
const MaxRangeRatio = 3.0

// TooUncertain reports whether the valuation's 80% range is wider than MaxRangeRatio.
func (v Valuation) TooUncertain() bool { return v.High > MaxRangeRatio*v.Low }

// MaxTrendMonths is how far past its newest sale the engine carries a market's trend. Beyond it the trend is a
// guess (a market imported from the records of 2008 says nothing of 2026's prices), so a home is valued as of the
// newest sale instead, and the answer says so.
const MaxTrendMonths = 24

// AsOf is the time a valuation asked for at is made as of: at itself while it lies within MaxTrendMonths of the
// market's newest sale, else the end of the newest sale's day, so that the sales of that day count (stale is then
// true).
func (e *Engine) AsOf(at time.Time) (asOf time.Time, stale bool) {
	if at.Before(e.dataEnd.AddDate(0, MaxTrendMonths, 0)) {
		return at, false
	}
	return e.dataEnd.Add(-time.Second), true
}

func (e *Engine) value(h *Home, property int32, at time.Time, skip int32) Valuation {
	attrs := 0.0
	for _, v := range []float64{h.Beds, h.Baths, h.Sqft, h.YearBuilt, h.LotSqft} {
		if known(v) {
			attrs += 0.2
		}
	}
	return e.valueWith(h, property, at, skip, PathRecord, attrs)
}

// valueWith values h; kind is PathRecord for a home on record (its own coordinates and facts; valueWith tells
// PathOwnSale from it), otherwise the path of a home valued from the facts given (approximate: placed at a ZIP
// code's centre or its building, the rest assumed), and attrs is the share of its main attributes that were known
// rather than assumed.
func (e *Engine) valueWith(h *Home, property int32, at time.Time, skip int32, kind string, attrs float64) Valuation {
	located := kind == PathRecord
	p := e.point(h, property, at, skip, located)
	modelLog, comps, mean, neff, sd, mad, wComps, last, shift, nb := p.modelLog, p.comps, p.mean, p.neff, p.sd, p.mad,
		p.wComps, p.last, p.shift, p.nb
	// The grid: the most alike and recent homes, adjusted line by line (their residuals above have already
	// measured the neighbourhood with all of them).
	if len(comps) > gridComps {
		comps = comps[:gridComps]
	}
	if len(comps) > 0 {
		// One model walks every comparable to the subject (the ensemble's six would make a valuation several times
		// slower): one that never learned the subject's own sales, which would otherwise echo in every
		// comparable's adjusted price (a home resold 30% over its value had its comparables indicate as much).
		m := e.modelsFor(property)[0]
		keep := e.evidenceFilter(property, at, skip)
		subjectLog := m.Predict(p.x)
		for i := range comps {
			e.adjust(&comps[i], h, m, keep, subjectLog, at)
		}
	}
	v := Valuation{
		ComparablesValue: reconcile(comps),
		At:               at,
		compMean:         mean,
		last:             last,
		Value:            math.Exp(modelLog + shift),
		ModelValue:       math.Exp(modelLog),
		Comparables:      comps,
	}
	v.Evidence = []Evidence{{Source: EvidenceModel, Weight: (1 - last.weight) * (1 - wComps), Value: v.ModelValue}}
	if len(comps) > 0 {
		v.Evidence = append(v.Evidence, Evidence{Source: EvidenceComparables, Weight: (1 - last.weight) * wComps,
			Value: math.Exp(modelLog + mean)})
	}
	if last.sale >= 0 {
		s := &e.sales[last.sale]
		v.Evidence = append(v.Evidence, Evidence{Source: EvidenceLastSale, Weight: last.weight, Value: math.Exp(last.adj),
			Date: e.saleDate(s), Price: math.Exp(e.logPrice(s))})
	}
	v.signals = e.signalsFor(h, nb, modelLog, comps, neff, sd, mad, math.Abs(shift), at)
	v.signals.lastSale = last.weight
	v.signals.attrs = attrs
	v.signals.path = kind
	if located {
		v.signals.located = 1
		if last.weight > 0 {
			v.signals.path = PathOwnSale
		}
	}
	v.Disagreement = logRatio(v.Value, v.ComparablesValue)
	if known(v.Disagreement) {
		v.signals.disagree = math.Abs(v.Disagreement)
		v.Disagrees = v.signals.disagree > e.UsualDisagreement()
	}
	v.Path, v.PathThin = v.signals.path, e.calib.thin(v.signals.path)
	v.WithinTen = e.calib.withinTen(v.signals)
	v.FSD = e.calib.fsd(v.signals)
	v.Confidence = math.Max(0, 1-v.FSD)
	lo, hi := e.calib.interval(v.signals)
	v.Low, v.High = v.Value*math.Exp(lo), v.Value*math.Exp(hi)
	return v
}

// pointParts are what a home's point value is made of, before its uncertainty is measured.
type pointParts struct {
	x                           []float64 // the model's inputs
	modelLog, shift             float64
	mean, neff, sd, mad, wComps float64
	comps                       []Comparable
	last                        lastSale
	nb                          knn
}

// point makes a home's point value (valueWith adds its uncertainty; PointValue stops here).
func (e *Engine) point(h *Home, property int32, at time.Time, skip int32, located bool) pointParts {
	keep := e.evidenceFilter(property, at, skip)
	x := features(h, make([]float64, 0, len(featureNames)))
	nb := e.knnFor(h, keep)
	x = nb.append(x, h)
	p := pointParts{x: x, nb: nb, last: lastSale{sale: -1}}
	ix, _, _ := e.indexFor(h)
	p.modelLog = e.predictFor(x, property) + ix.At(at)
	p.comps = e.comparables(h, at, keep)
	p.mean, p.neff, p.sd, p.mad = compStats(p.comps)
	// The comparables' residuals move the value only for a recorded home: around a ZIP code's centre they are
	// not the subject's comparables (and the calibration of approximate valuations was fitted without them).
	if p.neff > 0 && located {
		p.wComps = e.alpha * p.neff / (p.neff + e.k0)
	}
	if property >= 0 {
		p.last = e.lastSaleOf(property, at, skip, p.modelLog)
	}
	p.shift = blendShift(p.wComps*p.mean, p.last)
	return p
}

// PointValue is Value's estimate alone, without its range and confidence (whose signals and calibration cost
// about as much again): for the distribution of a market's values (internal/market), which shows no ranges.
func (e *Engine) PointValue(h Home, property int32, at time.Time) float64 {
	at, _ = e.AsOf(at)
	p := e.point(&h, property, at, -1, true)
	return math.Exp(p.modelLog + p.shift)
}

// blendShift is how far the evidence beside the model moves its log value: the comparables' shift, then the last
// sale's pull, blended by its weight: value = (1−w)·(model + compShift) + w·lastSale.
func blendShift(compShift float64, last lastSale) float64 {
	return (1-last.weight)*compShift + last.weight*last.r1
}

// minDisagreement is the least disagreement worth a warning, however tight a market: 10%.
const minDisagreement = 0.1

// UsualDisagreement is how far an estimate usually lies from its comparables' indicated value in this market
// (|log ratio|; the 90th percentile of the held-out valuations of recorded homes, at least 10%): past it, the
// estimate and its comparables disagree.
func (e *Engine) UsualDisagreement() float64 { return math.Max(minDisagreement, e.calib.disagreeUsual) }

// Covers reports whether any market sale lies within miles of the location: farther than that, the engine has no
// market to value from.
func (e *Engine) Covers(lat, lon, miles float64) bool {
	return len(e.spatial.Nearest(lat, lon, 1, miles, nil)) > 0
}

// Trend is the estimated price change of h's area over the twelve months to the calendar month of at (0.05 = +5%):
// the level of the index h's value moves with (AreaIndex) for that month against the same month a year before, as
// the statistics of a market give it (internal/market: the 12-month change of the month), so a valuation and the
// Markets screen of its ZIP code say the same figure.
func (e *Engine) Trend(h Home, at time.Time) float64 {
	ix, _, _ := e.indexFor(&h)
	return ix.Change12m(at)
}

// PriceIndex is the whole market's monthly price index; it is shared, not copied: callers only read it. A home's
// value moves with its area's (AreaIndex).
func (e *Engine) PriceIndex() *Index { return &e.index }

// DataEnd is the day after the latest sale the engine learned from.
func (e *Engine) DataEnd() time.Time { return e.dataEnd }

// predictFor is the value model's deflated log value of a home: for a recorded home that sold in the market, the
// model of its fold, which never saw those sales (750 trees of 48 leaves remember a price they learned: a home bought
// cheap to be renovated would be valued at its old price); for any other home, the mean of the models.
// modelsFor are the models that value a home (predictFor): its fold's alone for a home whose sales they learned
// from, else all of them.
func (e *Engine) modelsFor(property int32) []*gbm.Model {
	if property >= 0 && len(e.byProperty(property)) > 0 && len(e.folds) == e.opt.Folds {
		if m := e.folds[foldOf(e.market.PropertyID(property), e.opt.Folds)]; m != nil {
			return []*gbm.Model{m}
		}
	}
	return e.models
}

func (e *Engine) predictFor(x []float64, property int32) float64 {
	if property >= 0 && len(e.byProperty(property)) > 0 && len(e.folds) == e.opt.Folds {
		if m := e.folds[foldOf(e.market.PropertyID(property), e.opt.Folds)]; m != nil {
			return m.Predict(x) + e.offset
		}
	}
	return e.predict(x)
}

// predict is the value model's deflated log value: the mean of its models.
func (e *Engine) predict(x []float64) float64 {
	s := 0.0
	for _, m := range e.models {
		s += m.Predict(x)
	}
	return s/float64(len(e.models)) + e.offset
}
