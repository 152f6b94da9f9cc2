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
