package avm

import (
	"math"
	"sort"
	"time"
)

// Why this value (Cook County's interpret stage; HouseCanary's value drivers): the model's value of a home is
// explained against the area's typical home (typicalHome, at the same place), feature group by feature group, by the
// exact Shapley values of the model's trees (gbm.Model.Contributions). The typical home's value plus the
// contributions is the model's value to the dollar.

// Driver is one feature group's contribution to the model's value, in dollars, with the subject's and the typical
// home's figures for the words.
type Driver struct {
	Factor  string  // an adjustment line: livingArea, lot, bedrooms, bathrooms, age, quality, location
	Amount  float64 // dollars (+ raises the value)
	Subject float64 // the home's figure (living area, lot, beds, baths, year built; NaN when none)
	Typical float64 // the typical home's
	// Share is, for living area and lot, the share of the homes nearby that are smaller than the subject (NaN
	// otherwise).
	Share float64
}

// Drivers explain a model value.
type Drivers struct {
	Typical float64  // the model's value of the area's typical home at the valuation date
	Items   []Driver // every group with a contribution, largest first; Typical + their sum = the model's value
}

// featureGroup is the adjustment line of each model input (featureNames' order).
var featureGroup = func() []string {
	g := make([]string, len(featureNames))
	for i, name := range featureNames {
		switch name {
		case "log_sqft", "log_sqft_above", "sqft_basement", "value_from_knn", "value_from_grade":
			g[i] = AdjLivingArea
		case "log_lot":
			g[i] = AdjLot
		case "beds":
			g[i] = AdjBedrooms
		case "baths":
			g[i] = AdjBathrooms
		case "year_built", "effective_year":
			g[i] = AdjAge
		case "floors", "waterfront", "view", "condition", "grade", "type":
			g[i] = AdjQuality
		default:
			g[i] = AdjLocation
		}
	}
	return g
}()

// Drivers explains the model value of h (a record's when property >= 0) at the date at, as Value values it.
func (e *Engine) Drivers(h Home, property int32, at time.Time) Drivers {
	at, _ = e.AsOf(at)
	keep := e.evidenceFilter(property, at, -1)
	x := features(&h, make([]float64, 0, len(featureNames)))
	x = e.knnFor(&h, keep).append(x, &h)
	typ := e.typicalHome(h.Lat, h.Lon)
	ref := features(&typ, make([]float64, 0, len(featureNames)))
	ref = e.knnFor(&typ, keep).append(ref, &typ)

	models := e.modelsFor(property)
	contrib := make([]float64, len(featureNames))
	var px, pr float64
	for _, m := range models {
		m.Contributions(x, ref, contrib)
		px += m.Predict(x)
		pr += m.Predict(ref)
	}
	n := float64(len(models))
	px, pr = px/n, pr/n
	ix, _, _ := e.indexFor(&h)
	lift := e.offset + ix.At(at)
	value, typical := math.Exp(px+lift), math.Exp(pr+lift)

	// Log contributions to dollars by the logarithmic mean of the two values: exact in sum, and each group's
	// dollars in proportion to its share of the log difference.
	scale := value
	if d := px - pr; math.Abs(d) > 1e-12 {
		scale = (value - typical) / d
	}
	byGroup := map[string]float64{}
	for i, c := range contrib {
		byGroup[featureGroup[i]] += c / n
	}
	share := e.sizeShares(h)
	out := Drivers{Typical: typical}
	for _, line := range AdjustmentLines[1:] {
		c, ok := byGroup[line]
		if !ok || c == 0 {
			continue
		}
		d := Driver{Factor: line, Amount: c * scale, Subject: math.NaN(), Typical: math.NaN(), Share: math.NaN()}
		switch line {
		case AdjLivingArea:
			d.Subject, d.Typical, d.Share = h.Sqft, typ.Sqft, share.sqft
		case AdjLot:
			d.Subject, d.Typical, d.Share = h.LotSqft, typ.LotSqft, share.lot
		case AdjBedrooms:
			d.Subject, d.Typical = h.Beds, typ.Beds
		case AdjBathrooms:
			d.Subject, d.Typical = h.Baths, typ.Baths
		case AdjAge:
			d.Subject, d.Typical = h.YearBuilt, typ.YearBuilt
		}
		out.Items = append(out.Items, d)
	}
	sort.SliceStable(out.Items, func(a, b int) bool { return math.Abs(out.Items[a].Amount) > math.Abs(out.Items[b].Amount) })
	return out
}

// sizeShares are the shares of the homes nearby (the 50 the typical home is made of) smaller than h, by living area
// and by lot (NaN when unknown).
func (e *Engine) sizeShares(h Home) struct{ sqft, lot float64 } {
	out := struct{ sqft, lot float64 }{math.NaN(), math.NaN()}
	nb := e.homes.Nearest(h.Lat, h.Lon, 50, compRadiusWide, nil)
	share := func(v float64, fact int) float64 {
		if !known(v) {
			return math.NaN()
		}
		var n, below float64
		for _, x := range nb {
			if o := e.market.homes.facts[fact].at(x.ID); known(o) && o > 0 {
				n++
				if o < v {
					below++
				}
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return below / n
	}
	out.sqft = share(h.Sqft, fSqft)
	out.lot = share(h.LotSqft, fLotSqft)
	return out
}
