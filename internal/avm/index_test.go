package avm

import (
	"math"
	"testing"
	"time"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// A market rising 1% a month with no noise: the index must recover the rise, and extrapolate it (damped).
func TestBuildIndexRecoversATrend(t *testing.T) {
	var dates []time.Time
	var resid []float64
	start := day(2020, 1, 1)
	for m := 0; m < 12; m++ {
		for k := 0; k < 50; k++ {
			d := start.AddDate(0, m, 1+k%27)
			dates = append(dates, d)
			resid = append(resid, 0.01*float64(m))
		}
	}
	ix := buildIndex(dates, resid)
	if len(ix.Levels) != 12 {
		t.Fatalf("levels = %d months, want 12", len(ix.Levels))
	}
	for m := 1; m < 11; m++ {
		if d := ix.Levels[m] - ix.Levels[m-1]; math.Abs(d-0.01) > 0.002 {
			t.Errorf("month %d: step %.4f, want 0.01", m, d)
		}
	}
	// The seasonally adjusted slope is the 1% trend less the default profile's change, damped.
	if ix.Slope <= 0 || ix.Slope > 0.01 {
		t.Errorf("slope = %.4f, want a damped positive trend", ix.Slope)
	}
	// Levels are centred on their mean.
	var sum float64
	for _, v := range ix.Levels {
		sum += v
	}
	if math.Abs(sum) > 1e-9 {
		t.Errorf("levels sum to %.6f, want 0", sum)
	}
	// Within the data At interpolates; before it holds the first level.
	if got, want := ix.At(day(2020, 6, 16)), ix.Levels[5]; math.Abs(got-want) > 0.002 {
		t.Errorf("At(mid June) = %.4f, want about %.4f", got, want)
	}
	if ix.At(day(2019, 1, 1)) != ix.Levels[0] {
		t.Error("At before the data does not hold the first level")
	}
	// Past the data it rises, and stops rising after MaxAhead months.
	a, b := ix.At(day(2021, 3, 15)), ix.At(day(2021, 9, 15))
	if !(b > a) {
		t.Errorf("At(2021-09) = %.4f not above At(2021-03) = %.4f", b, a)
	}
	if ix.At(day(2023, 1, 15))-ix.At(day(2025, 1, 15)) != 0 {
		t.Error("the trend keeps going past MaxAhead")
	}
}

func TestIndexIgnoresMixWithinAMonth(t *testing.T) {
	// The index is a median: a few wild residuals in one month do not move it.
	var dates []time.Time
	var resid []float64
	for m := 0; m < 6; m++ {
		for k := 0; k < 40; k++ {
			dates = append(dates, day(2021, time.Month(m+1), 2+k%25))
			r := 0.0
			if m == 3 && k < 5 {
				r = 2
			}
			resid = append(resid, r)
		}
	}
	ix := buildIndex(dates, resid)
	for m, v := range ix.Levels {
		if math.Abs(v) > 1e-9 {
			t.Errorf("month %d level %.4f, want 0", m, v)
		}
	}
}

func TestTrendSlopeIsClipped(t *testing.T) {
	levels := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5}
	if got := trendSlope(levels, trendMonths, trendDamping); got != trendMaxPerMonth {
		t.Errorf("slope of a 10%%/month rise = %.4f, want the %.2f clip", got, trendMaxPerMonth)
	}
	if got := trendSlope([]float64{0, 0}, trendMonths, trendDamping); got != 0 {
		t.Errorf("slope of two months = %.4f, want 0", got)
	}
}

func TestSeasonalProfileMeasuredFromTwoYears(t *testing.T) {
	// Three years of a pure seasonal pattern of +-3%: the measured profile is half the market's and half the
	// default's.
	var levels []float64
	start := day(2018, 1, 1)
	for m := 0; m < 36; m++ {
		levels = append(levels, 0.03*math.Cos(2*math.Pi*float64(m-6)/12))
	}
	p := seasonalProfile(start, levels)
	want := 0.5*0.03 + 0.5*defaultSeasonal[6]
	if math.Abs(p[6]-want) > 0.005 {
		t.Errorf("July effect = %.4f, want about %.4f", p[6], want)
	}
	if short := seasonalProfile(start, levels[:12]); short != defaultSeasonal {
		t.Error("one year of data did not fall back to the default profile")
	}
}

func TestChooseTrendByBacktest(t *testing.T) {
	// Too short to backtest: the defaults.
	if k, d := chooseTrend(make([]float64, 7)); k != trendMonths || d != trendDamping {
		t.Errorf("7 months chose %d months at %.2f, want the defaults", k, d)
	}
	// Flat, then rising 1% a month for the last five months: only a short, undamped window follows it.
	levels := make([]float64, 12)
	for i := 7; i < len(levels); i++ {
		levels[i] = levels[i-1] + 0.01
	}
	if k, d := chooseTrend(levels); k > 4 || d < 0.85 {
		t.Errorf("an accelerating index chose %d months at %.2f", k, d)
	}
	// A steady trend gives no reason to leave the defaults.
	for i := range levels {
		levels[i] = 0.004 * float64(i)
	}
	if k, d := chooseTrend(levels); d < trendDamping || k < 3 {
		t.Errorf("a steady index chose %d months at %.2f", k, d)
	}
}

// TestTrendIsTheMonthsChange: a valuation's market trend is the index's 12-month change of the valuation's calendar
// month, as the market statistics give it (Index.Month both ways), whatever the day in the month.
func TestTrendIsTheMonthsChange(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ix := Index{Start: start, MaxAhead: trendMaxAhead}
	for m := 0; m < 30; m++ {
		ix.Levels = append(ix.Levels, 0.004*float64(m*m)/10) // an accelerating rise: a day's interpolation would differ
	}
	e := &Engine{index: ix}
	for _, day := range []int{1, 15, 28} {
		at := time.Date(2026, 3, day, 12, 0, 0, 0, time.UTC) // month 26
		want := math.Exp(ix.Levels[26]-ix.Levels[14]) - 1
		if got := e.Trend(Unknown(), at); math.Abs(got-want) > 1e-12 {
			t.Errorf("March %d: trend %.6f, want the month's %.6f", day, got, want)
		}
	}
	// February 29: twelve months back is February, not March 1 (which an eleven-month change used to take).
	leap := Index{Start: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), MaxAhead: trendMaxAhead}
	for m := 0; m < 16; m++ {
		leap.Levels = append(leap.Levels, 0.005*float64(m))
	}
	want := math.Exp(leap.Levels[13]-leap.Levels[1]) - 1 // February 2028 against February 2027
	if got := leap.Change12m(time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)); math.Abs(got-want) > 1e-12 {
		t.Errorf("February 29: change %.6f, want February's against February's %.6f", got, want)
	}
}
