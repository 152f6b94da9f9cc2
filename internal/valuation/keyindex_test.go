package valuation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The index answers as a map of keys to their properties would, in the records' order: keys repeated, keys left
// out (""), keys asked for that no property has.
func TestKeyIndexMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20_000
	keys := make([]string, n)
	want := map[string][]int32{}
	for p := range keys {
		if rng.IntN(10) == 0 {
			continue // no key: left out
		}
		keys[p] = fmt.Sprintf("98%03d|%d main st", rng.IntN(50), rng.IntN(3000)) // many repeated
		want[keys[p]] = append(want[keys[p]], int32(p))
	}
	ix := newKeyIndex(n, func(p int32) string { return keys[p] })
	if len(ix.props) != n-countEmpty(keys) {
		t.Fatalf("%d properties indexed, want %d", len(ix.props), n-countEmpty(keys))
	}
	for k, ps := range want {
		if got := ix.get(k); !slices.Equal(got, ps) {
			t.Fatalf("get(%q) = %v, want %v", k, got, ps)
		}
	}
	for _, k := range []string{"", "98000|no such st", "99999|1 main st", "98001|1 main s"} {
		if got := ix.get(k); len(got) != 0 {
			t.Errorf("get(%q) = %v, want none", k, got)
		}
	}
	if got := newKeyIndex(0, nil).get("x"); len(got) != 0 {
		t.Errorf("an empty index found %v", got)
	}
}

func countEmpty(keys []string) int {
	n := 0
	for _, k := range keys {
		if k == "" {
			n++
		}
	}
	return n
}
