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
		held = append(held, heldOut{sig: signals{compSD: k.sd, located: 1, attrs: 1}, logErr: laplace(k.scale), sale: i})
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

func TestPAVA(t *testing.T) {
	if got := pava([]float64{1, 3, 2, 4}, []float64{1, 1, 1, 1}, nil); got[0] != 1 || got[1] != 2.5 || got[2] != 2.5 || got[3] != 4 {
		t.Errorf("pava [1 3 2 4] = %v, want [1 2.5 2.5 4]", got)
	}
	// A heavy low value at the end pulls its violators down to their weighted mean.
	if got := pava([]float64{1, 3, 0}, []float64{1, 1, 2}, nil); got[0] != 1 || got[1] != 1 || got[2] != 1 {
		t.Errorf("pava [1 3 0] (weights 1 1 2) = %v, want [1 1 1]", got)
	}
}

// Where a band of larger scale happens to hold relatively smaller errors, the chance of landing within 10% still
// falls as the scale rises (it was flat there on King County, while the homes' hit rate fell).
func TestWithinTenFallsWithTheScale(t *testing.T) {
	mk := func(logScale, z float64) band {
		b := band{LogScale: logScale}
		for i := range minPathHeldOut {
			v := z * 2 * float64(i) / float64(minPathHeldOut-1) // even on 0..2z: median z
			b.Z, b.ZR = append(b.Z, v), append(b.ZR, v)
		}
		return b
	}
	// Median absolute errors: 0.084 * 1.2 = 0.101 at the first band, 0.096 * 1.0 = 0.096 at the second: smaller.
	c := calibration{bands: map[string][]band{PathRecord: {mk(math.Log(0.084), 1.2), mk(math.Log(0.096), 1.0),
		mk(math.Log(0.12), 1.2)}}}
	prev := 1.0
	for sc := 0.080; sc <= 0.125; sc += 0.001 {
		got := c.chanceWithin(PathRecord, math.Log(sc), 0.1/sc)
		if got > prev+1e-6 { // flat where the bands pool, up to the search's precision
			t.Fatalf("scale %.3f: chance %.4f, above the %.4f of a smaller scale", sc, got, prev)
		}
		prev = got
	}
	if prev > 0.45 {
		t.Errorf("at a scale of 0.125 the chance is %.3f; want under 45%%", prev)
	}
}

// A thin path (too few held-out valuations for bands of its own) borrows its pool's, widened by how much larger its
// own held-out errors were; never narrowed, and not read from fewer than minThinHeldOut.
func TestThinPathWidening(t *testing.T) {
	even := func(n int, median float64) []float64 {
		z := make([]float64, n)
		for i := range z {
			z[i] = median * 2 * float64(i) / float64(n-1)
		}
		return z
	}
	pool := []band{{LogScale: math.Log(0.1), Z: even(500, 1), ZR: even(500, 1)}}
	for _, tt := range []struct {
		n      int
		median float64
		want   float64
	}{{20, 2, 2}, {20, 0.5, 0}, {minThinHeldOut - 1, 2, 0}, {minPathHeldOut, 2, 0}} {
		bands := map[string][]band{"records": pool, PathRecord: pool,
			PathOwnSale: {{LogScale: math.Log(0.1), Z: even(tt.n, tt.median), ZR: even(tt.n, tt.median)}}}
		w := thinWidening(bands)
		if got := w[PathOwnSale]; math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%d own-sale valuations of median %.1f: widening %.3f, want %.3f", tt.n, tt.median, got, tt.want)
		}
		if tt.want > 0 {
			c := calibration{bands: bands, widen: w}
			own, rec := signals{path: PathOwnSale, located: 1}, signals{path: PathRecord, located: 1}
			if r := c.errScale(own) / c.errScale(rec); math.Abs(r-tt.want) > 1e-9 {
				t.Errorf("own-sale error scale %.3f times the records', want %.3f", r, tt.want)
			}
			if !(c.fsd(own) > c.fsd(rec)) || !(c.withinTen(own) < c.withinTen(rec)) {
				t.Errorf("widened own sale: FSD %.3f vs %.3f, within 10%% %.3f vs %.3f", c.fsd(own), c.fsd(rec),
					c.withinTen(own), c.withinTen(rec))
			}
		}
	}
}
