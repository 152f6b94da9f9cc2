package gbm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A known function with noise: the model must learn it far better than the mean does.
func synth(n int, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := make([][]float64, n)
	y := make([]float64, n)
	for i := range X {
		a, b, c := rng.Float64()*10, rng.Float64()*10, rng.Float64()
		X[i] = []float64{a, b, c}
		y[i] = math.Sin(a) + 0.5*b + (func() float64 {
			if c > 0.5 {
				return 2
			}
			return 0
		})() + rng.NormFloat64()*0.1
	}
	return X, y
}

func rmse(m *Model, X [][]float64, y []float64) float64 {
	var s float64
	for i := range X {
		d := m.Predict(X[i]) - y[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(X)))
}

func TestTrainLearnsAKnownFunction(t *testing.T) {
	X, y := synth(4000, 1)
	Xt, yt := synth(1000, 2)
	p := DefaultParams()
	p.Trees = 300
	m, err := Train(X, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	got := rmse(m, Xt, yt)
	// The noise is 0.1; the target's own spread is about 1.8.
	if got > 0.2 {
		t.Errorf("test RMSE = %.3f, want < 0.2", got)
	}
	if m.Gain[2] == 0 || m.Gain[0] == 0 {
		t.Errorf("feature gains %v: every informative feature should be used", m.Gain)
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	X, y := synth(500, 3)
	p := DefaultParams()
	p.Trees = 50
	a, _ := Train(X, y, nil, p)
	b, _ := Train(X, y, nil, p)
	for i := 0; i < 20; i++ {
		if a.Predict(X[i]) != b.Predict(X[i]) {
			t.Fatal("two trainings with one seed differ")
		}
	}
}

func TestMissingValuesAndConstantFeatures(t *testing.T) {
	X := make([][]float64, 200)
	y := make([]float64, 200)
	for i := range X {
		v := float64(i % 10)
		if i%7 == 0 {
			v = math.NaN()
		}
		X[i] = []float64{v, 5}
		y[i] = v
		if v != v {
			y[i] = -10
		}
	}
	p := DefaultParams()
	p.Trees = 200
	p.MinLeaf = 2
	p.FeatureFraction, p.BaggingFraction = 1, 1
	m, err := Train(X, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Predict([]float64{math.NaN(), 5}); math.Abs(got+10) > 1 {
		t.Errorf("prediction for a missing value = %.2f, want about -10", got)
	}
	if got := m.Predict([]float64{7, 5}); math.Abs(got-7) > 0.5 {
		t.Errorf("prediction for 7 = %.2f", got)
	}
}

func TestTrainRejectsBadInput(t *testing.T) {
	if _, err := Train(nil, nil, nil, DefaultParams()); err == nil {
		t.Error("empty input accepted")
	}
	if _, err := Train([][]float64{{1}}, []float64{1, 2}, nil, DefaultParams()); err == nil {
		t.Error("mismatched lengths accepted")
	}
}

func BenchmarkPredict(b *testing.B) {
	X, y := synth(5000, 1)
	p := DefaultParams()
	p.Trees = 500
	m, _ := Train(X, y, nil, p)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Predict(X[i%len(X)])
	}
}

func BenchmarkTrain(b *testing.B) {
	X, y := synth(15000, 1)
	p := DefaultParams()
	p.Trees = 100
	for i := 0; i < b.N; i++ {
		Train(X, y, nil, p)
	}
}

// TestMonotoneConstraints: on data whose target falls with the first feature in places (a noisy wave on a rising
// trend), a model constrained to rise with it never falls along it, for any row, and still learns the rest of the
// target; a model constrained to fall never rises. Unconstrained, the same data makes a model that dips.
func TestMonotoneConstraints(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	X := make([][]float64, 4000)
	y := make([]float64, len(X))
	for i := range X {
		a, b := rng.Float64()*10, rng.Float64()*10
		X[i] = []float64{a, b}
		y[i] = 0.3*a + math.Sin(3*a) + 0.5*b + rng.NormFloat64()*0.3
	}
	falls := func(m *Model, sign float64) int {
		n := 0
		for k := 0; k < 50; k++ {
			b := rng.Float64() * 10
			prev := math.Inf(-1)
			for a := 0.0; a <= 10; a += 0.05 {
				v := sign * m.Predict([]float64{a, b})
				if v < prev-1e-12 {
					n++
				}
				prev = v
			}
		}
		return n
	}
	p := DefaultParams()
	p.Trees = 200
	free, err := Train(X, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if falls(free, 1) == 0 {
		t.Fatal("the unconstrained model never dips: the data does not test the constraint")
	}
	p.Monotone = []int8{1}
	up, err := Train(X, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := falls(up, 1); n > 0 {
		t.Errorf("constrained to rise, the model falls %d times along the feature", n)
	}
	// The best rising fit cannot follow the wave's falls (about 0.5 of RMSE beside the noise's 0.3).
	if got, unconstrained := rmse(up, X, y), rmse(free, X, y); got > 0.8 || got < unconstrained {
		t.Errorf("constrained model RMSE %.3f (unconstrained %.3f)", got, unconstrained)
	}
	p.Monotone = []int8{-1}
	down, err := Train(X, y, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := falls(down, -1); n > 0 {
		t.Errorf("constrained to fall, the model rises %d times along the feature", n)
	}
}
