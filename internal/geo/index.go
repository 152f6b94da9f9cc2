package geo

import "math"

// Point is a location to index, such as a sale; ID is the caller's handle for it (a row index, say).
type Point struct {
	ID       int32
	Lat, Lon float64
}

// Neighbor is a search result: the point's ID and its great-circle distance in miles from the query.
type Neighbor struct {
	ID    int32
	Miles float64
}

// Index answers nearest-neighbour and radius queries over a fixed set of points. It is immutable once
// built, so any number of goroutines may query it at once.
//
// It is a static k-d tree over the points' positions as unit vectors in three dimensions, with a
// bounding box on every node.
//
//   - A tree, not a grid of cells: sales are as clustered as people, thousands on a few city blocks and
//     a handful across a rural county. A grid has one cell size, too coarse in the city or too fine in
//     the country (and "ring expansion" then walks many empty cells); a median-split tree adapts to any
//     density, has a guaranteed depth, and degrades gracefully on duplicates.
//   - Three dimensions, not latitude and longitude: the straight-line (chord) distance between two unit
//     vectors grows monotonically with the great-circle distance, so ranking and pruning by ordinary
//     Euclidean distance is exact on the sphere, with no projection, no shrinking of longitude degrees
//     toward the pole to correct for and no special case for Alaska, Hawaii or the antimeridian.
//   - Boxes on every node, not just splitting planes: the points lie on a curved surface, so a node's
//     box is much thinner than its half-space and prunes far more.
//
// Results are exact, the same as a brute-force scan by Miles up to rounding far below an inch, with
// ties at equal distance broken by ascending ID so that a valuation picks the same comparables every
// time.
type Index struct {
	points []kdPoint // in tree order: each node owns a contiguous range
	nodes  []kdNode  // nodes[0] is the root; children of an inner node are at left and left+1
}

type kdPoint struct {
	x, y, z float64
	id      int32
}

type kdNode struct {
	min, max [3]float64
	lo, hi   int32 // the node's points are points[lo:hi]
	left     int32 // first child, or -1 for a leaf
}

// leafSize is the most points a leaf holds. Scanning a few points in a row is cheaper than another
// level of boxes: 16 measured a little faster than 8 or 24 for k=30 among 25,000 points, and its nodes
// cost about 8 bytes per point.
const leafSize = 16

// maxDepth bounds the traversal stack. Median splits halve the points at each level, so even 2^31
// points need only 29 levels above the leaves.
const maxDepth = 64

// NewIndex builds an index over points; it keeps its own copy, so the caller may reuse the slice.
// Points whose coordinates are not finite or whose latitude is beyond ±90° are left out, since no
// distance to them means anything; Len tells how many were indexed. Building takes O(n log n) time
// (about 0.4 s for a million points) and 40 bytes per point.
func NewIndex(points []Point) *Index {
	if len(points) > math.MaxInt32 {
		// Nodes address points with int32 to stay small; 2 billion points would need 80 GB anyway.
		panic("geo: NewIndex: more than 2^31-1 points")
	}
	ix := &Index{points: make([]kdPoint, 0, len(points))}
	for _, p := range points {
		if !validLatLon(p.Lat, p.Lon) {
			continue
		}
		x, y, z := unitVector(p.Lat, p.Lon)
		ix.points = append(ix.points, kdPoint{x: x, y: y, z: z, id: p.ID})
	}
	if len(ix.points) == 0 {
		return ix
	}
	ix.nodes = make([]kdNode, 1, nodeCount(len(ix.points)))
	ix.build(0, 0, len(ix.points))
	return ix
}

// nodeCount is the number of nodes build makes for n points, so that the node slice is allocated once
// at its exact size.
func nodeCount(n int) int {
	if n <= leafSize {
		return 1
	}
	return 1 + nodeCount(n/2) + nodeCount(n-n/2)
}

// Len returns the number of points in the index.
func (ix *Index) Len() int { return len(ix.points) }

func (ix *Index) build(ni, lo, hi int) {
	pts := ix.points[lo:hi]
	n := kdNode{lo: int32(lo), hi: int32(hi), left: -1}
	n.min = [3]float64{pts[0].x, pts[0].y, pts[0].z}
	n.max = n.min
	for _, p := range pts[1:] {
		c := [3]float64{p.x, p.y, p.z}
		for a := range 3 {
			n.min[a] = min(n.min[a], c[a])
			n.max[a] = max(n.max[a], c[a])
		}
	}
	if hi-lo > leafSize {
		// Split the widest side at the median: balanced, so the depth is log2(n/leafSize).
		axis := 0
		for a := 1; a < 3; a++ {
			if n.max[a]-n.min[a] > n.max[axis]-n.min[axis] {
				axis = a
			}
		}
		mid := lo + (hi-lo)/2
		selectNth(pts, mid-lo, axis)
		n.left = int32(len(ix.nodes))
		ix.nodes = append(ix.nodes, kdNode{}, kdNode{})
		ix.nodes[ni] = n
		ix.build(int(n.left), lo, mid)
		ix.build(int(n.left)+1, mid, hi)
		return
	}
	ix.nodes[ni] = n
}

func coord(p *kdPoint, axis int) float64 {
	switch axis {
	case 0:
		return p.x
	case 1:
		return p.y
	}
	return p.z
}

// selectNth reorders pts so that pts[nth] holds the value a full sort by axis would put there, with
// no smaller value after it and no larger before it (quickselect). The partition is three-way, so
// runs of equal coordinates (duplicate locations are common: condos, repeat sales) cost linear time
// instead of quadratic.
func selectNth(pts []kdPoint, nth, axis int) {
	lo, hi := 0, len(pts) // the answer lies in pts[lo:hi]
	for hi-lo > 1 {
		// Median of three as pivot: cheap, deterministic, and good on sorted input.
		a, b, c := coord(&pts[lo], axis), coord(&pts[lo+(hi-lo)/2], axis), coord(&pts[hi-1], axis)
		pivot := max(min(a, b), min(max(a, b), c))
		// Dutch national flag: [lo,lt) < pivot, [lt,i) == pivot, (gt,hi) > pivot.
		lt, i, gt := lo, lo, hi-1
		for i <= gt {
			v := coord(&pts[i], axis)
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

func validLatLon(lat, lon float64) bool {
	return lat >= -90 && lat <= 90 && !math.IsNaN(lon) && !math.IsInf(lon, 0)
}

func unitVector(lat, lon float64) (x, y, z float64) {
	sinPhi, cosPhi := math.Sincos(lat * degToRad)
	sinLambda, cosLambda := math.Sincos(lon * degToRad)
	return cosPhi * cosLambda, cosPhi * sinLambda, sinPhi
}

// chord2Bound converts a radius in miles to the squared chord on the unit sphere that the search
// compares against. The chord is widened by 1e-13 (a few billionths of a mile), more than the rounding
// error of a computed chord, so that no point within maxMiles is lost before the search trims by the
// reported distance. It returns +Inf for a radius of half the globe or more, and false when no point
// can qualify (a negative or NaN radius).
func chord2Bound(maxMiles float64) (float64, bool) {
	if !(maxMiles >= 0) {
		return 0, false
	}
	theta := maxMiles / EarthRadiusMiles
	if theta >= math.Pi {
		return math.Inf(1), true
	}
	c := 2*math.Sin(theta/2) + 1e-13
	return c * c, true
}

// chord2ToMiles turns a squared unit chord into great-circle miles. It is the quantity the haversine
// formula in Miles computes, reached from the other end, and agrees with it to about 1e-11 miles: the
// chord of two nearby unit vectors carries an absolute rounding error of about 1e-15.
func chord2ToMiles(d2 float64) float64 {
	h := math.Sqrt(d2) / 2
	if h > 1 {
		h = 1
	}
	return 2 * EarthRadiusMiles * math.Asin(h)
}

// boxDist2 is the squared distance from q to the nearest point of the node's box: a lower bound on
// the distance to any point inside.
func boxDist2(n *kdNode, qx, qy, qz float64) float64 {
	return axisGap2(qx, n.min[0], n.max[0]) + axisGap2(qy, n.min[1], n.max[1]) + axisGap2(qz, n.min[2], n.max[2])
}

func axisGap2(q, lo, hi float64) float64 {
	if q < lo {
		return (lo - q) * (lo - q)
	}
	if q > hi {
		return (q - hi) * (q - hi)
	}
	return 0
}

// Nearest returns up to k points within maxMiles of (lat, lon), nearest first, ties broken by
// ascending ID. Pass math.Inf(1) as maxMiles for no distance limit. keep, when not nil, is asked about
// each candidate that would enter the result and rejects it by returning false (for example a sale
// dated after the valuation date, or the subject property itself); it is called only for points near
// enough to matter, so it may be moderately expensive.
//
// A point is within maxMiles when its reported Miles is at most maxMiles. Reported distances agree
// with Miles to about 1e-11 miles, so a point that Miles puts at exactly maxMiles may fall either side.
// Nearest returns nil when no point qualifies, including when k <= 0, maxMiles is negative or NaN, or
// the query is not a valid location.
func (ix *Index) Nearest(lat, lon float64, k int, maxMiles float64, keep func(id int32) bool) []Neighbor {
	if _, ok := chord2Bound(maxMiles); !ok || k <= 0 || len(ix.points) == 0 || !validLatLon(lat, lon) {
		return nil
	}
	found := ix.NearestAppend(make([]Neighbor, 0, min(k, len(ix.points))), lat, lon, k, maxMiles, keep)
	if len(found) == 0 {
		return nil
	}
	return found
}

// NearestAppend is Nearest appending to dst, for the valuation hot path: with a dst whose spare
// capacity is at least k it allocates nothing, as the search keeps its working set in that capacity.
func (ix *Index) NearestAppend(dst []Neighbor, lat, lon float64, k int, maxMiles float64, keep func(id int32) bool) []Neighbor {
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
	var stack [maxDepth]pending
	stack[0] = pending{0, boxDist2(&ix.nodes[0], qx, qy, qz)}
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
			dNear := boxDist2(&ix.nodes[near], qx, qy, qz)
			dFar := boxDist2(&ix.nodes[far], qx, qy, qz)
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

// trimToMiles converts the squared chords in dst[base:] to miles and drops those beyond maxMiles,
// which can only be at the end when dst[base:] is sorted and which are there at all only because the
// search bound is a hair wider than maxMiles.
func trimToMiles(dst []Neighbor, base int, maxMiles float64) []Neighbor {
	for i := base; i < len(dst); i++ {
		dst[i].Miles = chord2ToMiles(dst[i].Miles)
	}
	for len(dst) > base && dst[len(dst)-1].Miles > maxMiles {
		dst = dst[:len(dst)-1]
	}
	return dst
}

func neighborLess(d2 float64, id int32, n Neighbor) bool {
	return d2 < n.Miles || (d2 == n.Miles && id < n.ID)
}

// neighborHeap holds the max-heap operations on a []Neighbor ordered by (Miles, ID). It is written out
// rather than using container/heap, whose interface calls would cost more than the comparisons.
type neighborHeap struct{}

func (neighborHeap) up(h []Neighbor, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !neighborLess(h[parent].Miles, h[parent].ID, h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func (neighborHeap) down(h []Neighbor, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && neighborLess(h[c].Miles, h[c].ID, h[r]) {
			c = r
		}
		if !neighborLess(h[i].Miles, h[i].ID, h[c]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Within returns every point within maxMiles of (lat, lon) that keep accepts (nil keeps all), in no
// particular order: callers that need an order sort by Miles, and the many that only aggregate (a
// count, a median price) need not pay for one. The radius is inclusive, as for Nearest. It returns nil
// when no point qualifies, including when maxMiles is negative or NaN or the query is not a valid
// location.
func (ix *Index) Within(lat, lon float64, maxMiles float64, keep func(id int32) bool) []Neighbor {
	return ix.WithinAppend(nil, lat, lon, maxMiles, keep)
}

// WithinAppend is Within appending to dst, so a caller can reuse one buffer across queries.
func (ix *Index) WithinAppend(dst []Neighbor, lat, lon float64, maxMiles float64, keep func(id int32) bool) []Neighbor {
	bound, ok := chord2Bound(maxMiles)
	if !ok || len(ix.points) == 0 || !validLatLon(lat, lon) {
		return dst
	}
	qx, qy, qz := unitVector(lat, lon)
	var stack [maxDepth]int32
	sp := 0
	if boxDist2(&ix.nodes[0], qx, qy, qz) <= bound {
		stack[0] = 0
		sp = 1
	}
	for sp > 0 {
		sp--
		n := &ix.nodes[stack[sp]]
		if n.left >= 0 {
			for _, c := range [2]int32{n.left, n.left + 1} {
				if boxDist2(&ix.nodes[c], qx, qy, qz) <= bound {
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
