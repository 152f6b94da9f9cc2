package person

import (
	"errors"
	"math"
	"testing"
)

func home(street, city, state, zip string) Address {
	return Address{StreetLine1: street, City: city, StateCode: state, PostalCode: zip}
}

func cand(id, first, middle, last string, current ...Address) Candidate {
	return Candidate{Result: Result{ID: id, Name: first + " " + last, CurrentAddresses: current},
		FirstName: first, MiddleName: middle, LastName: last}
}

func TestScore(t *testing.T) {
	mainSt := home("123 MAIN ST #4", "SPRINGFIELD", "IL", "62704")
	q := func(name, street string) Query {
		return Query{Name: name, StreetLine1: street, City: "Springfield", StateCode: "IL"}
	}
	moved := cand("m", "Robert", "", "Smith", home("9 Elm St", "Peoria", "IL", "61602"))
	moved.HistoricalAddrs = []Address{mainSt}
	alt := cand("a", "Roberta", "", "Smith", mainSt)
	alt.AlternateNames = []string{"Bob Smith"}
	byName := Candidate{Result: Result{ID: "n", Name: "SMITH, ROBERT J", CurrentAddresses: []Address{mainSt}}}
	tests := []struct {
		name string
		q    Query
		c    Candidate
		want float64
	}{
		{"exact name and address", q("Robert Smith", "123 Main Street Apt 4"), cand("1", "Robert", "", "Smith", mainSt), 1},
		{"no unit in query", q("Robert Smith", "123 Main St"), cand("1", "Robert", "", "Smith", mainSt), 1},
		{"no street in query", q("Robert Smith", ""), cand("1", "Robert", "", "Smith", mainSt), 1},
		{"accents and case", q("JOSÉ NÚÑEZ", ""), cand("1", "Jose", "", "Nunez", mainSt), 1},
		{"nickname", q("Bob Smith", ""), cand("1", "Robert", "", "Smith", mainSt), FirstNickname},
		{"middle initial agrees", q("Robert J. Smith", ""), cand("1", "Robert", "James", "Smith", mainSt), 1},
		{"middle initial in query, none on record", q("Robert J. Smith", ""), cand("1", "Bob", "", "Smith", mainSt), FirstNickname},
		{"middle initial contradicts", q("Robert K. Smith", ""), cand("1", "Robert", "James", "Smith", mainSt), factorMiddleDiffer},
		{"initial only", q("R Smith", ""), cand("1", "Robert", "", "Smith", mainSt), FirstInitial},
		{"suffix ignored", q("Robert Smith Jr.", ""), cand("1", "Robert", "", "Smith", mainSt), 1},
		{"display name only", q("Robert Smith", ""), byName, 1},
		{"alternate name", q("Bob Smith", ""), alt, FirstExact},
		{"alternate name by nickname", q("Robert Smith", ""), alt, FirstNickname},
		{"other last name", q("Robert Smyth", ""), cand("1", "Robert", "", "Smith", mainSt), 0},
		{"other first name", q("Richard Smith", ""), cand("1", "Robert", "", "Smith", mainSt), 0},
		{"other city", q("Robert Smith", ""), cand("1", "Robert", "", "Smith", home("123 Main St", "Peoria", "IL", "")), 0},
		{"other state", q("Robert Smith", ""), cand("1", "Robert", "", "Smith", home("123 Main St", "Springfield", "MO", "")), 0},
		{"historical address", q("Robert Smith", "123 Main St"), moved, factorHistorical},
		{"other street same city", q("Robert Smith", "500 Oak Ave"), cand("1", "Robert", "", "Smith", mainSt), factorOtherStreet},
		{"other unit", q("Robert Smith", "123 Main St Apt 7"), cand("1", "Robert", "", "Smith", mainSt), factorOtherUnit},
		{"zip mismatch", Query{Name: "Robert Smith", City: "Springfield", StateCode: "IL", PostalCode: "62701"}, cand("1", "Robert", "", "Smith", mainSt), factorZIPMismatch},
		{"city written differently", Query{Name: "Ann Lee", City: "Saint Louis", StateCode: "MO"}, cand("1", "Ann", "", "Lee", home("1 Market St", "ST. LOUIS", "MO", "")), 1},
		{"no addresses", q("Robert Smith", ""), cand("1", "Robert", "", "Smith"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Score(tt.q, tt.c); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	oak := home("12 Oak Ave", "Dayton", "OH", "45402")
	q := Query{Name: "Bob Jones", StreetLine1: "12 Oak Avenue", City: "Dayton", StateCode: "OH"}
	tests := []struct {
		name          string
		q             Query
		cands         []Candidate
		wantID        string
		wantScore     float64
		wantAmbiguous bool
		wantErr       error
	}{
		{"single", q, []Candidate{cand("a", "Robert", "", "Jones", oak)}, "a", 0.9, false, nil},
		{"best of several", q, []Candidate{
			cand("a", "R", "", "Jones", oak), cand("b", "Bob", "", "Jones", oak), cand("c", "Bob", "", "Smith", oak)},
			"b", 1, false, nil},
		{"tie is ambiguous and broken by ID", q, []Candidate{
			cand("z", "Robert", "", "Jones", oak), cand("k", "Robert", "A", "Jones", oak)},
			"k", 0.9, true, nil},
		{"runner-up outside margin is not ambiguous", Query{Name: "Bob Jones", City: "Dayton", StateCode: "OH", PostalCode: "45402"}, []Candidate{
			cand("b", "Bob", "", "Jones", home("12 Oak Ave", "Dayton", "OH", "45403")), cand("a", "Bob", "", "Jones", oak)},
			"a", 1, false, nil},
		{"runner-up exactly at margin", Query{Name: "Bob Jones", City: "Dayton", StateCode: "OH"}, []Candidate{
			cand("a", "Bob", "", "Jones", oak), func() Candidate {
				c := cand("b", "Bob", "", "Jones")
				c.HistoricalAddrs = []Address{oak}
				return c
			}()},
			"a", 1, true, nil},
		{"runner-up below threshold is not counted", q, []Candidate{
			cand("a", "Robert", "", "Jones", oak), cand("b", "R", "", "Jones", home("9 Elm St", "Dayton", "OH", ""))},
			"a", 0.9, false, nil},
		{"none qualifies", q, []Candidate{cand("a", "R", "", "Jones", home("9 Elm St", "Dayton", "OH", ""))}, "", 0, false, ErrNotFound},
		{"no candidates", q, nil, "", 0, false, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Match(tt.q, tt.cands)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got error %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.ID != tt.wantID || math.Abs(got.MatchScore-tt.wantScore) > 1e-9 || got.Ambiguous != tt.wantAmbiguous {
				t.Errorf("got %s score %v ambiguous %v, want %s score %v ambiguous %v",
					got.ID, got.MatchScore, got.Ambiguous, tt.wantID, tt.wantScore, tt.wantAmbiguous)
			}
			if got.FoundAtAddress == nil {
				t.Error("got no found_at_address, want the matched address")
			}
		})
	}
}

func TestMatchIsDeterministic(t *testing.T) {
	oak := home("12 Oak Ave", "Dayton", "OH", "45402")
	cands := []Candidate{cand("c", "Bob", "", "Jones", oak), cand("a", "Bob", "", "Jones", oak), cand("b", "Bob", "", "Jones", oak)}
	q := Query{Name: "Bob Jones", City: "Dayton", StateCode: "OH"}
	for i := 0; i < 3; i++ {
		cands[0], cands[i] = cands[i], cands[0]
		got, err := Match(q, cands)
		if err != nil || got.ID != "a" || !got.Ambiguous {
			t.Errorf("order %d: got %s ambiguous %v err %v, want a, ambiguous", i, got.ID, got.Ambiguous, err)
		}
	}
}

func TestMatchValidates(t *testing.T) {
	_, err := Match(Query{Name: "Bob Jones", City: "Dayton", StateCode: "oh"}, nil)
	if err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want a validation error", err)
	}
}

// A query that names a street where none of several namesakes lives finds nobody: answering one of them would be a
// stranger's record on a guess. Without a street, or with one namesake only, the answer stands.
func TestMatchDoesNotGuessBetweenNamesakesElsewhere(t *testing.T) {
	home := func(street string) Address { return Address{StreetLine1: street, City: "Dayton", StateCode: "OH"} }
	one := cand("a", "Susan", "", "Oak", home("10 Elm St"))
	two := cand("b", "Susan", "", "Oak", home("20 Pine St"))
	q := Query{Name: "Susan Oak", StreetLine1: "30 Birch Rd", City: "Dayton", StateCode: "OH"}
	if _, err := Match(q, []Candidate{one, two}); err != ErrNotFound {
		t.Errorf("two namesakes elsewhere: %v, want not found", err)
	}
	if r, err := Match(q, []Candidate{one}); err != nil || r.ID != "a" {
		t.Errorf("one namesake elsewhere (a move the records have not caught up with): %+v %v", r, err)
	}
	q.StreetLine1 = "20 Pine St"
	if r, err := Match(q, []Candidate{one, two}); err != nil || r.ID != "b" {
		t.Errorf("the namesake at the street: %+v %v", r, err)
	}
	q.StreetLine1 = ""
	if r, err := Match(q, []Candidate{one, two}); err != nil || !r.Ambiguous {
		t.Errorf("no street: %+v %v, want an ambiguous answer", r, err)
	}
}
