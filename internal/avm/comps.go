package avm

import (
	"math"
	"slices"
	"sort"
	"time"

	"valuator/internal/avm/gbm"
)

// The sales comparison approach as an appraiser writes it (Fannie Mae's selling guide, the URAR's grid): each
// comparable's price is brought to the subject line by line (the market's change since the sale, then each
// difference between the homes), and the adjusted prices of the best few are reconciled into one indicated value.
// Here the value model prices each difference: a comparable's features are turned into the subject's one group at a
// time, and each step's change in the model's value is that line's adjustment, so the lines add up exactly to the
// adjusted price and never double count.

// Adjustment lines, in the order of the grid.
const (
	AdjTime       = "time"
	AdjLivingArea = "livingArea"
	AdjLot        = "lot"
	AdjBedrooms   = "bedrooms"
	AdjBathrooms  = "bathrooms"
	AdjAge        = "age"
	AdjQuality    = "quality" // construction grade, condition, view, waterfront, floors and the property type
	AdjLocation   = "location"
)

// AdjustmentLines lists every line in the grid's order.
var AdjustmentLines = []string{AdjTime, AdjLivingArea, AdjLot, AdjBedrooms, AdjBathrooms, AdjAge, AdjQuality, AdjLocation}

// Adjustment is one line of a comparable's adjustments: dollars added to (or taken from) its price.
type Adjustment struct {
	Line   string
	Amount float64
}

// Fannie Mae's guideline limits: adjustments beyond them must be explained.
const (
	NetAdjustmentLimit   = 0.15
	GrossAdjustmentLimit = 0.25
)

// Reconciliation: the comparables' indicated value is the weighted mean (in log terms) of the adjusted prices of the
// best reconcileMax of them, and exists only with at least reconcileMin.
const (
	reconcileMin = 3
	reconcileMax = 6
)

// steps are the lines the model prices, each with what it turns from the comparable into the subject.
var steps = []struct {
	line  string
	apply func(to *Home, from *Home)
}{
	{AdjLivingArea, func(to, from *Home) {
		to.Sqft, to.SqftAbove, to.SqftBasement = from.Sqft, from.SqftAbove, from.SqftBasement
	}},
	{AdjLot, func(to, from *Home) { to.LotSqft = from.LotSqft }},
	{AdjBedrooms, func(to, from *Home) { to.Beds = from.Beds }},
	{AdjBathrooms, func(to, from *Home) { to.Baths = from.Baths }},
	{AdjAge, func(to, from *Home) { to.YearBuilt, to.YearRenovated = from.YearBuilt, from.YearRenovated }},
	{AdjQuality, func(to, from *Home) {
		to.Grade, to.Condition, to.View, to.Waterfront, to.Floors, to.Type = from.Grade, from.Condition, from.View,
			from.Waterfront, from.Floors, from.Type
	}},
}

// latestSale is the most recent sale of property that keep accepts (fallback: the sale k found first).
func (e *Engine) latestSale(property, k int32, keep func(int32) bool) int32 {
	own := e.byProperty(property) // oldest first
	for i := len(own) - 1; i >= 0; i-- {
		if keep == nil || keep(own[i]) {
			return own[i]
		}
	}
	return k
}

// adjust prices the differences between comparable c and the subject h at the valuation date: the index moves the
// price to the date, then the model walks the comparable's features to the subject's one line at a time, the
// location (coordinates and neighbourhood) last, where the walk ends at subjectLog, the model's log value of the
// subject by m. The neighbourhood's prices along the walk are read from the sales keep accepts (those the subject's
// value may use: never the subject's own), less the comparable's own.
func (e *Engine) adjust(c *Comparable, h *Home, m *gbm.Model, keep func(int32) bool, subjectLog float64, at time.Time) {
	s := &e.sales[c.k]
	comp := e.market.Home(c.Property)
	own := c.Property
	notOwn := func(id int32) bool { return e.sales[id].property != own && (keep == nil || keep(id)) }
	buf := make([]float64, 0, len(featureNames))
	// The neighbourhood's prices are read again at each step: they are weighed by likeness to the home (its size,
	// grade, age), so a step that changes the home changes them too, and that is part of the step, not of location.
	// The walk stays at the comparable's place until the location line, so its neighbours are found once.
	nb := e.knnNeighbours(&comp, notOwn)
	row := func(hm *Home) []float64 {
		buf = features(hm, buf[:0])
		return e.knnOf(hm, nb).append(buf, hm)
	}
	ix := e.saleIndex(s)
	running := c.Price * math.Exp(ix.At(at)-ix.At(e.saleDate(s)))
	c.Adjustments = append(c.Adjustments[:0], Adjustment{Line: AdjTime, Amount: running - c.Price})
	last := slices.Clone(row(&comp))
	prev := m.Predict(last)
	for _, st := range steps {
		st.apply(&comp, h)
		// A line on which the homes agree (same beds, same grade) changes no input: nothing to predict.
		p := prev
		if x := row(&comp); !slices.Equal(x, last) {
			p = m.Predict(x)
			last = append(last[:0], x...)
		}
		amount := running * (math.Exp(p-prev) - 1)
		c.Adjustments = append(c.Adjustments, Adjustment{Line: st.line, Amount: amount})
		running += amount
		prev = p
	}
	// Location: everything else the subject's (its coordinates, its neighbourhood's sizes and prices).
	amount := running * (math.Exp(subjectLog-prev) - 1)
	c.Adjustments = append(c.Adjustments, Adjustment{Line: AdjLocation, Amount: amount})
	running += amount
	c.AdjustedPrice = running
	var gross float64
	for _, a := range c.Adjustments {
		gross += math.Abs(a.Amount)
	}
	c.NetAdjustment = (running - c.Price) / c.Price
	c.GrossAdjustment = gross / c.Price
}

// reconcile weighs the comparables as an appraiser would (the most alike and recent, the least adjusted) and
// returns the indicated value of the best three to six, marking them (0 when fewer than three can be used).
func reconcile(comps []Comparable) float64 {
	type scored struct {
		i     int
		score float64
	}
	var cands []scored
	for i, c := range comps {
		if c.AdjustedPrice > 0 && c.weight > 0 {
			g := c.GrossAdjustment / GrossAdjustmentLimit
			cands = append(cands, scored{i, c.weight / (1 + g*g)})
		}
	}
	if len(cands) < reconcileMin {
		return 0
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	if len(cands) > reconcileMax {
		cands = cands[:reconcileMax]
	}
	var sw, swl float64
	for _, c := range cands {
		sw += c.score
		swl += c.score * math.Log(comps[c.i].AdjustedPrice)
	}
	for _, c := range cands {
		comps[c.i].Reconciled = true
		comps[c.i].ReconciliationWeight = c.score / sw
	}
	return math.Exp(swl / sw)
}

// NetOver and GrossOver report whether a comparable's adjustments pass Fannie Mae's guideline limits.
func (c Comparable) NetOver() bool   { return math.Abs(c.NetAdjustment) > NetAdjustmentLimit }
func (c Comparable) GrossOver() bool { return c.GrossAdjustment > GrossAdjustmentLimit }
