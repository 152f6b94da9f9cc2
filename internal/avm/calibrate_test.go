package avm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Held-out valuations of two kinds of homes with known error scales: easy ones (Laplace scale 0.04) and hard ones
// (0.15), told apart by one signal. The fitted chance of landing within 10% must match each kind's true chance, the
// 80% range must hold 80% of each kind, and each kind's price must land within ±FSD of the value 68% of the time.
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
		if got := c.withinTen(s); math.Abs(got-want) > 0.04 {
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
		fsd, within := c.fsd(s), 0
		for i := 0; i < 4000; i++ {
			if math.Abs(math.Exp(laplace(k.scale))-1) <= fsd {
				within++
			}
		}
		if cov := float64(within) / 4000; math.Abs(cov-0.68) > 0.03 {
			t.Errorf("scale %.2f: FSD %.3f holds %.1f%% of prices, want 68%%", k.scale, fsd, 100*cov)
		}
	}
	if easy, hard := c.fsd(signals{compSD: 0.02, located: 1, attrs: 1}), c.fsd(signals{compSD: 0.3, located: 1, attrs: 1}); !(easy < hard) {
		t.Errorf("FSD of the easy homes %.3f not below the hard ones' %.3f", easy, hard)
	}
	// Past the calibrated horizon, confidence falls and the range widens.
	s := signals{compSD: 0.02, located: 1, attrs: 1}
	later := s
	later.monthsAhead = c.horizon + 24
	if !(c.withinTen(later) < c.withinTen(s)) {
		t.Error("a valuation two years past the data is as confident as a current one")
	}
	if !(c.fsd(later) > c.fsd(s)) {
		t.Error("the FSD does not grow past the horizon")
	}
	if _, hi := c.interval(later); func() bool { _, h := c.interval(s); return hi <= h }() {
		t.Error("the range does not widen past the horizon")
	}
}

func TestConfidenceStaysWithinBounds(t *testing.T) {
	c := calibration{}
	if got := c.withinTen(signals{}); got != 0.5 {
		t.Errorf("uncalibrated confidence = %.2f, want 0.5", got)
	}
	c.bands = map[string][]band{PathRecord: {{Z: make([]float64, minPathHeldOut), ZR: make([]float64, minPathHeldOut)}}} // every error 0
	if got := c.withinTen(signals{located: 1, path: PathRecord}); got > 0.98 {
		t.Errorf("confidence %.3f above the 98%% cap", got)
	}
}
