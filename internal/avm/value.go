package avm

import (
	"math"
	"sort"
	"time"
)

// Comparable is a sale that informed a valuation.
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
	// SameHome marks an earlier sale of the subject itself.
	SameHome bool
	weight   float64
	resid    float64
}

// Valuation is the engine's answer for one home at one date.
type Valuation struct {
	Value       float64
	Low, High   float64 // 80% interval
	Confidence  float64 // probability that the sale price lands within 10% of Value
	ModelValue  float64 // the value model alone, before the comparables
	Comparables []Comparable
	// Features of the confidence estimate, kept for explanations and tests.
	signals  signals
	compMean float64
}

// Comp search: the nearest sales within a radius that widens where sales are sparse.
const (
	compCandidates = 40
	compRadius     = 3.0  // miles
	compRadiusWide = 25.0 // miles, when fewer than compMin are near
	compMin        = 5
)

// similarity scores how much a sale's home looks like the subject: nearby, of a like size, age, layout and type.
// Each factor is 1 for a perfect match and falls off with the difference. How recent the sale is counts separately
// (recency), so that a user reads similarity as likeness and the sale date as age.
func similarity(h *Home, s *saleInfo, miles float64) float64 {
	sim := math.Exp(-miles / 0.75)
	if known(h.Sqft) && known(s.sqft) && h.Sqft > 0 && s.sqft > 0 {
		sim *= math.Exp(-math.Abs(math.Log(h.Sqft/s.sqft)) / 0.3)
	}
	if known(h.Beds) && known(s.beds) {
		sim *= math.Exp(-math.Abs(h.Beds-s.beds) / 3)
	}
	if known(h.Baths) && known(s.baths) {
		sim *= math.Exp(-math.Abs(h.Baths-s.baths) / 3)
	}
	if known(h.YearBuilt) && known(s.yearBuilt) {
		sim *= math.Exp(-math.Abs(h.YearBuilt-s.yearBuilt) / 40)
	}
	if h.Type != "" && s.typ != "" && h.Type != s.typ {
		sim *= 0.5
	}
	return sim
}

// recency weighs a sale by its age at the valuation date: e^-1 per 18 months.
func recency(saleDate, at time.Time) float64 {
	return math.Exp(-at.Sub(saleDate).Hours() / 24 / 30.4 / 18)
}

// comparables finds the sales that best resemble h, sold before at. property is the subject's own record (its
// earlier sales are the best comparables of all), or -1; skip is a sale never to use (the subject sale itself when
// valuing a market sale), or -1.
func (e *Engine) comparables(h *Home, property int32, at time.Time, skip int32) []Comparable {
	keep := func(id int32) bool { return id != skip && e.sales[id].date.Before(at) }
	nb := e.spatial.Nearest(h.Lat, h.Lon, compCandidates, compRadius, keep)
	if len(nb) < compMin {
		nb = e.spatial.Nearest(h.Lat, h.Lon, compCandidates, compRadiusWide, keep)
	}
	comps := make([]Comparable, 0, len(nb))
	for _, x := range nb {
		s := &e.sales[x.ID]
		miles := x.Miles
		sim, rec := similarity(h, s, miles), recency(s.date, at)
		same := s.property == property && property >= 0
		if same {
			// The same home: only time separates it from the subject, and its own history ages more slowly.
			sim, rec = 1, math.Exp(-at.Sub(s.date).Hours()/24/30.4/36)
		}
		comps = append(comps, Comparable{Sale: s.sale, Property: s.property, Miles: x.Miles, Date: s.date,
			Price: math.Exp(s.logPrice), Similarity: sim, SameHome: same, weight: sim * rec, resid: s.resid})
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

// Value estimates what h would sell for at the date at. property is the home's record in the market (-1 when it
// has none); its own earlier sales then count as comparables.
func (e *Engine) Value(h Home, property int32, at time.Time) Valuation {
	return e.value(&h, property, at, -1)
}

func (e *Engine) value(h *Home, property int32, at time.Time, skip int32) Valuation {
	attrs := 0.0
	for _, v := range []float64{h.Beds, h.Baths, h.Sqft, h.YearBuilt, h.LotSqft} {
		if known(v) {
			attrs += 0.2
		}
	}
	return e.valueWith(h, property, at, skip, true, attrs)
}

// valueWith values h; located says whether its coordinates are its own (a record) or approximate (a ZIP
// centre), and attrs is the share of its main attributes that were known rather than assumed.
func (e *Engine) valueWith(h *Home, property int32, at time.Time, skip int32, located bool, attrs float64) Valuation {
	x := features(h, make([]float64, 0, len(featureNames)))
	nb := e.knnFor(h.Lat, h.Lon, func(id int32) bool { return id != skip && e.sales[id].date.Before(at) })
	x = nb.append(x, h)
	base := e.predict(x)
	level := e.index.At(at)
	modelLog := base + level
	comps := e.comparables(h, property, at, skip)
	mean, neff, sd, mad := compStats(comps)
	// The comparables' residuals move the value only for a recorded home: around a ZIP code's centre they are
	// not the subject's comparables (and the calibration of approximate valuations was fitted without them).
	shift := 0.0
	if neff > 0 && located {
		shift = e.alpha * neff / (neff + e.k0) * mean
	}
	logValue := modelLog + shift
	for i := range comps {
		comps[i].AdjustedPrice = math.Exp(modelLog + comps[i].resid)
	}
	v := Valuation{
		compMean:    mean,
		Value:       math.Exp(logValue),
		ModelValue:  math.Exp(modelLog),
		Comparables: comps,
	}
	v.signals = e.signalsFor(h, nb, modelLog, comps, neff, sd, mad, shift, at)
	v.signals.attrs = attrs
	if located {
		v.signals.located = 1
	}
	v.Confidence = e.calib.confidence(v.signals)
	lo, hi := e.calib.interval(v.signals)
	v.Low, v.High = v.Value*math.Exp(lo), v.Value*math.Exp(hi)
	return v
}

// Covers reports whether any market sale lies within miles of the location: farther than that, the engine has no
// market to value from.
func (e *Engine) Covers(lat, lon, miles float64) bool {
	return len(e.spatial.Nearest(lat, lon, 1, miles, nil)) > 0
}

// Trend is the market's estimated price change over the twelve months before at (0.05 = +5%).
func (e *Engine) Trend(at time.Time) float64 {
	return math.Exp(e.index.At(at)-e.index.At(at.AddDate(-1, 0, 0))) - 1
}

// DataEnd is the day after the latest sale the engine learned from.
func (e *Engine) DataEnd() time.Time { return e.dataEnd }

// predict is the value model's deflated log value: the mean of its models.
func (e *Engine) predict(x []float64) float64 {
	s := 0.0
	for _, m := range e.models {
		s += m.Predict(x)
	}
	return s / float64(len(e.models))
}
