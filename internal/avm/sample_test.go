package avm

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"valuator/internal/avm/gbm"
)

func TestSamplerKeepsAboutTheLimit(t *testing.T) {
	if sampler(1000, 0) != nil || sampler(1000, 1000) != nil || sampler(10, 2000) != nil {
		t.Fatal("a sampler with nothing to drop should be nil (keep all)")
	}
	const n = 200_000
	for _, limit := range []int{1_000, 20_000, 150_000} {
		keep := sampler(n, limit)
		kept := 0
		for id := 1; id <= n; id++ {
			if keep(uint64(id)) {
				kept++
			}
		}
		if math.Abs(float64(kept-limit)) > 0.05*float64(limit) {
			t.Errorf("kept %d of %d, want about %d", kept, n, limit)
		}
	}
	// A key kept from a larger market is kept from a smaller one too: the sample is stable as a market grows.
	small, large := sampler(300_000, 100_000), sampler(1_000_000, 100_000)
	for id := uint64(1); id <= 100_000; id++ {
		if large(id) && !small(id) {
			t.Fatalf("key %d kept at 10%% but not at 33%%", id)
		}
	}
	if saleKey(Sale{ID: 42}, 7) != 42 || saleKey(Sale{}, 7) == saleKey(Sale{}, 8) || saleKey(Sale{}, 42) == 42 {
		t.Error("saleKey: a record's id, else its position, never colliding with an id")
	}
}

// Rows outside the sample are predicted (from features stored or computed on demand) but never learned from:
// garbage targets on them change nothing.
func TestOutOfFoldLearnsOnlyFromTheSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 600
	X := make([][]float64, n)
	y, bad := make([]float64, n), make([]float64, n)
	fold, fit := make([]int, n), make([]bool, n)
	for k := range X {
		X[k] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		y[k] = 3*X[k][0] - X[k][1] + 0.1*rng.NormFloat64()
		fold[k], fit[k] = k%3, k%2 == 0
		bad[k] = y[k]
		if !fit[k] {
			bad[k] = 1e6
		}
	}
	p := gbm.DefaultParams()
	p.Trees, p.MinLeaf = 50, 5
	clean, _, err := outOfFold(X, nil, y, fold, fit, 3, p)
	if err != nil {
		t.Fatal(err)
	}
	// The same, with the rows outside the sample not stored but computed when predicted.
	sparse := make([][]float64, n)
	for k := range X {
		if fit[k] {
			sparse[k] = X[k]
		}
	}
	row := func(k int, dst []float64) []float64 { return append(dst[:0], X[k]...) }
	dirty, _, err := outOfFold(sparse, row, bad, fold, fit, 3, p)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for k := range X {
		if clean[k] != dirty[k] {
			t.Fatalf("row %d: %v with clean targets outside the sample, %v with garbage ones", k, clean[k], dirty[k])
		}
		sum += math.Abs(clean[k] - y[k])
	}
	if mae := sum / float64(n); mae > 0.3 {
		t.Errorf("out-of-fold predictions of every row (sampled or not) off by %.3f on average", mae)
	}
}

// A market larger than MaxModelSales trains on a sample yet keeps every sale as a comparable and values well.
func TestTrainOnABoundedSample(t *testing.T) {
	m, _ := synthMarket(1500, 7)
	cut := time.Date(2023, 10, 1, 0, 0, 0, 0, time.UTC)
	market, tests := splitAt(m, cut)
	opt := testOptions()
	opt.MaxModelSales, opt.MaxHoldout = 500, 60
	e, err := Train(market, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.sales) != len(market.Sales) {
		t.Errorf("%d of %d sales kept as comparables", len(e.sales), len(market.Sales))
	}
	if r := e.Evaluate(tests); r.Valued != len(tests) || r.MdAPE > 0.06 || r.PPE10 < 0.7 {
		t.Errorf("valued %d of %d, MdAPE %.3f PPE10 %.3f from a sample of 500 sales", r.Valued, len(tests), r.MdAPE, r.PPE10)
	}
}
