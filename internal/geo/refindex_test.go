// The k-d tree as it was before issue 39 cut its memory: every point's unit vector and ID, float64 boxes with
// explicit children. Kept as the reference the compact Index must agree with, answer for answer.

package geo

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refIndex is Index as it was: a k-d tree over copies of the points' unit vectors.
type refIndex struct {
	points []refPoint // in tree order: each node owns a contiguous range
	nodes  []refNode  // nodes[0] is the root; children of an inner node are at left and left+1
}

type refPoint struct {
	x, y, z float64
	id      int32
}

type refNode struct {
	min, max [3]float64
	lo, hi   int32 // the node's points are points[lo:hi]
	left     int32 // first child, or -1 for a leaf
}

// refLeafSize is the most points a leaf holds. Scanning a few points in a row is cheaper than another
// level of boxes: 16 measured a little faster than 8 or 24 for k=30 among 25,000 points, and its nodes
// cost about 8 bytes per point.
const refLeafSize = 16

// newRefIndex builds an index over points; it keeps its own copy, so the caller may reuse the slice.
// Points whose coordinates are not finite or whose latitude is beyond ±90° are left out, since no
// distance to them means anything; Len tells how many were indexed. Building takes O(n log n) time
// (about 0.4 s for a million points) and 40 bytes per point.
func newRefIndex(points []Point) *refIndex {
	if len(points) > math.MaxInt32 {
		// Nodes address points with int32 to stay small; 2 billion points would need 80 GB anyway.
		panic("geo: NewIndex: more than 2^31-1 points")
	}
	ix := &refIndex{points: make([]refPoint, 0, len(points))}
	for _, p := range points {
		if !validLatLon(p.Lat, p.Lon) {
			continue
		}
		x, y, z := unitVector(p.Lat, p.Lon)
		ix.points = append(ix.points, refPoint{x: x, y: y, z: z, id: p.ID})
	}
	if len(ix.points) == 0 {
		return ix
	}
	ix.nodes = make([]refNode, 1, refNodeCount(len(ix.points)))
	ix.build(0, 0, len(ix.points))
	return ix
}

// refNodeCount is the number of nodes build makes for n points, so that the node slice is allocated once
// at its exact size.
func refNodeCount(n int) int {
	if n <= refLeafSize {
		return 1
	}
	return 1 + refNodeCount(n/2) + refNodeCount(n-n/2)
}

// Len returns the number of points in the index.
func (ix *refIndex) Len() int { return len(ix.points) }

func (ix *refIndex) build(ni, lo, hi int) {
	pts := ix.points[lo:hi]
	n := refNode{lo: int32(lo), hi: int32(hi), left: -1}
	n.min = [3]float64{pts[0].x, pts[0].y, pts[0].z}
	n.max = n.min
	for _, p := range pts[1:] {
		c := [3]float64{p.x, p.y, p.z}
		for a := range 3 {
			n.min[a] = min(n.min[a], c[a])
			n.max[a] = max(n.max[a], c[a])
		}
	}
	if hi-lo > refLeafSize {
		// Split the widest side at the median: balanced, so the depth is log2(n/refLeafSize).
		axis := 0
		for a := 1; a < 3; a++ {
			if n.max[a]-n.min[a] > n.max[axis]-n.min[axis] {
				axis = a
			}
		}
		mid := lo + (hi-lo)/2
		refSelectNth(pts, mid-lo, axis)
		n.left = int32(len(ix.nodes))
		ix.nodes = append(ix.nodes, refNode{}, refNode{})
		ix.nodes[ni] = n
		ix.build(int(n.left), lo, mid)
		ix.build(int(n.left)+1, mid, hi)
		return
	}
	ix.nodes[ni] = n
}

func refCoord(p *refPoint, axis int) float64 {
	switch axis {
	case 0:
		return p.x
	case 1:
		return p.y
	}
	return p.z
}

// refSelectNth reorders pts so that pts[nth] holds the value a full sort by axis would put there, with
// no smaller value after it and no larger before it (quickselect). The partition is three-way, so
// runs of equal coordinates (duplicate locations are common: condos, repeat sales) cost linear time
// instead of quadratic.
func refSelectNth(pts []refPoint, nth, axis int) {
	lo, hi := 0, len(pts) // the answer lies in pts[lo:hi]
	for hi-lo > 1 {
		// Median of three as pivot: cheap, deterministic, and good on sorted input.
		a, b, c := refCoord(&pts[lo], axis), refCoord(&pts[lo+(hi-lo)/2], axis), refCoord(&pts[hi-1], axis)
		pivot := max(min(a, b), min(max(a, b), c))
		// Dutch national flag: [lo,lt) < pivot, [lt,i) == pivot, (gt,hi) > pivot.
		lt, i, gt := lo, lo, hi-1
		for i <= gt {
			v := refCoord(&pts[i], axis)
			switch {
			case v < pivot:
				pts[lt], pts[i] = pts[i], pts[lt]
				lt++
				i++
			case v > pivot:
				pts[i], pts[gt] = pts[gt], pts[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case nth < lt:
			hi = lt
		case nth > gt:
			lo = gt + 1
		default:
			return
		}
	}
}

// refBoxDist2 is the squared distance from q to the nearest point of the node's box: a lower bound on
// the distance to any point inside.
func refBoxDist2(n *refNode, qx, qy, qz float64) float64 {
	return refAxisGap2(qx, n.min[0], n.max[0]) + refAxisGap2(qy, n.min[1], n.max[1]) + refAxisGap2(qz, n.min[2], n.max[2])
}

// NearestAppend is Nearest appending to dst, for the valuation hot path: with a dst whose spare
// capacity is at least k it allocates nothing, as the search keeps its working set in that capacity.
func (ix *refIndex) NearestAppend(dst []Neighbor, lat, lon float64, k int, maxMiles float64, keep func(id int32) bool) []Neighbor {
	bound, ok := chord2Bound(maxMiles)
	if !ok || k <= 0 || len(ix.points) == 0 || !validLatLon(lat, lon) {
		return dst
	}
	qx, qy, qz := unitVector(lat, lon)
	base := len(dst)
	// While searching, dst[base:] is a max-heap of the best candidates so far, ordered by (distance,
	// ID), with the squared chord in Miles until the end. Its root is the worst kept candidate, the one
	// a better point replaces.
	h := neighborHeap{}
	worst := bound

	type pending struct {
		node int32
		d2   float64
	}
	var stack [64]pending
	stack[0] = pending{0, refBoxDist2(&ix.nodes[0], qx, qy, qz)}
	sp := 1
	for sp > 0 {
		sp--
		e := stack[sp]
		// A box exactly at the worst distance may still hold a point that wins the tie on ID.
		if e.d2 > worst {
			continue
		}
		n := &ix.nodes[e.node]
		if n.left >= 0 {
			near, far := n.left, n.left+1
			dNear := refBoxDist2(&ix.nodes[near], qx, qy, qz)
			dFar := refBoxDist2(&ix.nodes[far], qx, qy, qz)
			if dFar < dNear {
				near, far, dNear, dFar = far, near, dFar, dNear
			}
			// Push the farther child first so that the nearer is searched first and tightens worst
			// before the farther is looked at again.
			if dFar <= worst {
				stack[sp] = pending{far, dFar}
				sp++
			}
			if dNear <= worst {
				stack[sp] = pending{near, dNear}
				sp++
			}
			continue
		}
		for i := n.lo; i < n.hi; i++ {
			p := &ix.points[i]
			dx, dy, dz := p.x-qx, p.y-qy, p.z-qz
			d2 := dx*dx + dy*dy + dz*dz
			if d2 > worst {
				continue
			}
			full := len(dst)-base == k
			if full && !neighborLess(d2, p.id, dst[base]) {
				continue
			}
			if keep != nil && !keep(p.id) {
				continue
			}
			if full {
				dst[base] = Neighbor{ID: p.id, Miles: d2}
				h.down(dst[base:], 0)
			} else {
				dst = append(dst, Neighbor{ID: p.id, Miles: d2})
				h.up(dst[base:], len(dst)-base-1)
			}
			if len(dst)-base == k {
				worst = min(bound, dst[base].Miles)
			}
		}
	}

	// Heap sort in place: move the worst to the end, repeatedly. It reuses the heap's inlined
	// comparisons where a general sort would make an indirect call for each.
	found := dst[base:]
	for end := len(found) - 1; end > 0; end-- {
		found[0], found[end] = found[end], found[0]
		h.down(found[:end], 0)
	}
	return trimToMiles(dst, base, maxMiles)
}

// WithinAppend is Within appending to dst, so a caller can reuse one buffer across queries.
func (ix *refIndex) WithinAppend(dst []Neighbor, lat, lon float64, maxMiles float64, keep func(id int32) bool) []Neighbor {
	bound, ok := chord2Bound(maxMiles)
	if !ok || len(ix.points) == 0 || !validLatLon(lat, lon) {
		return dst
	}
	qx, qy, qz := unitVector(lat, lon)
	var stack [64]int32
	sp := 0
	if refBoxDist2(&ix.nodes[0], qx, qy, qz) <= bound {
		stack[0] = 0
		sp = 1
	}
	for sp > 0 {
		sp--
		n := &ix.nodes[stack[sp]]
		if n.left >= 0 {
			for _, c := range [2]int32{n.left, n.left + 1} {
				if refBoxDist2(&ix.nodes[c], qx, qy, qz) <= bound {
					stack[sp] = c
					sp++
				}
			}
			continue
		}
		for i := n.lo; i < n.hi; i++ {
			p := &ix.points[i]
			dx, dy, dz := p.x-qx, p.y-qy, p.z-qz
			d2 := dx*dx + dy*dy + dz*dz
			if d2 > bound {
				continue
			}
			// The bound is a hair wide, so check the exact distance before asking keep.
			miles := chord2ToMiles(d2)
			if miles > maxMiles || (keep != nil && !keep(p.id)) {
				continue
			}
			dst = append(dst, Neighbor{ID: p.id, Miles: miles})
		}
	}
	return dst
}

func refAxisGap2(q, lo, hi float64) float64 {
	if q < lo {
		return (lo - q) * (lo - q)
	}
	if q > hi {
		return (q - hi) * (q - hi)
	}
	return 0
}

// TestIndexMatchesReference compares the compact Index, with its own positions and with positions read
// through NewIndexAt, against the tree it replaced: the same neighbours in the same order, distances to the
// bit, for Nearest and Within, over every test set and a clustered metro with repeat locations.
func TestIndexMatchesReference(t *testing.T) {
	sets := append(testPointSets(), pointSet{"metro with repeat sales", func(rng *rand.Rand) []Point {
		pts := metroPoints(rng, 30000)
		for i := range 10000 { // a second or third sale of a home: the same spot under another ID
			p := pts[rng.IntN(len(pts))]
			pts = append(pts, Point{ID: int32(30000 + i), Lat: p.Lat, Lon: p.Lon})
		}
		rng.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
		return pts
	}})
	for _, set := range sets {
		rng := rand.New(rand.NewPCG(3, 9))
		pts := set.make(rng)
		ref := newRefIndex(pts)
		byID := make(map[int32]Point, len(pts))
		ids := make([]int32, len(pts))
		for i, p := range pts {
			byID[p.ID], ids[i] = p, p.ID
		}
		own := NewIndex(pts)
		at := NewIndexAt(ids, func(id int32) (float64, float64) { p := byID[id]; return p.Lat, p.Lon })
		if own.Len() != ref.Len() || at.Len() != ref.Len() {
			t.Fatalf("%s: Len %d and %d, want %d", set.name, own.Len(), at.Len(), ref.Len())
		}
		queries := 300
		if len(pts) > 10000 {
			queries = 3000
		}
		for q := range queries {
			var lat, lon float64
			if len(pts) > 0 && q%2 == 0 { // on a point: ties at distance 0 and duplicates
				p := pts[rng.IntN(len(pts))]
				lat, lon = p.Lat, p.Lon
			} else if len(pts) > 0 {
				p := pts[rng.IntN(len(pts))]
				lat, lon = p.Lat+(rng.Float64()-0.5)*0.05, p.Lon+(rng.Float64()-0.5)*0.05
			} else {
				lat, lon = 47.6, -122.3
			}
			k := []int{1, 5, 15, 30, 50, 200}[q%6]
			miles := []float64{0.5, 2, 10, math.Inf(1)}[q%4]
			var keep func(int32) bool
			if q%3 == 1 {
				keep = func(id int32) bool { return id%3 != 0 }
			}
			want := ref.NearestAppend(nil, lat, lon, k, miles, keep)
			for name, ix := range map[string]*Index{"NewIndex": own, "NewIndexAt": at} {
				if got := ix.NearestAppend(nil, lat, lon, k, miles, keep); !slices.Equal(got, want) {
					t.Fatalf("%s, %s: Nearest(%v, %v, %d, %v): got %v, want %v", set.name, name, lat, lon, k, miles, got, want)
				}
				if q%5 == 0 {
					wantW := ref.WithinAppend(nil, lat, lon, min(miles, 1), keep)
					if got := ix.WithinAppend(nil, lat, lon, min(miles, 1), keep); !slices.Equal(got, wantW) {
						t.Fatalf("%s, %s: Within(%v, %v, %v): got %d, want %d", set.name, name, lat, lon, min(miles, 1), len(got), len(wantW))
					}
				}
			}
		}
	}
}

// BenchmarkNearestKingCountyReference is BenchmarkNearestKingCounty over the reference tree, the index
// with its own positions and the index reading them through NewIndexAt, for the cost of the compact layout.
func BenchmarkNearestKingCountyReference(b *testing.B) {
	pts, err := readKingCountyPoints("../../../shared/data/kc_house_sales.csv")
	if err != nil {
		b.Skipf("King County data not available: %v", err)
	}
	lat, lon := make([]float64, len(pts)), make([]float64, len(pts))
	ids := make([]int32, len(pts))
	for i, p := range pts {
		lat[i], lon[i], ids[i] = p.Lat, p.Lon, int32(i)
	}
	ref, own := newRefIndex(pts), NewIndex(pts)
	at := NewIndexAt(ids, func(id int32) (float64, float64) { return lat[id], lon[id] })
	search := map[string]func([]Neighbor, Point) []Neighbor{
		"reference": func(buf []Neighbor, p Point) []Neighbor {
			return ref.NearestAppend(buf, p.Lat, p.Lon, 30, math.Inf(1), func(id int32) bool { return id != p.ID })
		},
		"NewIndex": func(buf []Neighbor, p Point) []Neighbor {
			return own.NearestAppend(buf, p.Lat, p.Lon, 30, math.Inf(1), func(id int32) bool { return id != p.ID })
		},
		"NewIndexAt": func(buf []Neighbor, p Point) []Neighbor {
			return at.NearestAppend(buf, p.Lat, p.Lon, 30, math.Inf(1), func(id int32) bool { return id != p.ID })
		},
	}
	for _, name := range []string{"reference", "NewIndex", "NewIndexAt"} {
		b.Run(name, func(b *testing.B) {
			buf := make([]Neighbor, 0, 30)
			i := 0
			for b.Loop() {
				buf = search[name](buf[:0], pts[i%len(pts)])
				i++
			}
		})
	}
}
