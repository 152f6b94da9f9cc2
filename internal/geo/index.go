package geo

import (
	"math"
	"unsafe"
)

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
//
// It is kept small (issue 39: a market's homes, sales and rents are indexed; each point took 40 to 48
// bytes as its unit vector, its ID and explicit nodes of float64 boxes): the tree is implicit, node i's
// children at 2i+1 and 2i+2 and each node's range of points found from its size on the way down, so a
// node is only its box, in float32 rounded outwards (still a lower bound on every distance inside, so
// no answer moves; it prunes a hair less); and an index built with NewIndexAt keeps only its points'
// IDs, reading each point's latitude and longitude from the caller (a market that holds them anyway)
// and turning them into the same unit vector as it scans a leaf: 4 bytes a point, and 3 to 6 of nodes
// (a leaf holds 8 to 16 points).
type Index struct {
	ids   []int32 // in tree order: each node owns a contiguous range
	nodes []kdBox // the implicit tree's boxes; nodes[0] is the root
	// The points' positions: vecs, in tree order, when the index keeps its own (NewIndex); else read
	// through at by ID (NewIndexAt).
	vecs [][3]float64
	at   func(id int32) (lat, lon float64)
}

// kdPoint is a point while the tree is built.
type kdPoint struct {
	x, y, z float64
	id      int32
}

// kdBox is a node's bounding box, rounded outwards to float32.
type kdBox struct {
	min, max [3]float32
}

// leafSize is the most points a leaf holds. Scanning a few points in a row is cheaper than another
// level of boxes: 16 measured a little faster than 8 or 24 for k=30 among 25,000 points.
const leafSize = 16

// maxDepth bounds the traversal stack. Median splits halve the points at each level, so even 2^31
// points need only 29 levels above the leaves.
const maxDepth = 64

// NewIndex builds an index over points; it keeps its own copy of their positions, so the caller may
// reuse the slice. Points whose coordinates are not finite or whose latitude is beyond ±90° are left
// out, since no distance to them means anything; Len tells how many were indexed. Building takes
// O(n log n) time (about 0.4 s for a million points); the index keeps about 31 bytes a point.
func NewIndex(points []Point) *Index {
	pts := make([]kdPoint, 0, len(points))
	for _, p := range points {
		if validLatLon(p.Lat, p.Lon) {
			x, y, z := unitVector(p.Lat, p.Lon)
			pts = append(pts, kdPoint{x: x, y: y, z: z, id: p.ID})
		}
	}
	ix := newIndex(pts)
	ix.vecs = make([][3]float64, len(pts))
	for i, p := range pts {
		ix.vecs[i] = [3]float64{p.x, p.y, p.z}
	}
	return ix
}

// NewIndexAt builds an index over the points with the given IDs, whose latitude and longitude at gives:
// the index keeps only the IDs (7 to 10 bytes a point with its nodes) and asks at again for each point a
// search looks at, so at must give the same position for an ID for as long as the index is used, and be
// safe to call from any number of goroutines at once. IDs whose position is not valid are left out, as
// by NewIndex; the answers are those of NewIndex over the same points.
func NewIndexAt(ids []int32, at func(id int32) (lat, lon float64)) *Index {
	pts := make([]kdPoint, 0, len(ids))
	for _, id := range ids {
		if lat, lon := at(id); validLatLon(lat, lon) {
			x, y, z := unitVector(lat, lon)
			pts = append(pts, kdPoint{x: x, y: y, z: z, id: id})
		}
	}
	ix := newIndex(pts)
	ix.at = at
	return ix
}

func newIndex(pts []kdPoint) *Index {
	if len(pts) > math.MaxInt32 {
		// Nodes address points with int32 to stay small; 2 billion points would need 80 GB anyway.
		panic("geo: NewIndex: more than 2^31-1 points")
	}
	ix := &Index{ids: make([]int32, len(pts))}
	if len(pts) == 0 {
		return ix
	}
	ix.nodes = make([]kdBox, lastNode(0, len(pts))+1)
	build(ix.nodes, 0, pts)
	for i, p := range pts {
		ix.ids[i] = p.id
	}
	return ix
}

// lastNode is the highest node number in the subtree of node ni over n points, so that the node slice
// is allocated once at its size.
func lastNode(ni, n int) int {
	if n <= leafSize {
		return ni
	}
	return max(lastNode(2*ni+1, n/2), lastNode(2*ni+2, n-n/2))
}

// Len returns the number of points in the index.
func (ix *Index) Len() int { return len(ix.ids) }

// Bytes is the memory the index holds, for measuring.
func (ix *Index) Bytes() int {
	return cap(ix.ids)*4 + cap(ix.nodes)*int(unsafe.Sizeof(kdBox{})) + cap(ix.vecs)*24
}

// build lays out the subtree of node ni over pts, reordering them.
func build(nodes []kdBox, ni int, pts []kdPoint) {
	lo := [3]float64{pts[0].x, pts[0].y, pts[0].z}
	hi := lo
	for _, p := range pts[1:] {
		c := [3]float64{p.x, p.y, p.z}
		for a := range 3 {
			lo[a] = min(lo[a], c[a])
			hi[a] = max(hi[a], c[a])
		}
	}
	for a := range 3 {
		nodes[ni].min[a] = float32Down(lo[a])
		nodes[ni].max[a] = float32Up(hi[a])
	}
	if len(pts) > leafSize {
		// Split the widest side at the median: balanced, so the depth is log2(n/leafSize).
		axis := 0
		for a := 1; a < 3; a++ {
			if hi[a]-lo[a] > hi[axis]-lo[axis] {
				axis = a
			}
		}
		mid := len(pts) / 2
		selectNth(pts, mid, axis)
		build(nodes, 2*ni+1, pts[:mid])
		build(nodes, 2*ni+2, pts[mid:])
	}
}

// float32Down is the largest float32 at most v; float32Up the smallest at least v.
func float32Down(v float64) float32 {
	f := float32(v)
	if float64(f) > v {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func float32Up(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// vec is the unit vector of the point at position i in tree order.
func (ix *Index) vec(i int32) (x, y, z float64) {
	if ix.vecs != nil {
		v := &ix.vecs[i]
		return v[0], v[1], v[2]
	}
	return unitVector(ix.at(ix.ids[i]))
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
func boxDist2(n *kdBox, qx, qy, qz float64) float64 {
	return axisGap2(qx, n.min[0], n.max[0]) + axisGap2(qy, n.min[1], n.max[1]) + axisGap2(qz, n.min[2], n.max[2])
}

// axisGap2 is the squared gap from q to [lo, hi]. The bounds are float32 rounded outwards, read as
// float64: a gap no wider than the one to the exact box, so the bound stays below every point's distance.
func axisGap2(q float64, lo32, hi32 float32) float64 {
	lo, hi := float64(lo32), float64(hi32)
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
	if _, ok := chord2Bound(maxMiles); !ok || k <= 0 || len(ix.ids) == 0 || !validLatLon(lat, lon) {
		return nil
	}
	found := ix.NearestAppend(make([]Neighbor, 0, min(k, len(ix.ids))), lat, lon, k, maxMiles, keep)
	if len(found) == 0 {
		return nil
	}
	return found
}

// NearestAppend is Nearest appending to dst, for the valuation hot path: with a dst whose spare
// capacity is at least k it allocates nothing, as the search keeps its working set in that capacity.
func (ix *Index) NearestAppend(dst []Neighbor, lat, lon float64, k int, maxMiles float64, keep func(id int32) bool) []Neighbor {
	bound, ok := chord2Bound(maxMiles)
	if !ok || k <= 0 || len(ix.ids) == 0 || !validLatLon(lat, lon) {
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
		node, lo, hi int32 // the node and its points, ids[lo:hi]
		d2           float64
	}
	var stack [maxDepth]pending
	stack[0] = pending{0, 0, int32(len(ix.ids)), boxDist2(&ix.nodes[0], qx, qy, qz)}
	sp := 1
	for sp > 0 {
		sp--
		e := stack[sp]
		// A box exactly at the worst distance may still hold a point that wins the tie on ID.
		if e.d2 > worst {
			continue
		}
		if e.hi-e.lo > leafSize {
			mid := e.lo + (e.hi-e.lo)/2
			near := pending{2*e.node + 1, e.lo, mid, boxDist2(&ix.nodes[2*e.node+1], qx, qy, qz)}
			far := pending{2*e.node + 2, mid, e.hi, boxDist2(&ix.nodes[2*e.node+2], qx, qy, qz)}
			if far.d2 < near.d2 {
				near, far = far, near
			}
			// Push the farther child first so that the nearer is searched first and tightens worst
			// before the farther is looked at again.
			if far.d2 <= worst {
				stack[sp] = far
				sp++
			}
			if near.d2 <= worst {
				stack[sp] = near
				sp++
			}
			continue
		}
		for i := e.lo; i < e.hi; i++ {
			x, y, z := ix.vec(i)
			dx, dy, dz := x-qx, y-qy, z-qz
			d2 := dx*dx + dy*dy + dz*dz
			if d2 > worst {
				continue
			}
			id := ix.ids[i]
			full := len(dst)-base == k
			if full && !neighborLess(d2, id, dst[base]) {
				continue
			}
			if keep != nil && !keep(id) {
				continue
			}
			if full {
				dst[base] = Neighbor{ID: id, Miles: d2}
				h.down(dst[base:], 0)
			} else {
				dst = append(dst, Neighbor{ID: id, Miles: d2})
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
	if !ok || len(ix.ids) == 0 || !validLatLon(lat, lon) {
		return dst
	}
	qx, qy, qz := unitVector(lat, lon)
	type pending struct{ node, lo, hi int32 }
	var stack [maxDepth]pending
	sp := 0
	if boxDist2(&ix.nodes[0], qx, qy, qz) <= bound {
		stack[0] = pending{0, 0, int32(len(ix.ids))}
		sp = 1
	}
	for sp > 0 {
		sp--
		e := stack[sp]
		if e.hi-e.lo > leafSize {
			mid := e.lo + (e.hi-e.lo)/2
			for _, c := range [2]pending{{2*e.node + 1, e.lo, mid}, {2*e.node + 2, mid, e.hi}} {
				if boxDist2(&ix.nodes[c.node], qx, qy, qz) <= bound {
					stack[sp] = c
					sp++
				}
			}
			continue
		}
		for i := e.lo; i < e.hi; i++ {
			x, y, z := ix.vec(i)
			dx, dy, dz := x-qx, y-qy, z-qz
			d2 := dx*dx + dy*dy + dz*dz
			if d2 > bound {
				continue
			}
			// The bound is a hair wide, so check the exact distance before asking keep.
			miles := chord2ToMiles(d2)
			if miles > maxMiles || (keep != nil && !keep(ix.ids[i])) {
				continue
			}
			dst = append(dst, Neighbor{ID: ix.ids[i], Miles: miles})
		}
	}
	return dst
}
