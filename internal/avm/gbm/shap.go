package gbm

// Contributions explain one prediction against one other: how much each feature of x moves the model's value away
// from its value at ref. They are exact Shapley values of the game "take the features in S from x and the others
// from ref" (the baseline Shapley value of Sundararajan and Najmi, 2020; interventional TreeSHAP with a single
// reference row), so they add up exactly: Predict(x) − Predict(ref) = Σ out[i]. Contributions adds them to out,
// which must hold a value per feature.
//
// For one tree the game is simple: a hybrid row reaches a leaf when, for every feature the leaf's path splits on,
// the feature's value it took (from x or from ref) passes every split of the path. Let A be the features whose x
// value passes their splits and whose ref value does not, and B the opposite. A leaf that neither row's value of
// some feature reaches is never reached; one both rows reach is reached by every hybrid and moves nothing. Otherwise
// the leaf's value v is won by the coalitions holding all of A and none of B, and Shapley's formula gives each
// feature of A v·(|A|−1)!|B|!/(|A|+|B|)! and each of B −v·|A|!(|B|−1)!/(|A|+|B|)!. Only branches that x or ref takes
// are walked, so the cost is about the tree's depth times the number of splits where x and ref part.
func (m *Model) Contributions(x, ref, out []float64) {
	w := shapWalker{x: x, ref: ref, out: out, xOK: make([]int8, len(out)), rOK: make([]int8, len(out))}
	for i := range w.xOK {
		w.xOK[i], w.rOK[i] = 1, 1
	}
	for i := range m.Trees {
		w.nodes = m.Trees[i].Nodes
		w.walk(0)
	}
}

type shapWalker struct {
	x, ref, out []float64
	nodes       []Node
	// xOK and rOK say whether x's and ref's value of each feature passes every split on the path so far.
	xOK, rOK []int8
	path     []int32 // the features split on along the path (with repeats)
}

// goesLeft is the tree's rule: left when v <= threshold, and missing values (NaN) left too.
func goesLeft(v, threshold float64) bool { return v <= threshold || v != v }

func (w *shapWalker) walk(n int32) {
	nd := w.nodes[n]
	if nd.Feature < 0 {
		w.leaf(nd.Threshold)
		return
	}
	f := nd.Feature
	xl, rl := goesLeft(w.x[f], nd.Threshold), goesLeft(w.ref[f], nd.Threshold)
	for side, child := range [2]int32{nd.Left, nd.Left + 1} {
		left := side == 0
		xPass, rPass := xl == left, rl == left
		if (!xPass && !rPass) || (!xPass && w.rOK[f] == 0) || (!rPass && w.xOK[f] == 0) {
			continue // neither row's value of f reaches this branch: no hybrid does
		}
		px, pr := w.xOK[f], w.rOK[f]
		if !xPass {
			w.xOK[f] = 0
		}
		if !rPass {
			w.rOK[f] = 0
		}
		w.path = append(w.path, f)
		w.walk(child)
		w.path = w.path[:len(w.path)-1]
		w.xOK[f], w.rOK[f] = px, pr
	}
}

func (w *shapWalker) leaf(v float64) {
	// The distinct features of the path, split into A (x only passes) and B (ref only passes).
	var a, b int
	seen := func(i int) bool {
		for _, g := range w.path[:i] {
			if g == w.path[i] {
				return true
			}
		}
		return false
	}
	for i, f := range w.path {
		if seen(i) {
			continue
		}
		switch {
		case w.xOK[f] == 1 && w.rOK[f] == 0:
			a++
		case w.xOK[f] == 0 && w.rOK[f] == 1:
			b++
		case w.xOK[f] == 0 && w.rOK[f] == 0:
			return // unreachable (walk never enters such a branch, but a repeated feature can close it)
		}
	}
	if a+b == 0 {
		return
	}
	n := a + b
	// (|A|−1)!|B|!/n! and |A|!(|B|−1)!/n!, as products of ratios so that no factorial overflows.
	shareA, shareB := 0.0, 0.0
	if a > 0 {
		shareA = 1 / float64(n)
		for k := 1; k <= b; k++ { // × b!/((n−1)(n−2)...(n−b)) · ... = (a−1)!b!/n!
			shareA *= float64(k) / float64(n-k)
		}
	}
	if b > 0 {
		shareB = 1 / float64(n)
		for k := 1; k <= a; k++ {
			shareB *= float64(k) / float64(n-k)
		}
	}
	for i, f := range w.path {
		if seen(i) {
			continue
		}
		switch {
		case w.xOK[f] == 1 && w.rOK[f] == 0:
			w.out[f] += v * shareA
		case w.xOK[f] == 0 && w.rOK[f] == 1:
			w.out[f] -= v * shareB
		}
	}
}
