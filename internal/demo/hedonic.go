package demo

import (
	"math"

	"valuator/internal/property"
)

// The hedonic model prices a home in King County dollars of 2014-15 from its attributes; the generator then moves
// that price to its metro, ZIP code, street corner and sale date (see value.go).
//
// The coefficients were fitted by TestFitHedonic (hedonic_fit_test.go; run `go test ./internal/demo -run
// TestFitHedonic -v`) on all 21,612 King County sales of 2014-05-02 to 2015-05-27 in
// ../shared/data/kc_house_sales.csv, by ordinary least squares of log(price) on
//
//	log(sqft_living), bedrooms, bathrooms, log(sqft_lot), age at sale (sale year - yr_built), grade (1-13),
//	condition (1-5), floors
//
// solved through the normal equations (Cholesky). Location is left out of the coefficients: the fit absorbs it
// in one fixed effect per King County ZIP code (70 of them), which the generator replaces with its own ZIP
// effects. Absorbing it matters: fitted without any location term (the "pooled" fit below), the coefficients
// of grade (0.237 instead of 0.126) and lot size (-0.039 instead of +0.071) pick up where in the county the
// better-built homes and the big rural lots are, and the generator, which adds location on its own, would count
// location twice and price rural lots below city ones.
//
// Fit statistics (TestFitHedonic checks these constants against a fresh fit, to the 4 decimals written):
//
//	within-ZIP fit (used): within-ZIP R² 0.7036; R² 0.8606 counting the ZIP effects; residual sd 0.1970
//	same regressors, a fixed effect per half-mile square (2,269 squares) instead of per ZIP: residual sd 0.1686
//	pooled fit, no location: R² 0.6387, residual sd 0.3166; intercept 7.6950, log_sqft_living 0.4518,
//	  bedrooms -0.0495, bathrooms 0.0880, log_sqft_lot -0.0395, age 0.0061, grade 0.2366, condition 0.0373,
//	  floors 0.0484
//
// The intercept is King County's mean ZIP effect (sales-weighted), so an average King County home gets King
// County's average log price.
//
// The noise: among comparable homes of one King County ZIP code prices spread by 0.197 (log), of which location
// within the ZIP explains part: among comparable homes of one half-mile square they spread by 0.169. The
// generator adds its own location effects within each ZIP (a gradient and an amenity, together about 0.10, as
// sqrt(0.197² - 0.169²) is in King County), and gives every home the rest, hedonicSigma, as idiosyncratic
// noise, split between a lasting effect of the home itself and a shock of each sale (homeEffectSD,
// saleShockSD).
const (
	hedonicIntercept = 7.8130
	hedonicSigma     = 0.1686 // residual sd net of half-mile location: the generator's idiosyncratic noise
	withinZIPSigma   = 0.1970 // residual sd net of ZIP code
	withinR2         = 0.7036
	pooledR2         = 0.6387
	pooledSigma      = 0.3166
)

const numHedonicVars = 8

// hedonicCoef are the coefficients of hedonicVars, in the order of hedonicNames.
var hedonicCoef = [numHedonicVars]float64{
	0.4501,  // log sqft_living: a 10% larger home is worth 4.4% more
	-0.0272, // bedrooms, at a given living area (smaller rooms)
	0.0504,  // bathrooms
	0.0713,  // log sqft_lot
	0.0011,  // age in years, at a given grade and condition (older neighbourhoods' charm)
	0.1259,  // grade: one step of construction quality is worth 13%
	0.0413,  // condition
	0.0183,  // floors
}

var hedonicNames = [numHedonicVars]string{
	"log_sqft_living", "bedrooms", "bathrooms", "log_sqft_lot", "age", "grade", "condition", "floors",
}

// homeEffectSD and saleShockSD split hedonicSigma: a repeat sale of one home moves with the market within about
// 8% (the shock of each sale: the buyer, the season, the agent), while homes of the same description on the same
// block differ by about 15% for good (layout, light, a view, the kitchen). sqrt(0.1484² + 0.08²) = 0.1686.
const (
	saleShockSD  = 0.08
	homeEffectSD = 0.1484
)

// hedonicVars turns attributes into the regressors, in the order of hedonicCoef.
func hedonicVars(sqft, beds, baths, lot, age, grade, cond, floors float64) [numHedonicVars]float64 {
	return [numHedonicVars]float64{math.Log(sqft), beds, baths, math.Log(lot), age, grade, cond, floors}
}

// hedonicLogPrice is the model's log price of h in King County in 2014-15, at the given age in years. A condo
// has no lot of its own; it is priced with a lot equal to its living area, about what a unit's share of its
// building's parcel is in the King County data.
func hedonicLogPrice(h *property.Home, age float64) float64 {
	lot := h.LotSqft
	if !(lot > 0) {
		lot = h.Sqft
	}
	x := hedonicVars(h.Sqft, h.Beds, h.Baths, lot, max(age, 0), h.Grade, h.Condition, h.Floors)
	v := hedonicIntercept
	for j, c := range hedonicCoef {
		v += c * x[j]
	}
	return v
}
