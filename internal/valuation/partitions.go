package valuation

import (
	"valuator/internal/address"
	"valuator/internal/geo"
	"valuator/internal/store"
)

// marketSet is the loaded market: one snapshot of the whole market, or (Partitions) one a state, each with its own
// engine, records and indexes. Lookups read it without locks; a reload swaps in a new set that keeps the
// snapshots of the partitions whose records did not change.
type marketSet struct {
	version string      // the store's MarketVersion when loaded
	parts   []*snapshot // by state
	byState map[string]*snapshot
	// byZIP is the partition of each ZIP code the records have (a ZIP code's homes are in one state).
	byZIP map[string]*snapshot
}

func newMarketSet(version string, parts []*snapshot) *marketSet {
	set := &marketSet{version: version, parts: parts, byState: map[string]*snapshot{}, byZIP: map[string]*snapshot{}}
	for _, snap := range parts {
		set.byState[snap.part.State] = snap
		for p := int32(0); p < int32(snap.homes.len()); p++ {
			if z := snap.homes.str(p, sZIP); set.byZIP[z] == nil {
				set.byZIP[z] = snap
			}
		}
	}
	return set
}

// part is the loaded partition of a state (nil when there is none, or the market is not partitioned).
func (set *marketSet) part(state string) *snapshot {
	if set == nil || len(set.parts) == 0 || set.parts[0].part.Whole {
		return nil
	}
	return set.byState[state]
}

// whole is the one snapshot of an unpartitioned market (the first partition of a partitioned one).
func (set *marketSet) whole() *snapshot {
	if set == nil || len(set.parts) == 0 {
		return nil
	}
	return set.parts[0]
}

// valuing reports whether some partition has an engine to value with.
func (set *marketSet) valuing() bool {
	for _, snap := range set.parts {
		if snap.engine != nil {
			return true
		}
	}
	return false
}

// holds reports whether snap is one of the set's partitions (a reload has not replaced it).
func (set *marketSet) holds(snap *snapshot) bool {
	for _, p := range set.parts {
		if p == snap {
			return true
		}
	}
	return false
}

// home is the partition an address belongs to: its ZIP code's (the records', else the ZIP table's state), else
// its state's; nil when no loaded partition has it. An unpartitioned market's one snapshot holds every address.
func (set *marketSet) home(a address.Address, zip string) *snapshot {
	if len(set.parts) == 1 && set.parts[0].part.Whole {
		return set.parts[0]
	}
	for _, z := range []string{zip, a.ZIP} {
		if z == "" {
			continue
		}
		if snap := set.byZIP[z]; snap != nil {
			return snap
		}
		if g, ok := geo.LookupZIP(z); ok {
			if snap := set.byState[g.State]; snap != nil {
				return snap
			}
		}
	}
	return set.byState[a.State]
}

// match finds the record of an address in the partition it belongs to, then in the others (a record whose state
// differs from its ZIP code's is still found); the partition is the one the record is in, else the address's.
func (set *marketSet) match(a address.Address) (*snapshot, matched, bool) {
	home := set.home(a, "")
	if home != nil {
		if m, ok := home.match(a); ok {
			return home, m, true
		}
	}
	for _, snap := range set.parts {
		if snap != home {
			if m, ok := snap.match(a); ok {
				return snap, m, true
			}
		}
	}
	return home, matched{}, false
}

// visitor feeds what the store reads to the builder.
func (b *marketBuilder) visitor() store.MarketVisitor {
	return store.MarketVisitor{Counts: b.counts, Home: b.home, Sale: b.sale, Rental: b.rent}
}
