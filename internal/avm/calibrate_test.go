package avm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Held-out valuations of two kinds of homes with known error scales: easy ones (Laplace scale 0.04) and hard ones
// (0.15), told apart by one signal. The fitted confidence must match each kind's true chance of landing within 10%,
// and the 80% range must hold 80% of each kind.
func TestCalibrationRecoversKnownErrorScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	laplace := func(b float64) float64 {
		u := rng.Float64() - 0.5
		return -b * math.Copysign(math.Log(1-2*math.Abs(u)), u)
	}
	kinds := []struct {
		sd, scale float64
	}{{0.02, 0.04}, {0.3, 0.15}}
	var held []heldOut
	for i := 0; i < 6000; i++ {
		k := kinds[i%2]
		held = append(held, heldOut{sig: signals{compSD: k.sd, located: 1, attrs: 1}, logErr: laplace(k.scale)})
	}
	c := fitCalibration(held)
	for _, k := range kinds {
		s := signals{compSD: k.sd, located: 1, attrs: 1}
		want := 1 - math.Exp(-math.Log(1.1)/k.scale) // P(|e| < log 1.1) for Laplace(b), roughly within 10%
		if got := c.confidence(s); math.Abs(got-want) > 0.04 {
			t.Errorf("scale %.2f: confidence %.3f, true chance %.3f", k.scale, got, want)
		}
		lo, hi := c.interval(s)
		inside := 0
		for i := 0; i < 4000; i++ {
			if e := laplace(k.scale); e >= lo && e <= hi {
				inside++
			}
		}
		if cov := float64(inside) / 4000; math.Abs(cov-0.8) > 0.04 {
			t.Errorf("scale %.2f: the 80%% range holds %.1f%%", k.scale, 100*cov)
		}
	}
	// Past the calibrated horizon, confidence falls and the range widens.
	s := signals{compSD: 0.02, located: 1, attrs: 1}
	later := s
	later.monthsAhead = c.horizon + 24
	if !(c.confidence(later) < c.confidence(s)) {
		t.Error("a valuation two years past the data is as confident as a current one")
	}
	if _, hi := c.interval(later); func() bool { _, h := c.interval(s); return hi <= h }() {
		t.Error("the range does not widen past the horizon")
	}
}

func TestConfidenceStaysWithinBounds(t *testing.T) {
	c := calibration{}
	if got := c.confidence(signals{}); got != 0.5 {
		t.Errorf("uncalibrated confidence = %.2f, want 0.5", got)
	}
	c.z = []float64{0.001}
	if got := c.confidence(signals{located: 1}); got > 0.98 {
		t.Errorf("confidence %.3f above the 98%% cap", got)
	}
}
