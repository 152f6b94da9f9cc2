package gbm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteShapley is the Shapley value of every feature of x against ref by the definition: every coalition S of the
// other features, the hybrid row taking S from x and the rest from ref.
func bruteShapley(m *Model, x, ref []float64) []float64 {
	n := len(x)
	out := make([]float64, n)
	fact := func(k int) float64 {
		f := 1.0
		for i := 2; i <= k; i++ {
			f *= float64(i)
		}
		return f
	}
	hybrid := func(mask int) float64 {
		z := make([]float64, n)
		for i := range z {
			if mask&(1<<i) != 0 {
				z[i] = x[i]
			} else {
				z[i] = ref[i]
			}
		}
		return m.Predict(z)
	}
	for i := 0; i < n; i++ {
		for mask := 0; mask < 1<<n; mask++ {
			if mask&(1<<i) != 0 {
				continue
			}
			s := 0
			for j := 0; j < n; j++ {
				if mask&(1<<j) != 0 {
					s++
				}
			}
			w := fact(s) * fact(n-s-1) / fact(n)
			out[i] += w * (hybrid(mask|1<<i) - hybrid(mask))
		}
	}
	return out
}

// TestContributionsAreShapleyValues: on a model of five features (one with missing values, one split on many times
// along a path), the contributions equal the Shapley values computed by their definition, and add up to the
// difference of the two predictions.
func TestContributionsAreShapleyValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	X := make([][]float64, 3000)
	y := make([]float64, len(X))
	for i := range X {
		a, b, c, d, e := rng.Float64()*10, rng.Float64()*10, rng.Float64(), rng.NormFloat64(), rng.Float64()
		if rng.IntN(10) == 0 {
			c = math.NaN()
		}
		X[i] = []float64{a, b, c, d, e}
		y[i] = math.Sin(a)*b + 3*d*d + a*e + rng.NormFloat64()*0.1
		if c > 0.5 {
			y[i] += 2 * b
		}
	}
	p := DefaultParams()
	p.Trees, p.NumLeaves = 80, 24
	m, err := Train(X, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 20; k++ {
		x, ref := X[rng.IntN(len(X))], X[rng.IntN(len(X))]
		got := make([]float64, len(x))
		m.Contributions(x, ref, got)
		want := bruteShapley(m, x, ref)
		sum := 0.0
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("row %d feature %d: contribution %.12f, Shapley value %.12f", k, i, got[i], want[i])
			}
		}
		if d := m.Predict(x) - m.Predict(ref); math.Abs(sum-d) > 1e-9 {
			t.Fatalf("row %d: contributions add to %.12f, the predictions differ by %.12f", k, sum, d)
		}
	}
	// A row against itself: nothing moves.
	got := make([]float64, 5)
	m.Contributions(X[0], X[0], got)
	for i, v := range got {
		if v != 0 {
			t.Errorf("feature %d moves a row against itself by %v", i, v)
		}
	}
}
