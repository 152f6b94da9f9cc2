package avm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMarketIndexComparesAHomeWithItself: a market rising 0.4% a month whose last two months happen to sell homes
// 10% better than their records say (a home's lasting deviation, which the model cannot see). Read from the sales'
// residuals alone, the index's end takes them for a rise; with each home compared with its own other sales
// (homeEffects) most of that goes: all but the shrinkage's share, k/(1+k) of a home's deviation with one other sale
// (here 0.08²/0.15² = 0.28: a fifth).
func TestMarketIndexComparesAHomeWithItself(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const months, homes, perMonth = 48, 6000, 0.004
	start := day(2020, 1, 1)
	var sales []areaSale
	for h := range homes {
		own := 0.15 * r.NormFloat64()
		last := r.IntN(10) == 0 // a tenth of the homes sell again in the last two months
		if last {
			own += 0.10
		}
		first := r.IntN(months - 14)
		sell := func(m int) {
			sales = append(sales, areaSale{home: int32(h), date: start.AddDate(0, m, 1+r.IntN(27)),
				resid: perMonth*float64(m) + own + 0.08*r.NormFloat64()})
		}
		sell(first)
		if last {
			sell(months - 2 + r.IntN(2))
		} else if r.IntN(2) == 0 {
			sell(first + 12 + r.IntN(months-14-first))
		}
	}
	change := func(ix Index) float64 {
		n := len(ix.Levels)
		return ix.Levels[n-1] - ix.Levels[n-13]
	}
	truth := 12 * perMonth
	alone := change(marketLevels(sales, start, months, nil))
	itself := change(marketIndex(sales, start, months))
	t.Logf("12-month change (log): truth %.4f, residuals alone %.4f, each home against itself %.4f", truth, alone, itself)
	if math.Abs(alone-truth) < 0.03 {
		t.Errorf("the residuals alone read %.4f, within 3 points of the truth %.4f: the test's lucky months do not show", alone, truth)
	}
	if math.Abs(itself-truth) > 0.25*math.Abs(alone-truth) {
		t.Errorf("each home against itself reads %.4f, the truth is %.4f: more than a quarter of the residuals' miss", itself, truth)
	}
}

// TestHomeEffectsShrinkByTheMeasuredLuck: a home's deviation is read from its other sales only, shrunk by the
// luck's share measured from the pairs; none when no home sold twice.
func TestHomeEffectsShrinkByTheMeasuredLuck(t *testing.T) {
	start := day(2020, 1, 1)
	var flat Index
	flat.Start = start
	flat.Levels = make([]float64, 12)
	if got := homeEffects([]areaSale{{home: 0, date: start}, {home: 1, date: start}}, &flat); got != nil {
		t.Fatalf("no home sold twice, got %v", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var sales []areaSale
	owns := map[int32]float64{}
	for h := range int32(20000) {
		own := 0.15 * r.NormFloat64()
		owns[h] = own
		for range 2 {
			sales = append(sales, areaSale{home: h, date: start.AddDate(0, r.IntN(12), 0), resid: own + 0.08*r.NormFloat64()})
		}
	}
	got := homeEffects(sales, &flat)
	// With one other sale each, the estimate is that sale's deviation times 1/(1+k), k = 0.08²/0.15² = 0.284.
	var sxy, sxx float64
	for i, s := range sales {
		other := sales[i^1].resid
		if got[i] != 0 && sales[i^1].home == s.home {
			sxy += got[i] * other
			sxx += other * other
		}
		if i%2 == 0 && got[i] == got[i+1] && sales[i].resid != sales[i+1].resid {
			t.Fatalf("sale %d explained by itself", i)
		}
	}
	if shrink := sxy / sxx; math.Abs(shrink-1/1.284) > 0.02 {
		t.Errorf("shrink %.3f, want about %.3f", shrink, 1/1.284)
	}
}
