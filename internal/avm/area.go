package avm

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"time"

	"valuator/internal/avm/gbm"
	"valuator/internal/geo"
)

// The levels of the price index a valuation can use, from the most general: the whole market the engine learned,
// a metro (a cluster of ZIP codes apart from the others), an area (a 3-digit ZIP prefix within a metro) and a ZIP
// code. A level exists only where the records support it and it differs from its parent (a market of one metro has
// no metro level; a metro of one 3-digit prefix no area level).
const (
	LevelMarket = "market"
	LevelMetro  = "metro"
	LevelArea   = "area"
	LevelZIP    = "zip"
)

// AreaIndex is the price index of one part of the market: its parent's index moved by how this part's sales
// moved against it (childIndex).
type AreaIndex struct {
	Level string // LevelMetro, LevelArea or LevelZIP
	// Key names the part: a metro by its ZIP code with the most sales, an area by its 3-digit prefix, a ZIP by itself.
	Key   string
	Sales int // the sales it was measured on
	Index
}

// Area index rules.
const (
	// metroMiles: ZIP codes whose sales' centres are within this distance of each other (through any chain of
	// them) form one metro. Metros of one country are far further apart; the ZIP codes of one metro far closer.
	metroMiles = 40
	// minAreaSales: a part with fewer sales has no index of its own and uses its parent's.
	minAreaSales = 150
	// windowSales is about how many sales the smoothing window of a part's monthly movement holds: a thin part
	// is smoothed over more months, so that its index follows its long-run movement rather than the noise of a
	// few sales a month (a metro of the 3,000-home demo market has about 7 a month: its window spans years).
	windowSales = 800
	// shrinkSales shrinks a part's movement toward its parent's by n/(n+shrinkSales), n its sales.
	shrinkSales = 100
)

// areaSale is what the area indexes need of one market sale.
type areaSale struct {
	zip      string
	lat, lon float64
	date     time.Time
	// curve is, for a sale in the sample the time effects were measured on (timeEffects), its home's log value at
	// each month of the market by the model with time (nil for the others); w is the number of sales it stands for.
	curve []float64
	w     float64
	// resid is the sale's log price less its home's value by the model at the middle of the history (every sale).
	resid float64
	// home is the sale's home (its place in the market), whose other sales tell its lasting deviation (homeEffects).
	home int32
}

// areaIndexes are the market's area indexes and, for each ZIP code with sales, the most specific one that covers it
// (-1: the market's own).
type areaIndexes struct {
	Areas []AreaIndex
	ByZIP map[string]int32
}

// buildAreas fits the index of every metro, area and ZIP code the sales support, each on its parent's.
func buildAreas(market Index, sales []areaSale) areaIndexes {
	out := areaIndexes{ByZIP: map[string]int32{}}
	byZIP := map[string][]int{}
	for i, s := range sales {
		if s.zip != "" {
			byZIP[s.zip] = append(byZIP[s.zip], i)
		}
	}
	zips := make([]string, 0, len(byZIP))
	for z := range byZIP {
		zips = append(zips, z)
		out.ByZIP[z] = -1
	}
	sort.Strings(zips)
	if len(market.Levels) == 0 {
		return out
	}
	// meanCurve is the weighted mean curve of the sampled sales of the ZIP codes zs, and their sales by month.
	meanCurve := func(zs []string) (curve, count []float64, total int) {
		n := len(market.Levels)
		curve, count = make([]float64, n), make([]float64, n)
		var sw float64
		for _, z := range zs {
			for _, i := range byZIP[z] {
				s := &sales[i]
				count[min(max(monthIndex(market.Start, s.date), 0), n-1)]++
				total++
				if s.curve != nil {
					for m, v := range s.curve {
						curve[m] += s.w * v
					}
					sw += s.w
				}
			}
		}
		for m := range curve {
			curve[m] /= sw
		}
		return curve, count, total
	}
	type part struct {
		self  int32
		curve []float64
	}
	// add fits the index of the part made of zs on its parent and maps its ZIP codes to it; it returns the part,
	// or parent when the part is too thin.
	add := func(level, key string, zs []string, parent part) part {
		curve, count, total := meanCurve(zs)
		if total < minAreaSales {
			return parent
		}
		p := &market
		if parent.self >= 0 {
			p = &out.Areas[parent.self].Index
		}
		ix := childIndex(*p, curve, parent.curve, count)
		out.Areas = append(out.Areas, AreaIndex{Level: level, Key: key, Sales: total, Index: ix})
		self := int32(len(out.Areas) - 1)
		for _, z := range zs {
			out.ByZIP[z] = self
		}
		return part{self, curve}
	}
	all, _, _ := meanCurve(zips)
	root := part{-1, all}
	for _, metro := range metrosOf(zips, byZIP, sales) {
		parent := root
		if len(metro) < len(zips) {
			parent = add(LevelMetro, largest(metro, byZIP), metro, root)
		}
		prefixes := groupBy(metro, func(z string) string { return z[:min(3, len(z))] })
		for _, pz := range prefixes {
			area := parent
			if len(prefixes) > 1 {
				area = add(LevelArea, pz[0][:min(3, len(pz[0]))], pz, parent)
			}
			if len(pz) > 1 {
				for _, z := range pz {
					add(LevelZIP, z, []string{z}, area)
				}
			}
		}
	}
	return out
}

// metrosOf groups the ZIP codes into metros: single-linkage clusters of their sales' centres at metroMiles.
func metrosOf(zips []string, byZIP map[string][]int, sales []areaSale) [][]string {
	pts := make([]geo.Point, len(zips))
	for i, z := range zips {
		var lat, lon float64
		for _, k := range byZIP[z] {
			lat += sales[k].lat
			lon += sales[k].lon
		}
		n := float64(len(byZIP[z]))
		pts[i] = geo.Point{ID: int32(i), Lat: lat / n, Lon: lon / n}
	}
	parent := make([]int, len(zips))
	for i := range parent {
		parent[i] = i
	}
	var root func(int) int
	root = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	sp := geo.NewIndex(pts)
	for i, p := range pts {
		for _, nb := range sp.Nearest(p.Lat, p.Lon, len(pts), metroMiles, nil) {
			if a, b := root(i), root(int(nb.ID)); a != b {
				parent[a] = b
			}
		}
	}
	return groupBy(zips, func(z string) string {
		i := sort.SearchStrings(zips, z)
		return zips[root(i)]
	})
}

// groupBy splits sorted keys into groups of equal key(k), in order of their first member.
func groupBy(keys []string, key func(string) string) [][]string {
	var out [][]string
	at := map[string]int{}
	for _, k := range keys {
		g := key(k)
		i, ok := at[g]
		if !ok {
			i = len(out)
			at[g] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], k)
	}
	return out
}

// largest is the ZIP code of zs with the most sales (the first in order on a tie).
func largest(zs []string, byZIP map[string][]int) string {
	best := zs[0]
	for _, z := range zs[1:] {
		if len(byZIP[z]) > len(byZIP[best]) {
			best = z
		}
	}
	return best
}

// childIndex is the index of a part of parent's market: parent's levels plus how the part's values moved against
// the parent's over time (curve less parentCurve: the time effects of the part's sales against those of the
// parent's), smoothed by a local linear fit over a window that holds about windowSales of its sales (count: its
// sales by month), centred so that the part's sales are on average deflated as much as by the parent (only the
// movement over time is the part's own; the value model learns its level), and shrunk toward the parent by its
// number of sales. Beyond the data it follows the parent's trend plus the part's own recent movement against it,
// damped as the market's default trend is; its season is the parent's.
func childIndex(parent Index, curve, parentCurve, count []float64) Index {
	n := len(parent.Levels)
	raw := make([]float64, n)
	total := 0.0
	for m := range raw {
		raw[m] = curve[m] - parentCurve[m]
		total += count[m]
	}
	// The half-width in months of a window that holds about windowSales sales at the part's average rate.
	h := int(math.Ceil((windowSales*float64(n)/total - 1) / 2))
	h = min(max(h, 2), n)
	weight := make([]float64, n)
	for m := range weight {
		weight[m] = count[m] + 1 // every month has a time effect; those with sales count more
	}
	dev := make([]float64, n)
	var endSlope float64
	for m := range dev {
		dev[m], endSlope = localLine(raw, weight, m, h)
	}
	mean := 0.0
	for m, c := range count {
		mean += c * dev[m]
	}
	mean /= total
	shrink := total / (total + shrinkSales)
	ix := parent
	ix.Levels = make([]float64, n)
	for m := range dev {
		ix.Levels[m] = parent.Levels[m] + shrink*(dev[m]-mean)
	}
	ix.Slope = math.Max(-trendMaxPerMonth, math.Min(trendMaxPerMonth, parent.Slope+shrink*trendDamping*endSlope))
	return ix
}

// indexOfZIP is the price index of a ZIP code: the most specific area index that covers it, else the market's.
func (e *Engine) indexOfZIP(zip string) (*Index, int32) {
	if a, ok := e.areas.ByZIP[zip]; ok && a >= 0 {
		return &e.areas.Areas[a].Index, a
	}
	return &e.index, -1
}

// indexFor is the price index a home's value moves with, and its level and key: its ZIP code's most specific area
// index; for a ZIP code without sales, that of the nearest sale's home; else the market's.
func (e *Engine) indexFor(h *Home) (*Index, string, string) {
	zip := h.ZIP
	if _, ok := e.areas.ByZIP[zip]; !ok && e.spatial != nil && known(h.Lat) && known(h.Lon) {
		if nb := e.spatial.Nearest(h.Lat, h.Lon, 1, math.Inf(1), nil); len(nb) > 0 {
			zip = e.market.homes.zip.at(e.sales[nb[0].ID].property)
		}
	}
	ix, a := e.indexOfZIP(zip)
	if a < 0 {
		return ix, LevelMarket, ""
	}
	return ix, e.areas.Areas[a].Level, e.areas.Areas[a].Key
}

// saleIndex is the price index of a market sale's home (its ZIP code's: every market ZIP code has one).
func (e *Engine) saleIndex(s *saleInfo) *Index {
	ix, _ := e.indexOfZIP(e.market.homes.zip.at(s.property))
	return ix
}

// AreaIndex is the price index a home's value moves with (the most specific of its ZIP code's area indexes, see
// indexFor), with its level (LevelZIP, LevelArea, LevelMetro or LevelMarket) and key. It is shared, not copied:
// callers only read it.
func (e *Engine) AreaIndex(h Home) (ix *Index, level, key string) { return e.indexFor(&h) }

// timeEffectsMonths is the shortest history whose whole-market index is read from time effects (trainCore).
const timeEffectsMonths = 36

// timeSample is about how many sales of each ZIP code the time effects are read from.
const timeSample = 200

// timeEffects fits a quick model of each sale's log price on its home's facts and its date (months since start),
// and reads the time effects off it, as hedonic indexes do: for a sample of the sales (up to about timeSample of
// each ZIP code), the sale's home valued by that model at the middle of each of the n months from start. A time
// effect, unlike the median residual against a model without time, is not taken up by facts that change with time:
// homes built in the last years only ever sell in them, and a model without time credits their age with what the
// market's rise did (on the demo market, whose every metro rises 4.5-7% a year, the median residual index rose 2.4%).
// rows are the sales' base features (X[k] nil: computed by row); fit marks those the model learns from.
func timeEffects(X [][]float64, row func(k int, dst []float64) []float64, y []float64, dates []time.Time,
	zips []string, fit []bool, start time.Time, n int, p gbm.Params) ([]areaSale, error) {
	monthsOf := func(d time.Time) float64 { return d.Sub(start).Hours() / 24 / 30.4375 }
	var Xf [][]float64
	var yf []float64
	for k := range X {
		if X[k] != nil {
			X[k] = append(X[k], monthsOf(dates[k]))
			Xf, yf = append(Xf, X[k]), append(yf, y[k])
		}
	}
	nBase := len(Xf[0]) - 1
	p.Monotone = append(append([]int8(nil), p.Monotone[:min(nBase, len(p.Monotone))]...), 0)
	model, err := gbm.Train(Xf, yf, nil, p)
	// Trees shrink a trend's two ends toward its middle (the first and last months rest on the fewest sales and
	// every leaf is regularised): on the demo market the last year's rise came out a point low. So the model is fitted
	// again on prices less the straight-line trend of its first fit's time effects, and that line is added back: the
	// trees are left only the bends, whose ends they shrink far less.
	var slope float64
	if err == nil {
		slope = pdSlope(model, Xf, nBase, n)
		yt := make([]float64, len(yf))
		for i, x := range Xf {
			yt[i] = yf[i] - slope*x[nBase]
		}
		model, err = gbm.Train(Xf, yt, nil, p)
	}
	for k := range X {
		if X[k] != nil {
			X[k] = X[k][:nBase]
		}
	}
	if err != nil {
		return nil, err
	}
	perZIP := map[string]int{}
	for _, z := range zips {
		perZIP[z]++
	}
	out := make([]areaSale, len(X))
	for k := range X {
		out[k].zip, out[k].date = zips[k], dates[k]
		share := math.Min(1, timeSample/float64(perZIP[zips[k]]))
		if float64(mix64(uint64(k)+0x5bd1e995))/math.MaxUint64 < share {
			out[k].w = 1 / share
		}
	}
	// Every sale's residual (one prediction each: the whole market's index rests on all of them), and the sampled
	// sales' curves (one prediction a month each).
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var buf []float64
			for k := w; k < len(X); k += workers {
				if X[k] != nil {
					buf = append(buf[:0], X[k]...)
				} else {
					buf = row(k, buf[:0])
				}
				buf = append(buf, 0)
				if out[k].w > 0 {
					c := make([]float64, n)
					for m := range c {
						t := float64(m) + 0.5
						buf[nBase] = t
						c[m] = model.Predict(buf) + slope*t
					}
					out[k].curve = c
				}
				mid := float64(n) / 2
				buf[nBase] = mid
				out[k].resid = y[k] - model.Predict(buf) - slope*mid
			}
		}(w)
	}
	wg.Wait()
	return out, nil
}

// marketIndex is the index of the whole market: month by month, the trimmed mean of every sale's log price against
// its home's value by the time model at one date, smoothed and centred (indexOfLevels); a month's weight in the
// smoothing is its number of sales against the average month's, so that the month of the data's last day, a few
// days of sales, moves the index's end less than a whole month does. (It used to rest on the sample of about 200
// sales a ZIP code the curves are read from, with the window and the weights of all the sales: on a 30,000-home
// demo market a two-month window over a tenth of them, and the metros' 12-month change 2.4 points off the
// generator's growth on average over four days; 1.4 now.) The model's facts are free of time (it learned time apart), while its own time effect is left out: trees
// shrink a trend's ends and split time where a few months' noise is largest, and the mean time effect of the
// demo market stepped 3% down over its last six months where its sales did not (the metros' 12-month change, mean
// over six days, 1.4 points off the generator's growth with the time effects, 1.1 with this).
//
// It is read twice: the second time each sale's residual is less its home's own lasting deviation from the model,
// as the home's other sales show it against the first reading (homeEffects), as a repeat-sales index compares a
// home only with itself. A home's layout, light or kitchen, which no record says, moves its price about 15% for
// good; a month's level is the mean of a few hundred such homes, and a month whose homes happen to be better than
// their records say reads high. The index's end, a line through its last months, carries such a month's luck into
// the 12-month change. On 30,000-home demo markets over four days the metros' 12-month change missed the generator's
// growth by 1.31 / 1.11 / 1.15 / 2.10 points on average, reading low on every day, and 0.97 / 0.53 / 0.69 / 1.36
// with the second reading (docs/accuracy.md).
func marketIndex(sales []areaSale, start time.Time, n int) Index {
	first := marketLevels(sales, start, n, nil)
	own := homeEffects(sales, &first)
	if own == nil {
		return first
	}
	return marketLevels(sales, start, n, own)
}

// marketLevels is one reading of marketIndex, each sale's residual less own[i] (nil: none).
func marketLevels(sales []areaSale, start time.Time, n int, own []float64) Index {
	byMonth := make([][]weighted, n)
	count := make([]float64, n)
	for i := range sales {
		s := &sales[i]
		m := min(max(monthIndex(start, s.date), 0), n-1)
		count[m]++
		r := s.resid
		if own != nil {
			r -= own[i]
		}
		byMonth[m] = append(byMonth[m], weighted{r, 1})
	}
	raw, weight := make([]float64, n), make([]float64, n)
	perMonth := float64(len(sales)) / float64(n)
	for m := range raw {
		raw[m] = trimmedMean(byMonth[m])
		weight[m] = count[m] / perMonth
	}
	return indexOfLevels(start, raw, weight, perMonth)
}

// homeEffects estimates each sale's home's lasting deviation from the model from the home's other sales: each
// sale's residual less the index at its date (less their median, the model's level) is the home's deviation plus
// the sale's own luck, so the mean over its other sales, shrunk by k/(n+k), estimates the home's deviation without
// the sale's own luck (a sale never explains itself). k is the luck's variance over the homes' lasting variance,
// read from the pairs of sales of one home: their covariance is the lasting part (on the demo market about 0.018,
// a 13.5% spread, against 0.025 in all: k about 0.37). Nil when no home sold twice or the pairs show no lasting
// part.
func homeEffects(sales []areaSale, ix *Index) []float64 {
	dev := make([]float64, len(sales))
	for i := range sales {
		dev[i] = sales[i].resid - ix.At(sales[i].date)
	}
	level := median(dev)
	for i := range dev {
		dev[i] -= level
	}
	// The sales grouped by home.
	order := make([]int32, len(sales))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return sales[order[a]].home < sales[order[b]].home })
	groups := func(fn func(g []int32)) {
		for a := 0; a < len(order); {
			b := a + 1
			for b < len(order) && sales[order[b]].home == sales[order[a]].home {
				b++
			}
			if b-a >= 2 {
				fn(order[a:b])
			}
			a = b
		}
	}
	var sumSq, sumProd float64
	var pairs int
	groups(func(g []int32) {
		for a := range g {
			for b := a + 1; b < len(g); b++ {
				x, y := dev[g[a]], dev[g[b]]
				sumSq += (x*x + y*y) / 2
				sumProd += x * y
				pairs++
			}
		}
	})
	if pairs == 0 || sumProd <= 0 {
		return nil
	}
	k := (sumSq - sumProd) / sumProd
	own := make([]float64, len(sales))
	groups(func(g []int32) {
		var sum float64
		for _, i := range g {
			sum += dev[i]
		}
		for _, i := range g {
			own[i] = (sum - dev[i]) / (float64(len(g)-1) + k)
		}
	})
	return own
}

// weighted is a value and its weight.
type weighted struct{ v, w float64 }

// trimmedMean is the weighted mean of the values between the 10th and 90th weighted percentiles (NaN for none): as
// steady as the mean where prices are well behaved, not moved by a few odd sales where they are not. It reorders vs.
func trimmedMean(vs []weighted) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].v < vs[j].v })
	total := 0.0
	for _, x := range vs {
		total += x.w
	}
	lo, hi := 0.1*total, 0.9*total
	var acc, sum, sw float64
	for _, x := range vs {
		// The part of x's weight that lies within [lo, hi].
		in := math.Min(acc+x.w, hi) - math.Max(acc, lo)
		if in > 0 {
			sum += in * x.v
			sw += in
		}
		acc += x.w
	}
	if sw == 0 {
		return vs[len(vs)/2].v
	}
	return sum / sw
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// pdSlope is the least-squares slope per month of the model's mean time effect over n months, read on up to 500
// evenly spread rows of X (time in column nBase).
func pdSlope(model *gbm.Model, X [][]float64, nBase, n int) float64 {
	step := max(1, len(X)/500)
	var sx, sy, sxx, sxy float64
	buf := make([]float64, nBase+1)
	for m := 0; m < n; m++ {
		t := float64(m) + 0.5
		var sum float64
		var cnt int
		for i := 0; i < len(X); i += step {
			copy(buf, X[i][:nBase])
			buf[nBase] = t
			sum += model.Predict(buf)
			cnt++
		}
		v := sum / float64(cnt)
		sx += t
		sy += v
		sxx += t * t
		sxy += t * v
	}
	fn := float64(n)
	if d := fn*sxx - sx*sx; d > 0 {
		return (fn*sxy - sx*sy) / d
	}
	return 0
}
