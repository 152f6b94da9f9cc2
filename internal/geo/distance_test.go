package geo

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMilesKnown(t *testing.T) {
	tests := []struct {
		name                   string
		lat1, lon1, lat2, lon2 float64
		want, tolPct           float64
	}{
		{"Seattle to Portland", 47.6062, -122.3321, 45.5152, -122.6784, 145, 1},
		{"New York to Los Angeles", 40.7128, -74.0060, 34.0522, -118.2437, 2445, 0.5},
		{"Anchorage to Honolulu", 61.2181, -149.9003, 21.3069, -157.8583, 2781, 0.5},
		// One degree of latitude is pi*R/180 on the sphere.
		{"one degree north", 40, -100, 41, -100, math.Pi * EarthRadiusMiles / 180, 1e-9},
		{"same point", 47.6, -122.3, 47.6, -122.3, 0, 0},
		{"antipodes", 10, -100, -10, 80, math.Pi * EarthRadiusMiles, 1e-9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Miles(tt.lat1, tt.lon1, tt.lat2, tt.lon2)
			if math.Abs(got-tt.want) > tt.want*tt.tolPct/100 {
				t.Errorf("Miles = %.3f, want %.3f within %v%%", got, tt.want, tt.tolPct)
			}
			if back := Miles(tt.lat2, tt.lon2, tt.lat1, tt.lon1); math.Abs(back-got) > 1e-9 {
				t.Errorf("Miles is not symmetric: %v one way, %v the other", got, back)
			}
		})
	}
}

// TestApproxMilesError bounds ApproxMiles's relative error against Miles for pairs under 50 miles
// apart anywhere from Hawaii and Puerto Rico to the north of Alaska, where the longitude scale changes
// fastest with latitude.
func TestApproxMilesError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst, worstAt := 0.0, [4]float64{}
	for range 200000 {
		lat1 := 17 + rng.Float64()*(71.5-17)
		lon1 := -179 + rng.Float64()*(179-65)
		// A random bearing and a distance spread over four orders of magnitude, down to a few feet.
		dist := 50 * math.Pow(10, -4*rng.Float64())
		bearing := rng.Float64() * 2 * math.Pi
		dLat := dist * math.Cos(bearing) / 69.09
		dLon := dist * math.Sin(bearing) / (69.09 * math.Cos((lat1+dLat/2)*degToRad))
		lat2, lon2 := lat1+dLat, lon1+dLon
		exact := Miles(lat1, lon1, lat2, lon2)
		if exact >= 50 || exact == 0 {
			continue
		}
		if e := math.Abs(ApproxMiles(lat1, lon1, lat2, lon2)-exact) / exact; e > worst {
			worst, worstAt = e, [4]float64{lat1, lon1, lat2, lon2}
		}
	}
	t.Logf("worst relative error under 50 miles: %.4f%% at %v", worst*100, worstAt)
	if worst >= 0.005 {
		t.Errorf("ApproxMiles relative error %.4f%% at %v, want below 0.5%%", worst*100, worstAt)
	}
}

func TestApproxMilesAntimeridian(t *testing.T) {
	// Two points on either side of 180° in the Aleutians, about 38 miles apart.
	lat1, lon1, lat2, lon2 := 52.0, 179.6, 52.1, -179.5
	exact := Miles(lat1, lon1, lat2, lon2)
	if got := ApproxMiles(lat1, lon1, lat2, lon2); math.Abs(got-exact) > exact*0.005 {
		t.Errorf("ApproxMiles across the antimeridian = %.2f, want %.2f", got, exact)
	}
}

var sinkMiles float64

func BenchmarkMiles(b *testing.B) {
	for b.Loop() {
		sinkMiles += Miles(47.6062, -122.3321, 47.6101, -122.2015)
	}
}

func BenchmarkApproxMiles(b *testing.B) {
	for b.Loop() {
		sinkMiles += ApproxMiles(47.6062, -122.3321, 47.6101, -122.2015)
	}
}
