package avm

import "math"

// featureNames documents the model's inputs, in order. Location enters as latitude, longitude and their rotations:
// trees split on one axis at a time, and rotated axes let them cut diagonal neighbourhood borders.
var featureNames = []string{
	"log_sqft", "log_lot", "beds", "baths", "floors", "waterfront", "view", "condition", "grade",
	"log_sqft_above", "sqft_basement", "year_built", "effective_year", "type",
	"lat", "lon", "rot15", "rot30", "rot45", "rot60", "rot75", "rot-15", "rot-30", "rot-45", "rot-60", "rot-75",
	"log_nbr_sqft", "log_nbr_lot", "sqft_vs_nbr",
	// The neighbourhood's prices: deflated log price per sqft and log price of the nearest sales (never the
	// sale itself), their spread, and how far away they are.
	"knn_lppsf", "knn_lprice", "knn_lppsf_sd", "knn_miles", "knn30_lppsf", "value_from_knn",
	"knn_similar_lprice", "knn_grade_lppsf", "value_from_grade",
}

const knnFeatures = 9

// monotoneFeatures are the model inputs a value may only rise with: the home's living area in the forms it enters
// (its log, above ground, at the neighbourhood's price per sqft and at its grade's). Unconstrained, a tree's step
// could price a larger home below a smaller one at the same place (seen on the demo market: 4,123 sq ft valued
// $8,000 under 3,840 sq ft). Two inputs still move with the size unconstrained, sqft_vs_nbr and knn_similar_lprice
// (its likeness weights follow the size): on the demo market of 2027-01-01 they value 3,495 sq ft $2,700 under
// 3,180 (docs/accuracy.md, Limits, has the fixes measured and why none is in yet).
var monotoneFeatures = func() []int8 {
	m := make([]int8, len(featureNames))
	for i, name := range featureNames {
		switch name {
		case "log_sqft", "log_sqft_above", "value_from_knn", "value_from_grade":
			m[i] = 1
		}
	}
	return m
}()

var rotations = func() [][2]float64 {
	var r [][2]float64
	for _, deg := range []float64{15, 30, 45, 60, 75, -15, -30, -45, -60, -75} {
		a := deg * math.Pi / 180
		r = append(r, [2]float64{math.Cos(a), math.Sin(a)})
	}
	return r
}()

// features writes the model inputs of h into dst (len(featureNames)) and returns it.
func features(h *Home, dst []float64) []float64 {
	dst = dst[:0]
	eff := h.YearBuilt
	if h.YearRenovated > 0 {
		eff = h.YearRenovated
	}
	dst = append(dst, logOr(h.Sqft), logOr(h.LotSqft), h.Beds, h.Baths, h.Floors, h.Waterfront, h.View,
		h.Condition, h.Grade, logOr(h.SqftAbove), h.SqftBasement, h.YearBuilt, eff, typeCode(h.Type), h.Lat, h.Lon)
	for _, r := range rotations {
		dst = append(dst, h.Lat*r[0]+h.Lon*r[1])
	}
	dst = append(dst, logOr(h.NbrSqft), logOr(h.NbrLot), logOr(h.Sqft)-logOr(h.NbrSqft))
	return dst
}

// knn summarises the neighbourhood's prices for one home.
type knn struct {
	lppsf, lprice, sd, miles, lppsf30 float64
	simLprice, gradeLppsf             float64
}

func (k knn) append(dst []float64, h *Home) []float64 {
	return append(dst, k.lppsf, k.lprice, k.sd, k.miles, k.lppsf30, k.lppsf+logOr(h.Sqft), k.simLprice, k.gradeLppsf,
		k.gradeLppsf+logOr(h.Sqft))
}
