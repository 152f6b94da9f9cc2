package avm

import (
	"math"
	"sort"
	"time"
)

// Index is the market's price level over time, in log units, by calendar month: the median residual of sales in
// each month against a model that ignores time, so a change in which homes sold (more cheap homes in winter, say)
// does not read as a change in prices. Beyond the last month it extrapolates a damped trend.
type Index struct {
	Start  time.Time // first month
	Levels []float64 // smoothed log level per month from Start
	// Seasonal is the log effect of each calendar month (January first), used to extrapolate: the trend is
	// measured on the seasonally adjusted index, and the season of the target month is added back.
	Seasonal [12]float64
	// Slope is the seasonally adjusted trend per month used beyond the data, already damped and clipped.
	Slope float64
	// MaxAhead caps how far past the data the trend is extrapolated; later dates get the level at the cap.
	MaxAhead int
}

// defaultSeasonal is the seasonal profile used when a market has less than two years of data to measure its own:
// a typical pattern of US repeat-sales house price indexes (prices firm in late spring and summer and soften in
// winter), with an amplitude of about 1.5%. It is a fixed prior, not fitted to any market in this repository.
var defaultSeasonal = [12]float64{-0.015, -0.013, -0.005, 0.004, 0.011, 0.015, 0.015, 0.011, 0.004, -0.003, -0.009, -0.014}

func monthIndex(start, t time.Time) int {
	return (t.Year()-start.Year())*12 + int(t.Month()) - int(start.Month())
}

func monthStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// At returns the log level at t. Within the data it interpolates linearly between month midpoints; before the
// data it holds the first level; after it, the last level plus the damped trend.
func (ix *Index) At(t time.Time) float64 {
	if len(ix.Levels) == 0 {
		return 0
	}
	m := monthIndex(ix.Start, t)
	// Position in months, with each month's level sitting at its middle.
	days := float64(t.Day()-1) / 30.4
	pos := float64(m) + days - 0.5
	last := len(ix.Levels) - 1
	switch {
	case pos <= 0:
		return ix.Levels[0]
	case pos >= float64(last):
		ahead := math.Min(pos-float64(last), float64(ix.MaxAhead))
		lastMonth := ix.Start.AddDate(0, last, 0).Month()
		target := ix.Start.AddDate(0, last+int(math.Round(ahead)), 0).Month()
		return ix.Levels[last] - ix.Seasonal[lastMonth-1] + ix.Slope*ahead + ix.Seasonal[target-1]
	default:
		i := int(pos)
		f := pos - float64(i)
		return ix.Levels[i]*(1-f) + ix.Levels[i+1]*f
	}
}

// Change12m is the index's change over the twelve months to the calendar month of at (0.05 = +5%): the month's level
// (Month) against the same month's a year before, as the statistics of a market give it. The year is counted back
// from the month's first day: from February 29 a year back is March 1, and the change would be of eleven months.
func (ix *Index) Change12m(at time.Time) float64 {
	now, _ := ix.Month(at)
	before, _ := ix.Month(monthStart(at).AddDate(0, -12, 0))
	return math.Exp(now-before) - 1
}

// End is the first day after the index's data.
func (ix *Index) End() time.Time { return ix.Start.AddDate(0, len(ix.Levels), 0) }

// indexParams tune the estimate.
const (
	indexMinPerMonth = 20   // months with fewer sales borrow strength from their neighbours
	trendMaxPerMonth = 0.01 // at most 1% a month either way
	trendMaxAhead    = 12   // months
	// indexWindowSales and indexMaxWindow: the index of a thin market is smoothed over as many months either side
	// as hold about indexWindowSales sales, up to indexMaxWindow (indexOfLevels). King County's 1,700 sales a month
	// need no more than the usual two; the 3,000-home demo market's 50 a month need eight.
	indexWindowSales = 800
	indexMaxWindow   = 12
)

// The trend's window and damping when the market is too short to choose them (chooseTrend).
const (
	trendMonths  = 6   // the trend is fitted on the last months
	trendDamping = 0.7 // extrapolate only part of the recent trend: trends revert
)

// buildIndex estimates the index from each sale's date and its residual against a time-blind model: the monthly
// median residual.
func buildIndex(dates []time.Time, resid []float64) Index {
	if len(dates) == 0 {
		return Index{}
	}
	start, end := monthStart(dates[0]), monthStart(dates[0])
	for _, d := range dates {
		if d.Before(start) {
			start = monthStart(d)
		}
		if d.After(end) {
			end = monthStart(d)
		}
	}
	n := monthIndex(start, end) + 1
	byMonth := make([][]float64, n)
	for i, d := range dates {
		m := monthIndex(start, d)
		byMonth[m] = append(byMonth[m], resid[i])
	}
	raw := make([]float64, n)
	weight := make([]float64, n)
	for m, v := range byMonth {
		if len(v) == 0 {
			raw[m] = math.NaN()
			continue
		}
		raw[m] = median(v)
		weight[m] = math.Min(1, float64(len(v))/indexMinPerMonth)
	}
	return indexOfLevels(start, raw, weight, float64(len(dates))/float64(n))
}

// indexOfLevels makes the index from raw monthly log levels from start (NaN: no data), each weighted by how much
// data it rests on, and perMonth, the market's average sales a month: seasonally adjusted, smoothed, centred, with
// its season and its trend past the data.
func indexOfLevels(start time.Time, raw, weight []float64, perMonth float64) Index {
	n := len(raw)
	// Smooth with a local linear fit, weighted by each month's data and a tricube kernel (a moving average would lag
	// at the ends of the series, and the last month is where extrapolation starts), over two months either side, or
	// as many as hold about indexWindowSales sales in a thin market: a month's level there rests on a few dozen
	// sales, and the change over a year would be mostly their noise. A window that wide would flatten the season,
	// and a narrow one at the end of the series would fit a line to the season's bend (a June peak read as a fall),
	// so a season the market's two years or more can measure is taken out before and put back after. (On a market
	// generated with a 2% season and a steady trend, the 12-month change to each calendar month came out up to 0.4
	// points off with a two-month window and the season left in, 0.1 with it taken out.)
	h := min(max(int(math.Ceil((indexWindowSales/perMonth-1)/2)), 2), indexMaxWindow)
	var season [12]float64
	if n >= 24 {
		filled := append([]float64(nil), raw...)
		fillGaps(filled)
		season = seasonalProfile(start, filled)
	}
	inSeason := func(m int) float64 { return season[start.AddDate(0, m, 0).Month()-1] }
	adj := make([]float64, n)
	for m := range raw {
		adj[m] = raw[m] - inSeason(m)
	}
	levels := make([]float64, n)
	for m := range levels {
		// The ends of a thin market's index, or of any over two years or more, are widened (localLinear).
		levels[m] = localLinear(adj, weight, m, h, h > 2 || n >= 24)
	}
	fillGaps(levels)
	// Express levels relative to their mean, so the model trained on deflated prices sits at the average level.
	mean := 0.0
	for m := range levels {
		levels[m] += inSeason(m)
		mean += levels[m]
	}
	mean /= float64(n)
	for m := range levels {
		levels[m] -= mean
	}
	ix := Index{Start: start, Levels: levels, MaxAhead: trendMaxAhead, Seasonal: seasonalProfile(start, levels)}
	adjusted := make([]float64, n)
	for m := range levels {
		adjusted[m] = levels[m] - ix.Seasonal[start.AddDate(0, m, 0).Month()-1]
	}
	months, damping := chooseTrend(adjusted)
	ix.Slope = trendSlope(adjusted, months, damping)
	return ix
}

// seasonalProfile measures the market's own seasonality when it has at least two full years of monthly levels
// (the level less its centred 12-month average, by calendar month, shrunk half-way to the default), else returns
// the default profile.
func seasonalProfile(start time.Time, levels []float64) [12]float64 {
	if len(levels) < 24 {
		return defaultSeasonal
	}
	var sum [12]float64
	var cnt [12]int
	for m := 6; m+6 < len(levels); m++ {
		avg := 0.0
		for k := m - 6; k <= m+6; k++ {
			w := 1.0
			if k == m-6 || k == m+6 {
				w = 0.5
			}
			avg += w * levels[k]
		}
		avg /= 12
		mo := start.AddDate(0, m, 0).Month() - 1
		sum[mo] += levels[m] - avg
		cnt[mo]++
	}
	var out [12]float64
	mean := 0.0
	for i := range out {
		if cnt[i] > 0 {
			out[i] = sum[i] / float64(cnt[i])
		}
		mean += out[i]
	}
	for i := range out {
		out[i] = 0.5*(out[i]-mean/12) + 0.5*defaultSeasonal[i]
	}
	return out
}

// localLinear is localLine's level alone, the window widened at the ends of the series when widen is set.
func localLinear(v, w []float64, m, h int, widen bool) float64 {
	// Near either end the window is one-sided, and a line's end fitted on half a window carries about four times
	// the noise of its middle. Where the window is wider than the least (a thin market, whose levels are mostly
	// noise, not bends), or the history is two years or more, it is widened here so that it still spans 2h+1
	// months: on the demo market this took the metros' 12-month change from 1.7 points off the generator's growth
	// to 1.4 (mean over six days); on a 30,000-home demo market, whose two-month window ended on a line through
	// its last three months, the widening took the mean miss over four days from 1.7 points to 1.4. Only a market's
	// own index is widened: widening childIndex's too cost King County's ZIP codes the calibration of the confidence
	// (6 points off in a tenth), and widening King County's nine months its MdAPE (7.96% to 8.04%).
	if edge := min(m, len(v)-1-m); widen && edge < h {
		h += h - max(edge, 0)
	}
	level, _ := localLine(v, w, m, h)
	return level
}

// localLine fits a line to v[m-h..m+h] (skipping NaN and zero weights), weighted by w and a tricube kernel, and
// returns its value and slope at m (NaN when no month has data; slope 0 with a single month).
func localLine(v, w []float64, m, h int) (level, slope float64) {
	var sw, sx, sy, sxx, sxy float64
	months := 0
	for j := m - h; j <= m+h; j++ {
		if j < 0 || j >= len(v) || v[j] != v[j] || w[j] == 0 {
			continue
		}
		d := math.Abs(float64(j-m)) / float64(h+1)
		k := w[j] * math.Pow(1-d*d*d, 3)
		x := float64(j - m)
		sw += k
		sx += k * x
		sy += k * v[j]
		sxx += k * x * x
		sxy += k * x * v[j]
		months++
	}
	if months == 0 {
		return math.NaN(), math.NaN()
	}
	det := sw*sxx - sx*sx
	if months < 2 || math.Abs(det) < 1e-12 {
		return sy / sw, 0
	}
	return (sxx*sy - sx*sxy) / det, (sw*sxy - sx*sy) / det
}

// chooseTrend picks the trend's window (months) and damping by backtesting them on the market's own index: from
// each of its last months, extrapolate the seasonally adjusted level one to three months ahead and compare with
// the level the index found there; the pair with the smallest mean absolute error wins. A market with under eight
// months of history keeps the defaults: too few forecasts to choose by.
func chooseTrend(adjusted []float64) (months int, damping float64) {
	months, damping = trendMonths, trendDamping
	n := len(adjusted)
	if n < 8 {
		return months, damping
	}
	backtest := func(k int, d float64) float64 {
		var sum float64
		var cnt int
		for o := max(5, n-7); o <= n-2; o++ {
			slope := trendSlope(adjusted[:o+1], k, d)
			for h := 1; h <= 3 && o+h < n; h++ {
				sum += math.Abs(adjusted[o] + slope*float64(h) - adjusted[o+h])
				cnt++
			}
		}
		return sum / float64(cnt)
	}
	// Another choice must beat the defaults clearly (by 0.01% of price a month).
	best := backtest(months, damping) - 1e-4
	for _, k := range []int{3, 4, 6, 9, 12} {
		for _, d := range []float64{0.5, 0.7, 0.85, 1} {
			if err := backtest(k, d); err < best {
				best, months, damping = err, k, d
			}
		}
	}
	return months, damping
}

// trendSlope fits a line to the last `months` of the index, damps it and clips it.
func trendSlope(levels []float64, months int, damping float64) float64 {
	k := min(months, len(levels))
	if k < 3 {
		return 0
	}
	ys := levels[len(levels)-k:]
	var sx, sy, sxx, sxy float64
	for i, y := range ys {
		x := float64(i)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	fk := float64(k)
	slope := (fk*sxy - sx*sy) / (fk*sxx - sx*sx)
	slope *= damping
	return math.Max(-trendMaxPerMonth, math.Min(trendMaxPerMonth, slope))
}

func fillGaps(v []float64) {
	last := math.NaN()
	for i := range v {
		if v[i] == v[i] {
			last = v[i]
		} else if last == last {
			v[i] = last
		}
	}
	last = math.NaN()
	for i := len(v) - 1; i >= 0; i-- {
		if v[i] == v[i] {
			last = v[i]
		} else {
			v[i] = last
		}
	}
	for i := range v {
		if v[i] != v[i] {
			v[i] = 0
		}
	}
}

func median(v []float64) float64 {
	c := append([]float64(nil), v...)
	sort.Float64s(c)
	n := len(c)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// Month is the index's log level for the calendar month of t, as the statistics of a market show it (internal/
// market): the month's own smoothed level within the data, the extrapolated level (At) of its middle after it;
// ok is false before the data, where the first level is held for want of any.
func (ix *Index) Month(t time.Time) (level float64, ok bool) {
	if len(ix.Levels) == 0 {
		return 0, false
	}
	m := monthIndex(ix.Start, t)
	switch {
	case m < 0:
		return ix.Levels[0], false
	case m < len(ix.Levels):
		return ix.Levels[m], true
	default:
		mid := monthStart(t).AddDate(0, 0, 15)
		return ix.At(mid), true
	}
}
