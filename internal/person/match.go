package person

import (
	"math"
	"sort"
	"strings"

	"valuator/internal/address"
)

// Threshold is the lowest score Match accepts: a first initial with the right last name at the right address,
// and nothing weaker.
const Threshold = 0.6

// AmbiguousMargin is how close the runner-up must score for a match to be flagged as ambiguous.
const AmbiguousMargin = 0.05

// Address factors multiply the name score. A person found only at a past address, or at the right city but
// another street, is weaker evidence than one found where the caller says they live, but not none: people move
// and records lag.
const (
	factorHistorical   = 0.95
	factorOtherStreet  = 0.75
	factorOtherUnit    = 0.85
	factorZIPMismatch  = 0.9
	factorMiddleDiffer = 0.85
)

// Score says how well a candidate matches a query, from 0 to 1. The last name must be equal after folding, and
// the city and state must be those of one of the candidate's addresses (found-at, current or historical);
// otherwise the score is 0. The first name then gives FirstExact, FirstNickname or FirstInitial, lowered when the
// middle names contradict, and the address lowers it when the street, unit or ZIP code given in the query differ.
// The candidate's alternate names are tried too, and the best reading counts. Score does not validate q.
func Score(q Query, c Candidate) float64 {
	s, _ := score(q, c)
	return s
}

// score also returns the address that matched, for Result.FoundAtAddress.
func score(q Query, c Candidate) (float64, *Address) {
	qn := ParseName(q.Name)
	if qn.Last == "" {
		return 0, nil
	}
	name := 0.0
	for _, cn := range candidateNames(c) {
		if s := nameScore(qn, cn); s > name {
			name = s
		}
	}
	if name == 0 {
		return 0, nil
	}
	qp := placeOf(q.StreetLine1, "", q.City, q.StateCode, q.PostalCode)
	best, bestAddr := 0.0, (*Address)(nil)
	try := func(a Address, factor float64) {
		f := addressFactor(qp, placeOf(a.StreetLine1, a.StreetLine2, a.City, a.StateCode, a.PostalCode))
		if f*factor > best {
			a := a
			best, bestAddr = f*factor, &a
		}
	}
	if c.FoundAtAddress != nil {
		try(*c.FoundAtAddress, 1)
	}
	for _, a := range c.CurrentAddresses {
		try(a, 1)
	}
	for _, a := range c.HistoricalAddrs {
		try(a, factorHistorical)
	}
	return name * best, bestAddr
}

// candidateNames lists the readings of a candidate's name: its parts when the record has them, else its display
// name, then its alternate names.
func candidateNames(c Candidate) []PersonName {
	var out []PersonName
	if c.LastName != "" {
		out = append(out, nameFromParts(c.FirstName, c.MiddleName, c.LastName))
	} else if c.Name != "" {
		out = append(out, ParseName(c.Name))
	}
	for _, n := range c.AlternateNames {
		out = append(out, ParseName(n))
	}
	return out
}

func nameScore(q, c PersonName) float64 {
	if q.Last == "" || q.Last != c.Last {
		return 0
	}
	s := CompareFirst(q.First, c.First)
	if middleContradicts(q.Middle, c.Middle) {
		s *= factorMiddleDiffer
	}
	return s
}

// place is an address reduced to the keys that decide whether two writings of it are one place.
type place struct {
	street, unit, city, state, zip string
}

// placeOf normalises an address through the address package, so "123 Main Street Apt 4" and "123 MAIN ST #4"
// give one street and unit. A street the parser refuses (empty, a PO box) is left out, and the city and state are
// then compared in a simpler folded form, since a person's mailing address can be one a valuation never could.
func placeOf(street1, street2, city, state, zip string) place {
	street := strings.TrimSpace(street1 + " " + street2)
	if street != "" {
		if a, err := address.FromParts(street, city, state, zip); err == nil {
			return place{street: a.StreetKey(), unit: a.UnitKey(), city: a.CityKey(), state: a.State, zip: a.ZIP}
		}
	}
	p := place{city: address.Address{City: strings.ToUpper(FoldName(city))}.CityKey(), zip: zip5(zip)}
	p.state, _ = address.NormalizeState(state)
	if street != "" {
		// The street did not parse together with the rest; perhaps alone it does (a bad ZIP code, say).
		if a, err := address.FromParts(street, "", "", ""); err == nil && a.Number != "" {
			p.street, p.unit = a.StreetKey(), a.UnitKey()
		}
	}
	return p
}

func zip5(z string) string {
	z = strings.TrimSpace(z)
	if len(z) >= 5 {
		return z[:5]
	}
	return ""
}

// addressFactor is 0 unless city and state agree; then 1, lowered for each detail the query gives that differs.
// A detail the query leaves out (street, unit, ZIP code) is no evidence against the candidate.
func addressFactor(q, c place) float64 {
	if q.state == "" || q.state != c.state || q.city == "" || q.city != c.city {
		return 0
	}
	f := 1.0
	if q.street != "" {
		switch {
		case q.street != c.street:
			f *= factorOtherStreet
		case q.unit != "" && q.unit != c.unit:
			f *= factorOtherUnit
		}
	}
	if q.zip != "" && c.zip != "" && q.zip != c.zip {
		f *= factorZIPMismatch
	}
	return f
}

// Match validates q and returns the best-scoring candidate at or above Threshold, with MatchScore and
// FoundAtAddress set, or ErrNotFound. Candidates that score the same are ordered by ID, so the same data always
// gives the same answer; Ambiguous is set when the runner-up also qualifies and scores within AmbiguousMargin,
// so the caller can say the person may be someone else.
func Match(q Query, cands []Candidate) (Result, error) {
	q, err := q.Validate()
	if err != nil {
		return Result{}, err
	}
	type scored struct {
		i     int
		score float64
		at    *Address
	}
	var hits []scored
	for i, c := range cands {
		if s, at := score(q, c); s >= Threshold-1e-9 {
			hits = append(hits, scored{i, s, at})
		}
	}
	if len(hits) == 0 {
		return Result{}, ErrNotFound
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if d := hits[a].score - hits[b].score; math.Abs(d) > 1e-9 {
			return d > 0
		}
		return cands[hits[a].i].ID < cands[hits[b].i].ID
	})
	best := hits[0]
	r := cands[best.i].Result
	r.MatchScore = math.Round(best.score*1000) / 1000
	r.FoundAtAddress = best.at
	r.Ambiguous = len(hits) > 1 && best.score-hits[1].score <= AmbiguousMargin+1e-9
	if r.Ambiguous && !atQueriedStreet(q, best.at) {
		// The caller named a street and several namesakes live elsewhere in the city: answering one of them would
		// hand out a stranger's record on a guess (after a person opts out, their namesake would be answered in
		// their place). Without a street the caller asked about the name in the city, and the flag says it.
		return Result{}, ErrNotFound
	}
	return r, nil
}

// atQueriedStreet reports whether the query names no street, or the street of a.
func atQueriedStreet(q Query, a *Address) bool {
	qp := placeOf(q.StreetLine1, "", q.City, q.StateCode, q.PostalCode)
	if qp.street == "" {
		return true
	}
	return a != nil && placeOf(a.StreetLine1, a.StreetLine2, a.City, a.StateCode, a.PostalCode).street == qp.street
}

// StrictMatch is the listing an opt-out may remove: the one candidate whose name is the query's (the same last
// name, and the full first name or a known nickname of it: never an initial) at the query's street address (the
// same street number and street, city and state; a unit only counts against it when both give one). It is stricter
// than Match on purpose: a lookup may find a person at an old street or by an initial, but an opt-out removes a
// listing for good, so "Liz" at a made-up street must remove nobody, and a query that fits two listings removes
// neither (ok is false).
func StrictMatch(q Query, cands []Candidate) (Candidate, bool) {
	qn := ParseName(q.Name)
	qp := placeOf(q.StreetLine1, "", q.City, q.StateCode, q.PostalCode)
	if qn.Last == "" || len(qn.First) < 2 || qp.street == "" {
		return Candidate{}, false
	}
	var found []Candidate
	for _, c := range cands {
		if strictName(qn, c) && strictPlace(qp, c) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return Candidate{}, false
	}
	return found[0], true
}

func strictName(q PersonName, c Candidate) bool {
	for _, cn := range candidateNames(c) {
		if cn.Last == q.Last && CompareFirst(q.First, cn.First) >= FirstNickname {
			return true
		}
	}
	return false
}

func strictPlace(q place, c Candidate) bool {
	addrs := append(append([]Address(nil), c.CurrentAddresses...), c.HistoricalAddrs...)
	if c.FoundAtAddress != nil {
		addrs = append(addrs, *c.FoundAtAddress)
	}
	for _, a := range addrs {
		p := placeOf(a.StreetLine1, a.StreetLine2, a.City, a.StateCode, a.PostalCode)
		if p.street == q.street && p.city == q.city && p.state == q.state && (q.unit == "" || p.unit == "" || p.unit == q.unit) {
			return true
		}
	}
	return false
}

// NameKey is how an opted-out person's name is compared with other people's associates: folded first and last
// name ("elizabeth ashdown").
func NameKey(first, last string) string {
	return FoldName(first) + " " + strings.ReplaceAll(FoldName(last), " ", "")
}
