package valuation

import (
	"hash/maphash"
	"slices"
	"sort"
)

// keyIndex finds the properties whose key (a string made from their record, such as "ZIP|street key") is a given
// one. It keeps 4 bytes a property, the properties sorted by a hash of their key, instead of a map of strings to
// lists (about 100 bytes a property, issue 39) or the hashes beside them (12 bytes): a lookup finds the
// properties of the key's hash by binary search, hashing the keys of the two dozen properties it passes on the way
// (a few microseconds of a lookup's milliseconds), and keeps those whose own key is the one asked for, so a
// collision of hashes costs a comparison, never a wrong answer.
type keyIndex struct {
	props []int32 // by the hash of their key, then ascending
	keyOf func(p int32) string
}

// keySeed is the hashes' seed, one per process (the index is never saved).
var keySeed = maphash.MakeSeed()

func keyHash(k string) uint64 { return maphash.String(keySeed, k) }

// newKeyIndex indexes properties 0..n-1 under keyOf(p); those for which keyOf gives "" are left out.
func newKeyIndex(n int, keyOf func(p int32) string) *keyIndex {
	type entry struct {
		h uint64
		p int32
	}
	es := make([]entry, 0, n)
	for p := range int32(n) {
		if k := keyOf(p); k != "" {
			es = append(es, entry{keyHash(k), p})
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
	ix := &keyIndex{props: make([]int32, len(es)), keyOf: keyOf}
	for i, e := range es {
		ix.props[i] = e.p
	}
	return ix
}

// get returns the properties whose key is key, in the order of the records.
func (ix *keyIndex) get(key string) []int32 {
	if key == "" {
		return nil
	}
	h := keyHash(key)
	var out []int32
	for i := sort.Search(len(ix.props), func(i int) bool { return keyHash(ix.keyOf(ix.props[i])) >= h }); i < len(ix.props); i++ {
		p := ix.props[i]
		k := ix.keyOf(p)
		if keyHash(k) != h {
			break
		}
		if k == key {
			out = append(out, p)
		}
	}
	return out
}
