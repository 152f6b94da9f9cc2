package valuation

import (
	"hash/maphash"
	"slices"
	"sort"
)

// keyIndex finds the properties whose key (a string made from their record, such as "ZIP|street key") is a given
// one. It keeps 12 bytes a property, a hash of its key and its index, sorted by hash, instead of a map of strings
// to lists (about 100 bytes a property, issue 39): a lookup finds the properties of the key's hash by binary search
// and keeps those whose record's own key is the one asked for, so a collision of hashes costs a comparison, never
// a wrong answer.
type keyIndex struct {
	hashes []uint64 // ascending
	props  []int32  // props[i]'s key hashes to hashes[i]; ascending among equal hashes
	keyOf  func(p int32) string
}

// keySeed is the hashes' seed, one per process (the index is never saved).
var keySeed = maphash.MakeSeed()

// newKeyIndex indexes properties 0..n-1 under keyOf(p); those for which keyOf gives "" are left out.
func newKeyIndex(n int, keyOf func(p int32) string) *keyIndex {
	type entry struct {
		h uint64
		p int32
	}
	es := make([]entry, 0, n)
	for p := range int32(n) {
		if k := keyOf(p); k != "" {
			es = append(es, entry{maphash.String(keySeed, k), p})
		}
	}
	// By hash, then by property, so that the properties of one key come in the order of the records.
	slices.SortFunc(es, func(a, b entry) int {
		if a.h != b.h {
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return int(a.p - b.p)
	})
	ix := &keyIndex{hashes: make([]uint64, len(es)), props: make([]int32, len(es)), keyOf: keyOf}
	for i, e := range es {
		ix.hashes[i], ix.props[i] = e.h, e.p
	}
	return ix
}

// get returns the properties whose key is key, in the order of the records.
func (ix *keyIndex) get(key string) []int32 {
	if key == "" {
		return nil
	}
	h := maphash.String(keySeed, key)
	var out []int32
	for i := sort.Search(len(ix.hashes), func(i int) bool { return ix.hashes[i] >= h }); i < len(ix.hashes) && ix.hashes[i] == h; i++ {
		if p := ix.props[i]; ix.keyOf(p) == key {
			out = append(out, p)
		}
	}
	return out
}
