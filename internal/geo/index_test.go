package geo

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tolMiles absorbs the rounding difference between the index's chord distances and Miles's
// haversine: both are exact to about 1e-12 relative, so a millionth of a mile (1.6 mm) is generous.
const tolMiles = 1e-6

// bruteNearest is the oracle: every point, its haversine distance, sorted by (distance, ID).
func bruteNearest(pts []Point, lat, lon float64, k int, maxMiles float64, keep func(int32) bool) []Neighbor {
	var all []Neighbor
	for _, p := range pts {
		if keep != nil && !keep(p.ID) {
			continue
		}
		if d := Miles(lat, lon, p.Lat, p.Lon); d <= maxMiles {
			all = append(all, Neighbor{ID: p.ID, Miles: d})
		}
	}
	slices.SortFunc(all, compareNeighbors)
	if len(all) > k {
		all = all[:k]
	}
	return all
}

func compareNeighbors(a, b Neighbor) int {
	if c := cmp.Compare(a.Miles, b.Miles); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// checkNearest verifies got against the brute-force answer. Distances must match position by position;
// IDs must match too, except that points at the same distance to within rounding may trade places,
// and points within rounding of maxMiles may be in or out.
func checkNearest(t *testing.T, pts []Point, lat, lon float64, k int, maxMiles float64, keep func(int32) bool, got []Neighbor) {
	t.Helper()
	byID := make(map[int32]Point, len(pts))
	for _, p := range pts {
		byID[p.ID] = p
	}
	want := bruteNearest(pts, lat, lon, k, maxMiles, keep)
	wide := bruteNearest(pts, lat, lon, k, maxMiles+tolMiles, keep)
	if len(got) != len(want) && len(got) != len(wide) {
		t.Fatalf("query %v,%v k=%d max=%v: got %d neighbors, want %d\ngot  %v\nwant %v", lat, lon, k, maxMiles, len(got), len(want), got, want)
	}
	if len(got) > len(want) {
		want = wide
	}
	seen := map[int32]bool{}
	for i, n := range got {
		p, ok := byID[n.ID]
		switch {
		case !ok:
			t.Fatalf("neighbor %d has unknown ID %d", i, n.ID)
		case seen[n.ID]:
			t.Fatalf("ID %d returned twice: %v", n.ID, got)
		case keep != nil && !keep(n.ID):
			t.Fatalf("ID %d returned though keep rejects it", n.ID)
		case math.Abs(n.Miles-Miles(lat, lon, p.Lat, p.Lon)) > tolMiles:
			t.Fatalf("ID %d reported at %v miles, Miles says %v", n.ID, n.Miles, Miles(lat, lon, p.Lat, p.Lon))
		case math.Abs(n.Miles-want[i].Miles) > tolMiles:
			t.Fatalf("query %v,%v k=%d max=%v: neighbor %d at %v miles, want %v\ngot  %v\nwant %v", lat, lon, k, maxMiles, i, n.Miles, want[i].Miles, got, want)
		case i > 0 && compareNeighbors(got[i-1], n) > 0:
			t.Fatalf("neighbors out of order at %d: %v", i, got)
		case n.ID != want[i].ID && !nearTie(want, i):
			t.Fatalf("neighbor %d is ID %d, want %d (no tie at %v miles)\ngot  %v\nwant %v", i, n.ID, want[i].ID, want[i].Miles, got, want)
		}
		seen[n.ID] = true
	}
	// Among points at one location (a condo tower, a repeat sale) the lower IDs must win, in order,
	// so that a valuation picks the same comparables every time.
	lowestMissing := map[[2]float64]int32{}
	for _, o := range pts {
		loc := [2]float64{o.Lat, o.Lon}
		if low, ok := lowestMissing[loc]; (!ok || o.ID < low) && !seen[o.ID] && (keep == nil || keep(o.ID)) {
			lowestMissing[loc] = o.ID
		}
	}
	for _, n := range got {
		p := byID[n.ID]
		if low, ok := lowestMissing[[2]float64{p.Lat, p.Lon}]; ok && low < p.ID {
			t.Fatalf("ID %d returned but ID %d at the same location was not: %v", p.ID, low, got)
		}
	}
}

// nearTie reports whether want[i] is within rounding of a neighbour in want or of the first point
// left out, so that which of them comes first is not determined by the exact distances.
func nearTie(want []Neighbor, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j >= 0 && j < len(want) && math.Abs(want[j].Miles-want[i].Miles) <= tolMiles {
			return true
		}
	}
	// The last slot can be taken by any point tied with it just beyond the cut.
	return i == len(want)-1
}

// pointSet is a named way of making test points; the sets stress different parts of the tree.
type pointSet struct {
	name string
	make func(rng *rand.Rand) []Point
}

func testPointSets() []pointSet {
	uniform := func(rng *rand.Rand, n int, lat0, lat1, lon0, lon1 float64) []Point {
		pts := make([]Point, n)
		for i := range pts {
			pts[i] = Point{ID: int32(i), Lat: lat0 + rng.Float64()*(lat1-lat0), Lon: lon0 + rng.Float64()*(lon1-lon0)}
		}
		return pts
	}
	return []pointSet{
		{"empty", func(*rand.Rand) []Point { return nil }},
		{"one", func(*rand.Rand) []Point { return []Point{{ID: 7, Lat: 47.6, Lon: -122.3}} }},
		{"leaf-sized", func(rng *rand.Rand) []Point { return uniform(rng, leafSize+1, 47, 48, -123, -122) }},
		{"metro", func(rng *rand.Rand) []Point { return uniform(rng, 5000, 47.2, 47.8, -122.5, -121.8) }},
		{"nation with Alaska and Hawaii", func(rng *rand.Rand) []Point {
			pts := uniform(rng, 3000, 25, 49, -124.7, -67)
			pts = append(pts, uniform(rng, 300, 55, 71, -165, -131)...)
			pts = append(pts, uniform(rng, 200, 19, 22.2, -160.3, -154.8)...)
			pts = append(pts, uniform(rng, 100, 17.9, 18.5, -67.3, -65.6)...)
			for i := range pts {
				pts[i].ID = int32(i)
			}
			return pts
		}},
		{"clusters with duplicates", func(rng *rand.Rand) []Point {
			// Condo towers and repeat sales: many points at exactly one location, and neighbours a few
			// inches apart, inside a sparse scatter.
			pts := uniform(rng, 1500, 38.4, 38.8, -121.6, -121.2)
			for c := range 20 {
				lat, lon := 38.4+rng.Float64()*0.4, -121.6+rng.Float64()*0.4
				for j := range 40 {
					p := Point{Lat: lat, Lon: lon}
					if j%2 == 1 {
						p.Lat += (rng.Float64() - 0.5) * 1e-6
						p.Lon += (rng.Float64() - 0.5) * 1e-6
					}
					if c%5 == 0 {
						p.Lat, p.Lon = lat, lon // some clusters are all one spot
					}
					pts = append(pts, p)
				}
			}
			for i := range pts {
				pts[i].ID = int32(i)
			}
			return pts
		}},
		{"all identical", func(*rand.Rand) []Point {
			pts := make([]Point, 300)
			for i := range pts {
				pts[i] = Point{ID: int32(i), Lat: 61.2, Lon: -149.9}
			}
			return pts
		}},
		{"on a line", func(rng *rand.Rand) []Point {
			// One shared longitude: every split on that side is degenerate.
			pts := make([]Point, 2000)
			for i := range pts {
				pts[i] = Point{ID: int32(i), Lat: 30 + float64(rng.IntN(500))*0.001, Lon: -97.7}
			}
			return pts
		}},
	}
}

func TestNearestMatchesBruteForce(t *testing.T) {
	keeps := []struct {
		name string
		keep func(int32) bool
	}{
		{"all", nil},
		{"even", func(id int32) bool { return id%2 == 0 }},
		{"one in seven", func(id int32) bool { return id%7 == 3 }},
		{"none", func(int32) bool { return false }},
	}
	ks := []int{1, 2, 5, 30, 100, 10000}
	radii := []float64{math.Inf(1), 0, 0.05, 1, 5, 25, 300, 3000}

	for si, set := range testPointSets() {
		t.Run(set.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(si), 42))
			pts := set.make(rng)
			ix := NewIndex(pts)
			if ix.Len() != len(pts) {
				t.Fatalf("Len = %d, want %d", ix.Len(), len(pts))
			}
			for q := range 400 {
				// Queries at indexed points (distance 0 and exact ties), next to them, and anywhere in
				// the country including far from every point.
				var lat, lon float64
				switch {
				case len(pts) > 0 && q%3 == 0:
					p := pts[rng.IntN(len(pts))]
					lat, lon = p.Lat, p.Lon
				case len(pts) > 0 && q%3 == 1:
					p := pts[rng.IntN(len(pts))]
					lat, lon = p.Lat+(rng.Float64()-0.5)*0.02, p.Lon+(rng.Float64()-0.5)*0.02
				default:
					lat, lon = 18+rng.Float64()*53, -165+rng.Float64()*100
				}
				k := ks[rng.IntN(len(ks))]
				maxMiles := radii[rng.IntN(len(radii))]
				if q%5 == 0 {
					maxMiles = rng.Float64() * 10
				}
				kp := keeps[rng.IntN(len(keeps))]
				got := ix.Nearest(lat, lon, k, maxMiles, kp.keep)
				checkNearest(t, pts, lat, lon, k, maxMiles, kp.keep, got)

				// NearestAppend must leave what dst already holds alone and append the same answer.
				prefix := []Neighbor{{ID: -1, Miles: -1}}
				appended := ix.NearestAppend(prefix, lat, lon, k, maxMiles, kp.keep)
				if appended[0] != prefix[0] || !slices.Equal(appended[1:], got) {
					t.Fatalf("NearestAppend = %v, want %v after the prefix", appended, got)
				}
			}
		})
	}
}

func TestWithinMatchesBruteForce(t *testing.T) {
	for si, set := range testPointSets() {
		t.Run(set.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(si), 7))
			pts := set.make(rng)
			ix := NewIndex(pts)
			for q := range 200 {
				lat, lon := 18+rng.Float64()*53, -165+rng.Float64()*100
				if len(pts) > 0 && q%2 == 0 {
					p := pts[rng.IntN(len(pts))]
					lat, lon = p.Lat, p.Lon
				}
				maxMiles := []float64{0, 0.5, 3, 20, 200, math.Inf(1)}[rng.IntN(6)]
				var keep func(int32) bool
				if q%3 == 0 {
					keep = func(id int32) bool { return id%3 != 0 }
				}
				got := ix.Within(lat, lon, maxMiles, keep)
				slices.SortFunc(got, compareNeighbors)
				checkNearest(t, pts, lat, lon, len(pts)+1, maxMiles, keep, got)
			}
		})
	}
}

func TestNearestEdgeCases(t *testing.T) {
	pts := []Point{{1, 40, -100}, {2, 40.01, -100}, {3, 40.02, -100}}
	ix := NewIndex(pts)
	tests := []struct {
		name          string
		lat, lon      float64
		k             int
		maxMiles      float64
		wantIDs       []int32
		wantNil       bool
		wantWithinNil bool
	}{
		{"k zero", 40, -100, 0, math.Inf(1), nil, true, false},
		{"k negative", 40, -100, -3, math.Inf(1), nil, true, false},
		{"negative radius", 40, -100, 3, -1, nil, true, true},
		{"NaN radius", 40, -100, 3, math.NaN(), nil, true, true},
		{"NaN latitude", math.NaN(), -100, 3, math.Inf(1), nil, true, true},
		{"latitude past the pole", 91, -100, 3, math.Inf(1), nil, true, true},
		{"infinite longitude", 40, math.Inf(-1), 3, math.Inf(1), nil, true, true},
		{"zero radius at a point", 40.01, -100, 3, 0, []int32{2}, false, false},
		{"k larger than the set", 40.02, -100, 10, math.Inf(1), []int32{3, 2, 1}, false, false},
		{"radius between points", 40, -100, 3, 1, []int32{1, 2}, false, false},
		// Point 1 is exactly antipodal; 3 is the farthest from the query's antipode, so the nearest.
		{"the other side of the globe", -40, 80, 1, math.Inf(1), []int32{3}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.Nearest(tt.lat, tt.lon, tt.k, tt.maxMiles, nil)
			if tt.wantNil != (got == nil) {
				t.Errorf("Nearest = %v, want nil: %v", got, tt.wantNil)
			}
			var ids []int32
			for _, n := range got {
				ids = append(ids, n.ID)
			}
			if !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("Nearest IDs = %v, want %v", ids, tt.wantIDs)
			}
			if w := ix.Within(tt.lat, tt.lon, tt.maxMiles, nil); (w == nil) != tt.wantWithinNil && tt.k > 0 {
				t.Errorf("Within = %v, want nil: %v", w, tt.wantWithinNil)
			}
		})
	}
}

// TestRadiusBoundary checks the radius to within 2e-11 miles (30 nanometres) either side of the distance
// Miles measures, so that a caller can pass a distance it measured itself and get that point back.
func TestRadiusBoundary(t *testing.T) {
	const slack = 2e-11
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 4000 {
		p := Point{ID: 1, Lat: 18 + rng.Float64()*53, Lon: -165 + rng.Float64()*100}
		// Distances from a few feet to a few hundred miles.
		spread := math.Pow(10, -5+5*rng.Float64())
		lat, lon := p.Lat+(rng.Float64()-0.5)*spread, p.Lon+(rng.Float64()-0.5)*spread
		if i == 0 {
			lat, lon = p.Lat, p.Lon
		}
		ix := NewIndex([]Point{p})
		d := Miles(lat, lon, p.Lat, p.Lon)
		if got := ix.Nearest(lat, lon, 1, d+slack, nil); len(got) != 1 {
			t.Fatalf("Nearest with maxMiles = Miles + %v (%v) dropped the point", slack, d)
		}
		if got := ix.Within(lat, lon, d+slack, nil); len(got) != 1 {
			t.Fatalf("Within with maxMiles = Miles + %v (%v) dropped the point", slack, d)
		}
		if d < slack {
			continue
		}
		if got := ix.Nearest(lat, lon, 1, d-slack, nil); len(got) != 0 {
			t.Fatalf("Nearest with maxMiles = Miles - %v (%v) kept the point at %v", slack, d, got[0].Miles)
		}
		if got := ix.Within(lat, lon, d-slack, nil); len(got) != 0 {
			t.Fatalf("Within with maxMiles = Miles - %v (%v) kept the point at %v", slack, d, got[0].Miles)
		}
	}
}

func TestSelectNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for trial := range 500 {
		n := 1 + rng.IntN(200)
		pts := make([]kdPoint, n)
		for i := range pts {
			// Few distinct values, so that runs of equal coordinates are the rule.
			pts[i] = kdPoint{x: float64(rng.IntN(1 + trial%20)), y: rng.Float64(), id: int32(i)}
		}
		axis := trial % 2
		nth := rng.IntN(n)
		sorted := slices.Clone(pts)
		slices.SortFunc(sorted, func(a, b kdPoint) int { return cmp.Compare(coord(&a, axis), coord(&b, axis)) })
		selectNth(pts, nth, axis)
		v := coord(&pts[nth], axis)
		if v != coord(&sorted[nth], axis) {
			t.Fatalf("trial %d: pts[%d] = %v, want %v", trial, nth, v, coord(&sorted[nth], axis))
		}
		for i := range pts {
			if c := coord(&pts[i], axis); (i < nth && c > v) || (i > nth && c < v) {
				t.Fatalf("trial %d: pts[%d] = %v is on the wrong side of pts[%d] = %v", trial, i, c, nth, v)
			}
		}
	}
}

func TestNewIndexSkipsInvalidPoints(t *testing.T) {
	pts := []Point{
		{1, 40, -100},
		{2, math.NaN(), -100},
		{3, 40, math.Inf(1)},
		{4, 95, -100},
		{5, -90, 0}, // the South Pole is a place
	}
	ix := NewIndex(pts)
	if ix.Len() != 2 {
		t.Errorf("Len = %d, want 2", ix.Len())
	}
	got := ix.Nearest(40, -100, 10, math.Inf(1), nil)
	if len(got) != 2 || got[0].ID != 1 || got[1].ID != 5 {
		t.Errorf("Nearest = %v, want IDs 1 then 5", got)
	}
	// The caller's slice is copied, not kept.
	pts[0].Lat = 0
	if got := ix.Nearest(40, -100, 1, 1, nil); len(got) != 1 || got[0].Miles != 0 {
		t.Errorf("after changing the input slice, Nearest = %v, want ID 1 at 0 miles", got)
	}
}

func TestNearestAppendDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ix := NewIndex(metroPoints(rng, 25000))
	buf := make([]Neighbor, 0, 30)
	keep := func(id int32) bool { return id%2 == 0 }
	allocs := testing.AllocsPerRun(200, func() {
		buf = ix.NearestAppend(buf[:0], 47.5, -122.2, 30, 5, keep)
	})
	if allocs != 0 {
		t.Errorf("NearestAppend allocated %v times per call, want 0", allocs)
	}
	if len(buf) != 30 {
		t.Errorf("NearestAppend found %d neighbors, want 30", len(buf))
	}
}

func TestIndexConcurrentQueries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pts := metroPoints(rng, 5000)
	ix := NewIndex(pts)
	queries := make([][2]float64, 64)
	want := make([][]Neighbor, len(queries))
	for i := range queries {
		queries[i] = [2]float64{47.2 + rng.Float64()*0.6, -122.5 + rng.Float64()*0.7}
		want[i] = ix.Nearest(queries[i][0], queries[i][1], 30, 10, nil)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []Neighbor
			for r := range 50 {
				i := (g*7 + r) % len(queries)
				buf = ix.NearestAppend(buf[:0], queries[i][0], queries[i][1], 30, 10, nil)
				if !slices.Equal(buf, want[i]) {
					t.Errorf("goroutine %d query %d: got %v, want %v", g, i, buf, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// metroPoints scatters n points over a King County sized area (about 40 by 35 miles), denser toward
// the middle as real sales are.
func metroPoints(rng *rand.Rand, n int) []Point {
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{
			ID:  int32(i),
			Lat: 47.5 + clamp(rng.NormFloat64()*0.12, -0.3, 0.3),
			Lon: -122.15 + clamp(rng.NormFloat64()*0.15, -0.35, 0.35),
		}
	}
	return pts
}

func clamp(v, lo, hi float64) float64 { return max(lo, min(hi, v)) }

func BenchmarkNearest(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	pts := metroPoints(rng, 25000)
	ix := NewIndex(pts)
	queries := make([][2]float64, 1024)
	for i := range queries {
		p := pts[rng.IntN(len(pts))]
		queries[i] = [2]float64{p.Lat + (rng.Float64()-0.5)*0.01, p.Lon + (rng.Float64()-0.5)*0.01}
	}
	cases := []struct {
		name     string
		k        int
		maxMiles float64
		keep     func(int32) bool
	}{
		{"k=30", 30, math.Inf(1), nil},
		{"k=30/within 2mi", 30, 2, nil},
		{"k=30/keep half", 30, math.Inf(1), func(id int32) bool { return id%2 == 0 }},
		{"k=100", 100, math.Inf(1), nil},
	}
	for _, c := range cases {
		b.Run(c.name+"/Nearest", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				ix.Nearest(q[0], q[1], c.k, c.maxMiles, c.keep)
				i++
			}
		})
		b.Run(c.name+"/NearestAppend", func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]Neighbor, 0, c.k)
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				buf = ix.NearestAppend(buf[:0], q[0], q[1], c.k, c.maxMiles, c.keep)
				i++
			}
		})
	}
	b.Run("k=30/brute force for scale", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q := queries[i%len(queries)]
			bruteNearest(pts, q[0], q[1], 30, math.Inf(1), nil)
			i++
		}
	})
}

// BenchmarkNearestKingCounty queries real sale locations (shared/data, outside the repository):
// 21,612 King County sales, each valued against its 30 nearest other sales.
func BenchmarkNearestKingCounty(b *testing.B) {
	pts, err := readKingCountyPoints("../../../shared/data/kc_house_sales.csv")
	if err != nil {
		b.Skipf("King County data not available: %v", err)
	}
	ix := NewIndex(pts)
	b.ReportAllocs()
	buf := make([]Neighbor, 0, 30)
	i := 0
	for b.Loop() {
		p := pts[i%len(pts)]
		buf = ix.NearestAppend(buf[:0], p.Lat, p.Lon, 30, math.Inf(1), func(id int32) bool { return id != p.ID })
		i++
	}
}

func readKingCountyPoints(path string) ([]Point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty file")
	}
	cols := strings.Split(sc.Text(), ",")
	latCol, lonCol := slices.Index(cols, "lat"), slices.Index(cols, "long")
	if latCol < 0 || lonCol < 0 {
		return nil, fmt.Errorf("no lat/long columns in %v", cols)
	}
	var pts []Point
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), ",")
		lat, err1 := strconv.ParseFloat(f[latCol], 64)
		lon, err2 := strconv.ParseFloat(f[lonCol], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("row %d: bad coordinates", len(pts)+2)
		}
		pts = append(pts, Point{ID: int32(len(pts)), Lat: lat, Lon: lon})
	}
	return pts, sc.Err()
}

func BenchmarkWithin(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	ix := NewIndex(metroPoints(rng, 25000))
	b.ReportAllocs()
	var buf []Neighbor
	for b.Loop() {
		buf = ix.WithinAppend(buf[:0], 47.5, -122.15, 1, nil)
	}
	b.ReportMetric(float64(len(buf)), "points")
}

func BenchmarkNewIndex(b *testing.B) {
	for _, n := range []int{25000, 1000000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			pts := metroPoints(rand.New(rand.NewPCG(1, 1)), n)
			b.ReportAllocs()
			for b.Loop() {
				NewIndex(pts)
			}
		})
	}
}

// BenchmarkNearestMillion checks that the query cost grows with log n, not n.
func BenchmarkNearestMillion(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	ix := NewIndex(metroPoints(rng, 1000000))
	b.ReportAllocs()
	buf := make([]Neighbor, 0, 30)
	for b.Loop() {
		lat, lon := 47.5+(rng.Float64()-0.5)*0.3, -122.15+(rng.Float64()-0.5)*0.3
		buf = ix.NearestAppend(buf[:0], lat, lon, 30, math.Inf(1), nil)
	}
}
