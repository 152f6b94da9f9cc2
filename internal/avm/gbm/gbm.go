// Package gbm is a small gradient-boosted regression tree learner in the style of LightGBM: features are bucketed
// into at most 255 quantile bins once, trees grow leaf-wise (always splitting the leaf with the largest gain) using
// per-leaf gradient histograms, with row and feature subsampling. It is pure Go with no I/O, deterministic for a
// given seed, and its models are plain data (exported fields) so they can be serialised with encoding/gob or JSON.
package gbm

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
)

// Loss is the training objective.
type Loss int

const (
	// L2 is squared error: the model predicts the conditional mean.
	L2 Loss = iota
	// Huber is squared error near zero and absolute error past Delta: robust to outliers, closer to a median.
	Huber
)

// Params control training.
type Params struct {
	Trees           int     // boosting rounds
	LearningRate    float64 // shrinkage of each tree
	NumLeaves       int     // leaves per tree (leaf-wise growth)
	MaxDepth        int     // 0: unlimited
	MinLeaf         int     // minimum rows in a leaf
	Lambda          float64 // L2 regularisation of leaf values
	FeatureFraction float64 // share of features considered per tree (0 or 1: all)
	BaggingFraction float64 // share of rows used per tree (0 or 1: all)
	MaxBins         int     // at most 255
	Loss            Loss
	Delta           float64 // Huber threshold
	Seed            uint64
	// Monotone constrains the model's response to each feature (by index; missing entries are 0): +1 never
	// decreasing as the feature grows, −1 never increasing, 0 free. Every tree then keeps the constraint (LightGBM's
	// "basic" method: a split on a constrained feature must order its two sides' values, and bounds every leaf below
	// it by their midpoint), so the model, a sum of trees, keeps it too.
	Monotone []int8
}

// DefaultParams are sound starting values for a few thousand to a few hundred thousand rows.
func DefaultParams() Params {
	return Params{Trees: 500, LearningRate: 0.05, NumLeaves: 31, MinLeaf: 20, Lambda: 1,
		FeatureFraction: 0.8, BaggingFraction: 0.8, MaxBins: 255, Loss: L2, Delta: 0.1, Seed: 1}
}

// Node is one node of a tree in a flat array, 16 bytes so that walking thousands of trees stays in cache. An inner
// node sends x left when x[Feature] <= Threshold (and missing values, NaN, left too) to node Left, else to Left+1
// (children are always stored side by side). A leaf has Feature < 0 and holds its value in Threshold.
type Node struct {
	Threshold float64
	Feature   int32
	Left      int32
}

// Value is a leaf's value.
func (n Node) Value() float64 { return n.Threshold }

// Tree is a regression tree; node 0 is the root.
type Tree struct {
	Nodes []Node
}

// Model is a trained ensemble: Base plus the sum of the trees' leaf values.
type Model struct {
	Base     float64
	Trees    []Tree
	Features int
	// Gain is the total split gain per feature over all trees (feature importance).
	Gain []float64
}

// Predict returns the model's value for one row of features.
func (m *Model) Predict(x []float64) float64 {
	s := m.Base
	for i := range m.Trees {
		nodes := m.Trees[i].Nodes
		nd := &nodes[0]
		for nd.Feature >= 0 {
			v := x[nd.Feature]
			if v <= nd.Threshold || v != v { // v != v: NaN goes left
				nd = &nodes[nd.Left]
			} else {
				nd = &nodes[nd.Left+1]
			}
		}
		s += nd.Threshold
	}
	return s
}

// binner maps a feature's values to bin indices: bin 0 holds missing values (NaN), bins 1..len(upper) hold values
// up to upper[b-1], and the last bin everything above.
type binner struct {
	upper []float64
}

func newBinner(values []float64, maxBins int) binner {
	vals := make([]float64, 0, len(values))
	for _, v := range values {
		if v == v {
			vals = append(vals, v)
		}
	}
	sort.Float64s(vals)
	uniq := vals[:0:0]
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			uniq = append(uniq, v)
		}
	}
	var upper []float64
	if len(uniq) <= maxBins-1 {
		// Few distinct values: one bin each, split halfway between neighbours.
		for i := 0; i+1 < len(uniq); i++ {
			upper = append(upper, (uniq[i]+uniq[i+1])/2)
		}
	} else {
		// Quantile bins over the sorted values, so each bin holds about the same number of rows.
		nb := maxBins - 1
		for b := 1; b < nb; b++ {
			q := vals[b*len(vals)/nb]
			if len(upper) == 0 || q > upper[len(upper)-1] {
				upper = append(upper, q)
			}
		}
	}
	return binner{upper: upper}
}

func (b binner) bin(v float64) uint8 {
	if v != v {
		return 0
	}
	// The first upper bound >= v; values above every bound go to the last bin.
	i := sort.SearchFloat64s(b.upper, v)
	return uint8(i + 1)
}

// threshold is the raw value that separates bins <= b from bins > b.
func (b binner) threshold(bin int) float64 {
	if bin == 0 {
		return math.Inf(-1) // only missing values go left
	}
	return b.upper[bin-1]
}

func (b binner) bins() int { return len(b.upper) + 2 }

type histBin struct {
	g, h float64
	n    int32
}

// hist is one leaf's gradient histogram: every feature's bins laid out in one slice (offsets in trainer.off).
type hist []histBin

type leaf struct {
	lo, hi int // the leaf's rows are trainer.rows[lo:hi]
	hist   hist
	g, h   float64
	depth  int
	node   int32
	// min and max bound the leaf's output (before the learning rate), set by monotone splits above it.
	min, max float64
	// the outputs of the best split's two sides (within min and max)
	wl, wr float64
	// best split found for this leaf
	gain    float64
	feature int
	bin     int
}

// monotone is the constraint on feature f (0 when none).
func (p Params) monotone(f int) int8 {
	if f < len(p.Monotone) {
		return p.Monotone[f]
	}
	return 0
}

// output is a leaf's value for sums g and h (before the learning rate), within [lo, hi].
func output(g, h, lambda, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, -g/(h+lambda)))
}

// score is how much a leaf of sums g, h with output w lowers the L2-regularised objective (g²/(h+λ) at the
// unconstrained optimum).
func score(g, h, lambda, w float64) float64 { return -(2*g*w + (h+lambda)*w*w) }

// trainer holds what every tree of one training run shares, so that growing a tree allocates (almost) nothing:
// rows are partitioned in place and histograms come from a free list.
type trainer struct {
	binned  [][]uint8
	binners []binner
	off     []int // start of each feature's bins in a hist
	size    int   // bins in a hist
	p       Params
	featOK  []bool
	grad    []float64
	hess    []float64
	rows    []int32
	free    []hist
	gain    []float64
	leafOf  []int32
}

// newHist returns a histogram whose active features' bins are zero (the others are never read this tree).
func (tr *trainer) newHist() hist {
	if n := len(tr.free); n > 0 {
		h := tr.free[n-1]
		tr.free = tr.free[:n-1]
		for f := range tr.binned {
			if tr.featOK[f] {
				clear(h[tr.off[f] : tr.off[f]+tr.binners[f].bins()])
			}
		}
		return h
	}
	return make(hist, tr.size)
}

// Train fits a model to rows X (each of the same length) and targets y, with optional weights w (nil: all 1).
func Train(X [][]float64, y, w []float64, p Params) (*Model, error) {
	n := len(X)
	if n == 0 || len(y) != n || (w != nil && len(w) != n) {
		return nil, errors.New("gbm: X, y and w must have the same, non-zero length")
	}
	nf := len(X[0])
	if p.MaxBins <= 1 || p.MaxBins > 255 {
		p.MaxBins = 255
	}
	if p.NumLeaves < 2 {
		p.NumLeaves = 2
	}
	if p.MinLeaf < 1 {
		p.MinLeaf = 1
	}
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))

	// Bin every feature once.
	tr := &trainer{p: p, binners: make([]binner, nf), binned: make([][]uint8, nf), off: make([]int, nf),
		featOK: make([]bool, nf), grad: make([]float64, n), hess: make([]float64, n), rows: make([]int32, n),
		gain: make([]float64, nf), leafOf: make([]int32, n)}
	col := make([]float64, n)
	for f := 0; f < nf; f++ {
		for i := range X {
			if len(X[i]) != nf {
				return nil, errors.New("gbm: rows of X differ in length")
			}
			col[i] = X[i][f]
		}
		tr.binners[f] = newBinner(col, p.MaxBins)
		tr.binned[f] = make([]uint8, n)
		for i := range X {
			tr.binned[f][i] = tr.binners[f].bin(col[i])
		}
		tr.off[f] = tr.size
		tr.size += tr.binners[f].bins()
	}

	weight := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	var sw, swy float64
	for i := range y {
		sw += weight(i)
		swy += weight(i) * y[i]
	}
	m := &Model{Base: swy / sw, Features: nf}
	pred := make([]float64, n)
	for i := range pred {
		pred[i] = m.Base
	}

	for t := 0; t < p.Trees; t++ {
		for i := 0; i < n; i++ {
			r := pred[i] - y[i]
			if p.Loss == Huber && math.Abs(r) > p.Delta {
				r = math.Copysign(p.Delta, r)
			}
			tr.grad[i] = r * weight(i)
			tr.hess[i] = weight(i)
		}
		tr.rows = tr.rows[:0]
		for i := 0; i < n; i++ {
			if p.BaggingFraction <= 0 || p.BaggingFraction >= 1 || rng.Float64() < p.BaggingFraction {
				tr.rows = append(tr.rows, int32(i))
			}
		}
		any := false
		for f := range tr.featOK {
			tr.featOK[f] = p.FeatureFraction <= 0 || p.FeatureFraction >= 1 || rng.Float64() < p.FeatureFraction
			any = any || tr.featOK[f]
		}
		if !any {
			tr.featOK[rng.IntN(nf)] = true
		}
		tree, leafOf := tr.growTree()
		// Rows in the bag know their leaf from the partition; the others walk the tree.
		inBag := leafOf != nil
		for i := 0; i < n; i++ {
			if inBag && leafOf[i] >= 0 {
				pred[i] += tree.Nodes[leafOf[i]].Value()
			} else {
				pred[i] += tr.predictBinned(tree, i)
			}
		}
		m.Trees = append(m.Trees, tree)
	}
	m.Gain = tr.gain
	return m, nil
}

func (tr *trainer) predictBinned(t Tree, i int) float64 {
	n := int32(0)
	for t.Nodes[n].Feature >= 0 {
		nd := &t.Nodes[n]
		b := tr.binned[nd.Feature][i]
		// Compare in bin space: the threshold is exactly the upper bound of the split bin.
		if b == 0 || tr.binners[nd.Feature].upperOf(b) <= nd.Threshold {
			n = nd.Left
		} else {
			n = nd.Left + 1
		}
	}
	return t.Nodes[n].Value()
}

// upperOf is the largest value bin b can hold (+Inf for the last bin).
func (b binner) upperOf(bin uint8) float64 {
	if int(bin) > len(b.upper) {
		return math.Inf(1)
	}
	return b.upper[bin-1]
}

// growTree grows one tree on tr.rows and returns it with, for every training row, the node of the leaf it fell
// in (-1 for rows outside the bag).
func (tr *trainer) growTree() (Tree, []int32) {
	p := tr.p
	tree := Tree{Nodes: []Node{{Feature: -1}}}
	root := &leaf{lo: 0, hi: len(tr.rows), node: 0, min: math.Inf(-1), max: math.Inf(1)}
	root.hist = tr.buildHist(root.lo, root.hi)
	for _, r := range tr.rows {
		root.g += tr.grad[r]
		root.h += tr.hess[r]
	}
	tr.findBest(root)
	leaves := []*leaf{root}

	for len(leaves) < p.NumLeaves {
		// Split the leaf with the largest gain.
		bi := -1
		for i, l := range leaves {
			if l.gain > 0 && (bi < 0 || l.gain > leaves[bi].gain) {
				bi = i
			}
		}
		if bi < 0 {
			break
		}
		l := leaves[bi]
		tr.gain[l.feature] += l.gain
		// Partition the leaf's rows in place: those going left first.
		fb := tr.binned[l.feature]
		rows := tr.rows
		mid := l.lo
		for i := l.lo; i < l.hi; i++ {
			if int(fb[rows[i]]) <= l.bin {
				rows[i], rows[mid] = rows[mid], rows[i]
				mid++
			}
		}
		li, ri := int32(len(tree.Nodes)), int32(len(tree.Nodes)+1)
		tree.Nodes = append(tree.Nodes, Node{Feature: -1}, Node{Feature: -1})
		tree.Nodes[l.node] = Node{Feature: int32(l.feature), Threshold: tr.binners[l.feature].threshold(l.bin), Left: li}
		lc := &leaf{lo: l.lo, hi: mid, node: li, depth: l.depth + 1, min: l.min, max: l.max}
		rc := &leaf{lo: mid, hi: l.hi, node: ri, depth: l.depth + 1, min: l.min, max: l.max}
		// Below a split on a constrained feature, the side that must stay lower stays under the midpoint of the two
		// outputs and the other above it.
		if c := p.monotone(l.feature); c != 0 {
			m := (l.wl + l.wr) / 2
			if c > 0 {
				lc.max, rc.min = math.Min(lc.max, m), math.Max(rc.min, m)
			} else {
				lc.min, rc.max = math.Max(lc.min, m), math.Min(rc.max, m)
			}
		}
		// Build the histogram of the smaller child and get the other by subtraction from the parent's.
		small, large := lc, rc
		if rc.hi-rc.lo < lc.hi-lc.lo {
			small, large = rc, lc
		}
		small.hist = tr.buildHist(small.lo, small.hi)
		large.hist = l.hist
		l.hist = nil
		for f := range tr.binned {
			if !tr.featOK[f] {
				continue
			}
			lo, hi := tr.off[f], tr.off[f]+tr.binners[f].bins()
			lh, sh := large.hist[lo:hi], small.hist[lo:hi]
			for i := range lh {
				lh[i].g -= sh[i].g
				lh[i].h -= sh[i].h
				lh[i].n -= sh[i].n
			}
		}
		// The children's sums are their own histograms of the split feature, summed over its bins.
		for _, c := range []*leaf{lc, rc} {
			c.g, c.h = sumFeature(c.hist, tr.off[l.feature], tr.binners[l.feature].bins())
			if p.MaxDepth <= 0 || c.depth < p.MaxDepth {
				tr.findBest(c)
			}
		}
		leaves[bi] = lc
		leaves = append(leaves, rc)
	}
	for i := range tr.leafOf {
		tr.leafOf[i] = -1
	}
	for _, l := range leaves {
		tree.Nodes[l.node].Threshold = output(l.g, l.h, p.Lambda, l.min, l.max) * p.LearningRate
		if l.hist != nil {
			tr.free = append(tr.free, l.hist)
		}
		for _, r := range tr.rows[l.lo:l.hi] {
			tr.leafOf[r] = l.node
		}
	}
	return tree, tr.leafOf
}

// sumFeature totals the gradient and hessian over one feature's bins of h: every row of a leaf falls in exactly
// one bin of each feature, so this is the leaf's total without a pass over its rows.
func sumFeature(h hist, off, bins int) (g, hs float64) {
	for _, b := range h[off : off+bins] {
		g += b.g
		hs += b.h
	}
	return g, hs
}

func (tr *trainer) buildHist(lo, hi int) hist {
	h := tr.newHist()
	rows := tr.rows[lo:hi]
	for f, fb := range tr.binned {
		if !tr.featOK[f] {
			continue
		}
		hf := h[tr.off[f] : tr.off[f]+tr.binners[f].bins()]
		for _, r := range rows {
			b := &hf[fb[r]]
			b.g += tr.grad[r]
			b.h += tr.hess[r]
			b.n++
		}
	}
	return h
}

// findBest finds the split of l with the largest gain in the L2-regularised objective.
func (tr *trainer) findBest(l *leaf) {
	p := tr.p
	l.gain = 0
	parent := score(l.g, l.h, p.Lambda, output(l.g, l.h, p.Lambda, l.min, l.max))
	total := int32(l.hi - l.lo)
	for f := range tr.binned {
		if !tr.featOK[f] {
			continue
		}
		h := l.hist[tr.off[f] : tr.off[f]+tr.binners[f].bins()]
		var gl, hl float64
		var nl int32
		for b := 0; b < len(h)-1; b++ {
			gl += h[b].g
			hl += h[b].h
			nl += h[b].n
			nr := total - nl
			if nl < int32(p.MinLeaf) {
				continue
			}
			if nr < int32(p.MinLeaf) {
				break
			}
			gr, hr := l.g-gl, l.h-hl
			wl, wr := output(gl, hl, p.Lambda, l.min, l.max), output(gr, hr, p.Lambda, l.min, l.max)
			if c := p.monotone(f); (c > 0 && wl > wr) || (c < 0 && wl < wr) {
				continue
			}
			gain := score(gl, hl, p.Lambda, wl) + score(gr, hr, p.Lambda, wr) - parent
			if gain > l.gain+1e-12 {
				l.gain, l.feature, l.bin, l.wl, l.wr = gain, f, b, wl, wr
			}
		}
	}
}
