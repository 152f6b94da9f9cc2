package avm

import "math"

// featureNames documents the model's inputs, in order. Location enters as latitude, longitude and their rotations:
// trees split on one axis at a time, and rotated axes let them cut diagonal neighbourhood borders.
var featureNames = []string{
	"log_sqft", "log_lot", "beds", "baths", "floors", "waterfront", "view", "condition", "grade",
	"log_sqft_above", "sqft_basement", "year_built", "effective_year", "type",
	"lat", "lon", "rot15", "rot30", "rot45", "rot60", "rot75", "rot-15", "rot-30", "rot-45", "rot-60", "rot-75",
	"log_nbr_sqft", "log_nbr_lot",
	// The neighbourhood's prices: deflated log price per sqft and log price of the nearest sales (never the
	// sale itself), their spread, and how far away they are.
	"knn_lppsf", "knn_lprice", "knn_lppsf_sd", "knn_miles", "knn30_lppsf", "value_from_knn",
	"knn_similar_lprice", "knn_grade_lppsf", "value_from_grade",
}

const knnFeatures = 9

// monotoneFeatures are the model inputs a value may only rise with. Every input that moves with the living area is
// here, and each is a rising function of it with the home's other facts fixed: its log, above ground, at the
// neighbourhood's price per sqft, at its grade's, and the neighbours' likeness-weighted price (whose weights leave the
// size out, so that it is the neighbours' price plus the market's elasticity times the log size: knnOf). So a larger home at
// the same place with the same other facts is never valued lower by the model, for any retraining
// (TestModelValueRisesWithLivingArea). Before, a tree's step could price a larger home lower (the demo market of
// 2027-01-01: 3,495 sq ft $2,700 under 3,180 sq ft in 98103), through the size against the neighbours' (now dropped:
// the trees still see both sizes) and the likeness weights that followed the size. docs/accuracy.md (Size) has what
// each variant cost on King County.
var monotoneFeatures = func() []int8 {
	m := make([]int8, len(featureNames))
	for i, name := range featureNames {
		switch name {
		case "log_sqft", "log_sqft_above", "value_from_knn", "knn_similar_lprice", "value_from_grade":
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
	dst = append(dst, logOr(h.NbrSqft), logOr(h.NbrLot))
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
